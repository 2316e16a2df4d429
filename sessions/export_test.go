package sessions

// Internals the external tests (package sessions_test, which can import
// the drivers of sessions/all) check.

var (
	SpillsInside = Spills.inside
	SpanWrites   = spanWrites.Load
	Unread       = unread.Load
	LongRead     = longTaken.Load
)

// SetLongLines sets LongLineBytes, LongStringBytes and the scan's buffer
// until the test ends.
func SetLongLines(t interface{ Cleanup(func()) }, line, str, buf int) {
	a, b, c := LongLineBytes, LongStringBytes, scanBuffer
	LongLineBytes, LongStringBytes, scanBuffer = line, str, buf
	t.Cleanup(func() { LongLineBytes, LongStringBytes, scanBuffer = a, b, c })
}

// SetAheadBytes sets how many bytes a read-ahead holds (readAhead) until
// the test ends.
func SetAheadBytes(t interface{ Cleanup(func()) }, n int) {
	old := aheadBytes
	aheadBytes = n
	t.Cleanup(func() { aheadBytes = old })
}
