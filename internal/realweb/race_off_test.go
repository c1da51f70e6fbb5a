//go:build !race

package realweb

// raceEnabled: see race_on_test.go.
const raceEnabled = false
