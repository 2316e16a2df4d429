package sessions

// Internals the external tests (package sessions_test, which can import
// the drivers of sessions/all) check.

var (
	SpillsInside = Spills.inside
	SpanWrites   = spanWrites.Load
	Unread       = unread.Load
)

// SetAheadBytes sets how many bytes a read-ahead holds (readAhead) until
// the test ends.
func SetAheadBytes(t interface{ Cleanup(func()) }, n int) {
	old := aheadBytes
	aheadBytes = n
	t.Cleanup(func() { aheadBytes = old })
}
