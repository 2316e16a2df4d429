package geminicli

// Skimming a chat record before it is decoded: a call's resultDisplay is
// what the CLI showed (a shell call's whole output), never sent and never
// read by correx, often most of the record's bytes. Decoding skips it
// only after scanning it byte by byte; skimming finds its end with
// bytes.IndexByte (jsonskim).

import (
	"bytes"
	"encoding/json"

	"correx/internal/jsonskim"
)

// withoutDisplays is record line b with the value of every
// toolCalls[].resultDisplay (a string, object or array) replaced by ""
// (b itself when it has none):
// the other values keep their bytes. b must be valid JSON for the result
// to decode as b does; any other b is returned as it is.
func withoutDisplays(b []byte) []byte {
	var out []byte
	last := 0 // b[last:] is not yet in out
	if !displays(b, func(i, end int) {
		if end-i > 2 {
			out = append(append(out, b[last:i]...), `""`...)
			last = end
		}
	}) || out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// displays gives where the value of each toolCalls[].resultDisplay of
// record line b lies (b[i:end], quotes or brackets included), in order: a
// string, or an object or array once it is valid JSON; false when a
// string of b has no end or a display is not valid (b is no JSON, and
// some may not have been given).
func displays(b []byte, each func(i, end int)) bool {
	depth := 0         // of objects and arrays around the current byte
	toolCalls := -1    // depth of the toolCalls array, -1 outside it
	key := []byte(nil) // the last string at depth 1, or in a call
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			if toolCalls > 0 && depth == toolCalls+1 && string(key) == `"resultDisplay"` {
				// an object or array: given whole, once known valid
				end, ok := jsonskim.ValidValueEnd(b, i)
				if !ok {
					return false
				}
				each(i, end)
				key, i = nil, end
				continue
			}
			depth++
			i++
		case '}', ']':
			depth--
			if depth < toolCalls {
				toolCalls = -1
			}
			i++
		case '"':
			end := jsonskim.StringEnd(b, i)
			if end < 0 {
				return false
			}
			s := b[i:end]
			j := end
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n') {
				j++
			}
			if j < len(b) && b[j] == ':' {
				key = s
				if depth == 1 && string(s) == `"toolCalls"` {
					toolCalls = depth + 1
				}
				i = j + 1
				continue
			}
			if toolCalls > 0 && depth == toolCalls+1 && string(key) == `"resultDisplay"` {
				each(i, end)
			}
			key = nil
			i = end
		default:
			i++
		}
	}
	return true
}

// The members a record (gcRecord) and a call (gcToolCall) decode, in
// their fields' order.
var (
	recordMembers = []string{"id", "timestamp", "type", "content", "thoughts", "toolCalls", "model", "displayContent"}
	callMembers   = []string{"id", "name", "args", "result", "status", "timestamp", "description", "displayName", "agentId"}
)

// decodeRecord is json.Unmarshal(raw, r) for a zero r: skimmed where the
// skim can vouch for what encoding/json gives (a valid record whose
// members are each of their field's type, named once and exactly), its
// strings found a word at a time. FuzzDecodeRecord checks
// it against encoding/json.
func decodeRecord(raw []byte, r *gcRecord) error {
	if skimRecord(raw, r, rawValue) {
		return nil
	}
	*r = gcRecord{}
	return json.Unmarshal(raw, r)
}

// skimRecord decodes raw into r where the skim can vouch for it, the
// content and each call's result kept by parts (as rawValue keeps them,
// or with strings left in the file).
func skimRecord(raw []byte, r *gcRecord, parts func([]byte) json.RawMessage) bool {
	return jsonskim.Valid(raw) && skimValid(raw, r, rawValue, parts)
}

// skimValid is skimRecord of a record known to be valid JSON, its other
// raw values kept by keep.
func skimValid(raw []byte, r *gcRecord, keep, parts func([]byte) json.RawMessage) bool {
	v, ok := jsonskim.Named(raw, recordMembers...)
	if !ok || !jsonskim.StringValues(v, &r.ID, &r.Timestamp, &r.Type) || !jsonskim.StringValues(v[6:], &r.Model) {
		return false
	}
	r.Content, r.DisplayText = parts(v[3]), keep(v[7])
	switch th := v[4]; {
	case th == nil || string(th) == "null":
	case th[0] != '[':
		return false
	default:
		r.Thoughts = []gcThought{}
		ok := jsonskim.Elements(th, func(e []byte) bool {
			var t gcThought
			if string(e) != "null" {
				tv, ok := jsonskim.Named(e, "subject", "description")
				if !ok || !jsonskim.StringValues(tv, &t.Subject, &t.Description) {
					return false
				}
			}
			r.Thoughts = append(r.Thoughts, t)
			return true
		})
		if !ok {
			return false
		}
	}
	switch calls := v[5]; {
	case calls == nil || string(calls) == "null":
	case calls[0] != '[':
		return false
	default:
		r.ToolCalls = []gcToolCall{}
		ok := jsonskim.Elements(calls, func(c []byte) bool {
			cv, ok := jsonskim.Named(c, callMembers...)
			var tc gcToolCall
			if !ok || !jsonskim.StringValues(cv, &tc.ID, &tc.Name) || !jsonskim.StringValues(cv[4:], &tc.Status, &tc.Timestamp, &tc.Description, &tc.DisplayName, &tc.AgentID) {
				return false
			}
			tc.Args, tc.Result = keep(cv[2]), parts(cv[3])
			r.ToolCalls = append(r.ToolCalls, tc)
			return true
		})
		if !ok {
			return false
		}
	}
	return true
}

// rawValue is a member's value as a json.RawMessage field decodes it
// (absent: nil): a copy, as there, so that what is kept of it does not
// keep the whole line.
func rawValue(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	return bytes.Clone(v)
}
