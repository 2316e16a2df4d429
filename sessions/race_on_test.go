//go:build race

package sessions

// raceEnabled: the race detector slows the transpiled SQLite ~25 times.
const raceEnabled = true
