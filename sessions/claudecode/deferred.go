package claudecode

import (
	"bytes"

	"correx/internal/jsonskim"
	"correx/sessions"
)

// A deferred request (LoadRequestDeferred) is read with the string content
// of each large tool_result left in the transcript (sessions.Leaver): the
// wire copies it from the line it lies in as it is written, so that a
// step's request of thousands of results is never held decoded (nor read)
// whole.

// ccWithout is what the wire can read a line without: the string content
// of its large tool_results, left in the file, and the strings of its
// toolUseResult, which the wire never reads.
type ccWithout struct{ leave, drop []sessions.StringSpan }

// noteWithout notes what the wire can read line ln (raw, as the scan read
// it) without, when that is worth a note.
func (st *ccState) noteWithout(ln sessions.Line, raw []byte) {
	if len(raw) < 4*sessions.LeaveBytes {
		return
	}
	msg, _, tur, ok := skimLine(raw)
	if !ok {
		return
	}
	w := ccWithout{
		leave: sessions.SpansOf(ln, raw, messageResults(msg)),
		drop:  sessions.DroppedSpans(ln, raw, func(each func([]byte)) { jsonskim.Strings(tur, each) }),
	}
	if len(w.leave)+len(w.drop) > 0 {
		st.without[ln.Off] = w
	}
}

// kept is msg, the message of the line last read, to keep: a copy, its
// large results left in the file when the request is deferred.
func (x *ccLines) kept(msg []byte) []byte {
	if out, left := x.deferral.Leave(x.lineRead, msg, messageResults(msg)); left {
		return out
	}
	return bytes.Clone(msg)
}

// messageResults gives the content of each tool_result block of a
// message.
func messageResults(msg []byte) func(func([]byte)) {
	return func(each func([]byte)) {
		if content, ok := contentOf(msg); ok && len(content) > 0 && content[0] == '[' {
			jsonskim.Elements(content, func(b []byte) bool {
				blockResult(b)(each)
				return true
			})
		}
	}
}

// blockResult gives the content of block b when it is a tool_result.
func blockResult(b []byte) func(func([]byte)) {
	return func(each func([]byte)) {
		if vals, ok := jsonskim.Named(b, "type", "content"); ok && string(vals[0]) == `"tool_result"` && vals[1] != nil {
			each(vals[1])
		}
	}
}
