package geminicli

import (
	"encoding/json"
	"slices"
	"strconv"

	"correx/internal/jsonskim"
	"correx/sessions"
)

// decodeVersion is json.Unmarshal(raw, &v) for one of Message.Stored:
// skimmed when raw is a version as geminiMessage wrote it (its members
// gcVersion's own, each once and of its type), by encoding/json
// otherwise. A lowering decodes every version of the session it reaches,
// thousands at a time. TestDecodeVersion checks it against encoding/json.
func decodeVersion(raw []byte) (gcVersion, error) {
	var v gcVersion
	if skimVersion(raw, &v) {
		return v, nil
	}
	v = gcVersion{}
	err := json.Unmarshal(raw, &v)
	return v, err
}

// skimVersion decodes raw into v, a zero version, where the skim can vouch
// for it.
func skimVersion(raw []byte, v *gcVersion) bool {
	seen := 0 // a bit per member, by versionMembers
	return jsonskim.Valid(raw) && jsonskim.Members(raw, func(key, val []byte) bool {
		k, ok := jsonskim.String(key)
		i := slices.Index(versionMembers, k)
		if !ok || i < 0 || seen&(1<<i) != 0 || string(val) == "null" {
			return false
		}
		seen |= 1 << i
		switch k {
		case "run":
			v.Run, ok = skimInt(val)
		case "set":
			v.Set, ok = string(val) == "true", string(val) == "true" || string(val) == "false"
		case "record":
			v.Record = json.RawMessage(val)
		case "line":
			v.Line = &sessions.Line{}
			ok = skimLine(val, v.Line)
		case "at":
			var at int
			at, ok = skimInt(val)
			v.At = &at
		case "left":
			v.Left, ok = skimSpans(val)
		case "dropped":
			v.Dropped, ok = skimSpans(val)
		}
		return ok
	})
}

// versionMembers are gcVersion's members as it is written.
var versionMembers = []string{"run", "set", "record", "line", "at", "left", "dropped"}

// skimInt is the integer val writes as strconv does; ok false for any
// other form (left to encoding/json).
func skimInt(val []byte) (int, bool) {
	n, err := strconv.Atoi(string(val))
	return n, err == nil && strconv.Itoa(n) == string(val)
}

// skimLine decodes a sessions.Line as json.Marshal writes it.
func skimLine(val []byte, l *sessions.Line) bool {
	vals, ok := jsonskim.Named(val, "N", "Off", "Len")
	if !ok || vals[0] == nil || vals[1] == nil || vals[2] == nil {
		return false
	}
	n, ok1 := skimInt(vals[0])
	off, ok2 := skimInt(vals[1])
	ln, ok3 := skimInt(vals[2])
	*l = sessions.Line{N: n, Off: int64(off), Len: ln}
	return ok1 && ok2 && ok3
}

// skimSpans decodes a list of sessions.StringSpan as json.Marshal writes
// it.
func skimSpans(val []byte) ([]sessions.StringSpan, bool) {
	spans := []sessions.StringSpan{}
	ok := jsonskim.Elements(val, func(e []byte) bool {
		vals, ok := jsonskim.Named(e, "Off", "Len", "Sum")
		if !ok || vals[0] == nil || vals[1] == nil || vals[2] == nil {
			return false
		}
		off, ok1 := skimInt(vals[0])
		ln, ok2 := skimInt(vals[1])
		sum, err := strconv.ParseUint(string(vals[2]), 10, 64)
		spans = append(spans, sessions.StringSpan{Off: int64(off), Len: ln, Sum: sum})
		return ok1 && ok2 && err == nil && strconv.FormatUint(sum, 10) == string(vals[2])
	})
	return spans, ok
}
