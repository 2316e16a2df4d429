package geminicli

import (
	"encoding/json"

	"correx/internal/jsonskim"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// A conversation written lazily (render.Placer.Lazy) is lowered with the
// output of each large function response left in the chat file
// (sessions.Leaver): the wire copies it from the line it lies in as it is
// written, so that the records of thousands of calls are never held
// whole.

// leaverFor is the Leaver of s's chat file for pl, nil when pl is not
// lazy.
func leaverFor(s *model.Session, pl *render.Placer) *sessions.Leaver {
	if !pl.Lazy() {
		return nil
	}
	lv := &sessions.Leaver{Spans: &sessions.SpanFile{Path: s.Info.Source}, Place: pl.Defer}
	pl.OnClose(lv.Spans.Close)
	return lv
}

// gcRecordLeft is version v's record as the wire reads it
// (gcVersion.resolve as stored, decoded), with lv the large outputs of a
// record on a line of its own left in the file: the line is read without
// those the scan found and without its resultDisplays (v.Left, v.Dropped),
// and read whole when the file changed or the skim cannot vouch for the
// record.
func gcRecordLeft(v gcVersion, lines *sessions.LinesAt, lv *sessions.Leaver) gcRecord {
	if lv == nil || v.Line == nil || v.At != nil {
		return gcRecOf(v.resolve(lines.Read, true))
	}
	if lr, err := lines.ReadWithout(*v.Line, v.Left, v.Dropped); err == nil {
		if r, ok := skimLeft(lr, lv); ok && lr.Whole(lr.Data) {
			return r
		}
	}
	b, err := lines.Read(*v.Line)
	if err != nil {
		return gcRecord{}
	}
	if r, ok := skimLeft(&sessions.LineRead{Line: *v.Line, Data: b}, lv); ok {
		return r
	}
	return gcRecOf(withoutDisplays(b))
}

// skimLeft is the record lr reads, skimmed as it lies with its large
// outputs left in the file; it is checked without its resultDisplays, as
// resolve gives it (the skim reads none, and drops those lr was read
// without).
func skimLeft(lr *sessions.LineRead, lv *sessions.Leaver) (gcRecord, bool) {
	displays(lr.Data, func(i, end int) { lr.Drop(lr.Data[i:end]) })
	var r gcRecord
	valid := jsonskim.Valid(lr.Data) || jsonskim.Valid(withoutDisplays(lr.Data)) // a display is never read
	ok := valid && skimValid(lr.Data, &r, rawValue, func(parts []byte) json.RawMessage {
		if out, left := lv.Leave(lr, parts, responseOutputs(parts)); left {
			return out
		}
		return rawValue(parts) // a copy: what the conversation keeps does not keep the line
	})
	return r, ok
}

// recordOutputs gives the output of each function response of a record,
// in its content and its calls' results: those gcRecordLeft leaves.
func recordOutputs(rec []byte) func(func([]byte)) {
	return func(each func([]byte)) {
		vals, ok := jsonskim.Named(rec, "content", "toolCalls")
		if !ok {
			return
		}
		responseOutputs(vals[0])(each)
		if calls := vals[1]; len(calls) > 0 && calls[0] == '[' {
			jsonskim.Elements(calls, func(c []byte) bool {
				responseOutputs(jsonskim.Member(c, "result"))(each)
				return true
			})
		}
	}
}

// responseOutputs gives the output of each function response of a list
// of parts.
func responseOutputs(parts []byte) func(func([]byte)) {
	return func(each func([]byte)) {
		if len(parts) == 0 || parts[0] != '[' {
			return
		}
		jsonskim.Elements(parts, func(p []byte) bool {
			if out := jsonskim.Member(jsonskim.Member(jsonskim.Member(p, "functionResponse"), "response"), "output"); out != nil {
				each(out)
			}
			return true
		})
	}
}
