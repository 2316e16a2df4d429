package sessions

// Internals the external tests (package sessions_test, which can import
// the drivers of sessions/all) check.

var (
	SpillsInside = Spills.inside
	SpanWrites   = spanWrites.Load
	Unread       = unread.Load
)
