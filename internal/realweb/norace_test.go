//go:build !race

package realweb

const raceEnabled = false
