//go:build race

package realweb

const raceEnabled = true
