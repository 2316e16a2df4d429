package claudecode

import (
	"bytes"
	"context"

	"correx/internal/jsonskim"
	"correx/sessions"
)

// A deferred request (LoadRequestDeferred) is read with the string content
// of each large tool_result left in the transcript: the wire copies it
// from the line it lies in as it is written, so that a step's request of
// thousands of results is never held decoded (nor read) whole.

// deferBytes is the least content, quotes included, a deferred request
// leaves in the file: below it a placeholder saves little.
var deferBytes = 1 << 10

// ccDeferral is the deferral of one request: where its placeholders come
// from and the file their bodies are copied from.
type ccDeferral struct {
	place func(body func(context.Context, func(string) error) error) []byte
	spans *sessions.SpanFile
}

// kept is msg, the message of the line last read, to keep: a copy, its
// large results left in the file when the request is deferred.
func (x *ccLines) kept(msg []byte) []byte {
	if out, left := x.deferral.leftInFile(x.at, x.data, msg, false); left {
		return out
	}
	return bytes.Clone(msg)
}

// leftInFile is raw, a logged message (with block, one of its blocks)
// lying in data, the bytes of line l, with a placeholder in the place of
// the string content of each large tool_result that lies there in the
// form the wire writes (sessions.SpanOf); left says some was, raw itself
// is given when not.
func (d *ccDeferral) leftInFile(l sessions.Line, data, raw []byte, block bool) (out []byte, left bool) {
	if d == nil || data == nil {
		return raw, false
	}
	last := 0
	leave := func(b []byte) bool {
		vals, ok := jsonskim.Named(b, "type", "content")
		c := vals[1]
		if !ok || string(vals[0]) != `"tool_result"` || len(c) < deferBytes || c[0] != '"' || jsonskim.StringEnd(c, 0) != len(c) {
			return true
		}
		sp, ok := sessions.SpanOf(l, data, c[1:len(c)-1])
		at, in := jsonskim.Within(raw, c)
		if !ok || !in || at < last {
			return true
		}
		if out == nil {
			out = make([]byte, 0, len(raw)/8)
		}
		spans := d.spans
		out = append(out, raw[last:at]...)
		out = append(out, d.place(func(ctx context.Context, write func(string) error) error {
			return spans.Write(ctx, sp, write)
		})...)
		last = at + len(c)
		return true
	}
	if block {
		leave(raw)
	} else if content, ok := contentOf(raw); ok && len(content) > 0 && content[0] == '[' {
		jsonskim.Elements(content, leave)
	}
	if out == nil {
		return raw, false
	}
	return append(out, raw[last:]...), true
}
