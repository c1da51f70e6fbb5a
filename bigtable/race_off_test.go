//go:build !race

package bigtable

// raceEnabled: see race_on_test.go.
const raceEnabled = false
