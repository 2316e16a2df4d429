//go:build race

package opencode

// raceEnabled: the race detector slows the transpiled SQLite ~25 times.
const raceEnabled = true
