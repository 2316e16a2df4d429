package claudecode

import (
	"bytes"

	"correx/internal/jsonskim"
)

// A deferred request (LoadRequestDeferred) is read with the string content
// of each large tool_result left in the transcript (sessions.Leaver): the
// wire copies it from the line it lies in as it is written, so that a
// step's request of thousands of results is never held decoded (nor read)
// whole.

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
