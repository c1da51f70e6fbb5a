//go:build race

package realweb

// raceEnabled: the race detector is on, and reading a whole manual costs
// ten times more; the tests that do it read part of it, or skip the
// sequential walks that race nothing.
const raceEnabled = true
