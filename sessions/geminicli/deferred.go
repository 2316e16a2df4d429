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
// record on a line of its own left in the file.
func gcRecordLeft(v gcVersion, read func(sessions.Line) ([]byte, error), lv *sessions.Leaver) gcRecord {
	if lv == nil || v.Line == nil || v.At != nil {
		return gcRecOf(v.resolve(read, true))
	}
	b, err := read(*v.Line)
	if err != nil {
		return gcRecord{}
	}
	// b is checked without its resultDisplays, as resolve gives it (the
	// skim reads none), and skimmed as it lies
	var r gcRecord
	wd := withoutDisplays(b)
	if jsonskim.Valid(wd) && skimValid(b, &r, func(parts []byte) json.RawMessage {
		if out, left := lv.Leave(*v.Line, b, parts, responseOutputs(parts)); left {
			return out
		}
		return rawValue(parts)
	}) {
		return r
	}
	return gcRecOf(wd)
}

// responseOutputs gives the output of each function response of a list
// of parts.
func responseOutputs(parts []byte) func(func([]byte)) {
	return func(each func([]byte)) {
		if len(parts) == 0 || parts[0] != '[' {
			return
		}
		jsonskim.Elements(parts, func(p []byte) bool {
			if out := named(named(named(p, "functionResponse"), "response"), "output"); out != nil {
				each(out)
			}
			return true
		})
	}
}

// named is object b's member name, nil when b is no object or has none.
func named(b []byte, name string) []byte {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	vals, ok := jsonskim.Named(b, name)
	if !ok {
		return nil
	}
	return vals[0]
}
