package qwencode

// A tool_result line carries, besides the message the model got, the
// toolCallResult's resultDisplay: for a shell call the whole output twice
// (output and text), megabytes that the reader never uses. decodeLine
// checks it with a small scanner and decodes the rest of the line, as
// encoding/json would decode the whole line.

import (
	"encoding/json"
	"slices"

	"correx/internal/jsonskim"
	"correx/model"
)

// decodeLine decodes line b into l as json.Unmarshal does, without
// decoding toolCallResult's members other than status.
func decodeLine(b []byte, l *line) error {
	if small, ok := withoutDisplay(b); ok && json.Unmarshal(small, l) == nil {
		return nil
	}
	*l = line{}
	return json.Unmarshal(b, l) // the error json gives, or the rare line the cut does not fit
}

// withoutDisplay is object b with each top-level toolCallResult object
// cut down to its status members; ok false when b is not a valid object.
func withoutDisplay(b []byte) ([]byte, bool) {
	out := make([]byte, 0, min(len(b), 64<<10))
	out = append(out, '{')
	n := 0
	add := func(out, k, v []byte) []byte {
		if n++; n > 1 {
			out = append(out, ',')
		}
		return append(append(append(out, k...), ':'), v...)
	}
	i := ws(b, 0)
	end, ok := members(b, i, 1, func(k []byte, vs int) (int, bool) {
		if string(k) != `"toolCallResult"` || b[vs] != '{' {
			ve, ok := skipValue(b, vs, 2)
			if ok {
				out = add(out, k, b[vs:ve])
			}
			return ve, ok
		}
		sub := []byte{'{'}
		m := 0
		ve, ok := members(b, vs, 2, func(k []byte, s int) (int, bool) {
			e, ok := skipValue(b, s, 3)
			if ok && string(k) == `"status"` {
				if m++; m > 1 {
					sub = append(sub, ',')
				}
				sub = append(append(append(sub, k...), ':'), b[s:e]...)
			}
			return e, ok
		})
		out = add(out, k, append(sub, '}'))
		return ve, ok
	})
	if !ok || ws(b, end) != len(b) {
		return nil, false
	}
	return append(out, '}'), true
}

// members walks the object at b[i], depth deep: value(key, start of its
// value) checks each member's value and says where it ends. It returns
// the end of the object.
func members(b []byte, i, depth int, value func(key []byte, vs int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '{' || depth > maxDepth {
		return 0, false
	}
	if i = ws(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		ke, ok := skipString(b, i)
		if !ok {
			return 0, false
		}
		k := b[i:ke]
		if i = ws(b, ke); i >= len(b) || b[i] != ':' {
			return 0, false
		}
		if i = ws(b, i+1); i >= len(b) {
			return 0, false
		}
		ve, ok := value(k, i)
		if !ok {
			return 0, false
		}
		if i = ws(b, ve); i >= len(b) {
			return 0, false
		}
		if b[i] == '}' {
			return i + 1, true
		}
		if b[i] != ',' {
			return 0, false
		}
		i = ws(b, i+1)
	}
}

func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the end of the JSON string at b[i], checked as
// encoding/json checks one (escapes, no control characters).
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	end, ok := jsonskim.ValidStringEnd(b, i)
	if !ok {
		return 0, false
	}
	return end, true
}

// maxDepth is how deep skipValue goes (encoding/json's limit).
const maxDepth = 10000

// skipValue is the end of the JSON value at b[i], checked, depth deep.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxDepth {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{':
		return members(b, i, depth, func(_ []byte, vs int) (int, bool) { return skipValue(b, vs, depth+1) })
	case '[':
		if i = ws(b, i+1); i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			ve, ok := skipValue(b, i, depth+1)
			if !ok {
				return 0, false
			}
			if i = ws(b, ve); i >= len(b) {
				return 0, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = ws(b, i+1)
		}
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i || !json.Valid(b[i:j]) {
		return 0, false
	}
	return j, true
}

// A textCut is the text of a function response a line was cut down
// without (cutText): the index of its part in the message, and its value.
type textCut struct {
	part  int
	value model.ToolResultValue
}

// cutBytes is the least line cutText cuts: below it, a copy or two of the
// line cost little; the strings of toolCallResult it cuts are at least
// cutBytes/64 long. Tests lower it.
var cutBytes = 64 << 10

// cutText is line b cut down for Output of call partID, so that its text
// is held once, not in several copies as it is decoded: when the skim can
// vouch for it (b valid, each name it reads given once and exactly), the
// output string (else the error string) of the first function response of
// that id among the message's parts is decoded here and replaced by "" in
// the copy returned, as are toolCallResult's large strings (the reader
// reads only its status). cut is nil when it cuts nothing.
func cutText(b []byte, partID string) (small []byte, cut *textCut) {
	if len(b) < cutBytes || !jsonskim.Valid(b) {
		return b, nil
	}
	top, ok := jsonskim.Named(b, "message", "toolCallResult")
	if !ok || len(top[0]) == 0 || top[0][0] != '{' {
		return b, nil
	}
	msg, ok := jsonskim.Named(top[0], "parts")
	if !ok || len(msg[0]) == 0 || msg[0][0] != '[' {
		return b, nil
	}
	var text []byte // the string cut, quotes included
	i := 0
	jsonskim.Elements(msg[0], func(p []byte) bool {
		i++
		fr, ok := jsonskim.Named(p, "functionResponse")
		if !ok || fr[0] == nil || string(fr[0]) == "null" {
			return ok // a folded or repeated name: not cut
		}
		v, ok := jsonskim.Named(fr[0], "id", "response")
		id, isString := jsonskim.Text(v[0])
		if !ok || !isString || id != partID {
			return ok && isString
		}
		resp, ok := jsonskim.Named(v[1], "output", "error")
		value := model.ToolResultValue{Type: model.ResultText}
		if ok && resp[0] == nil {
			resp[0], value.Type = resp[1], model.ResultError
		}
		if s, isString := jsonskim.Text(resp[0]); ok && isString {
			value.Text = s
			text, cut = resp[0], &textCut{part: i - 1, value: value}
		}
		return false
	})
	if cut == nil {
		return b, nil
	}
	cuts := [][]byte{text}
	displayStrings(top[1], func(s []byte) {
		if len(s) >= max(cutBytes/64, 2) {
			cuts = append(cuts, s)
		}
	})
	slices.SortFunc(cuts, func(x, y []byte) int {
		ax, _ := jsonskim.Within(b, x)
		ay, _ := jsonskim.Within(b, y)
		return ax - ay
	})
	small = make([]byte, 0, 64<<10)
	last := 0
	for _, c := range cuts {
		at, _ := jsonskim.Within(b, c)
		small = append(append(small, b[last:at]...), `""`...)
		last = at + len(c)
	}
	return append(small, b[last:]...), cut
}

// displayStrings gives the strings of toolCallResult value tcr but those
// of its status (decodeLine reads nothing else of it).
func displayStrings(tcr []byte, each func(str []byte)) {
	if len(tcr) == 0 || tcr[0] != '{' {
		return
	}
	jsonskim.Members(tcr, func(k, v []byte) bool {
		if !jsonskim.Folded(k, "status") && string(k) != `"status"` {
			jsonskim.Strings(v, each)
		}
		return true
	})
}

// messageParts is a line's message decoded as json.Unmarshal decodes it
// into a struct of its parts and, when role is not nil, its role (role
// then holds it): skimmed where the skim can vouch for what encoding/json
// gives (valid JSON whose members are each of their field's type, named
// once and exactly), its raw values slices of raw. FuzzMessageParts
// checks it against encoding/json.
func messageParts(raw []byte, role *string) ([]part, error) {
	names := []string{"parts", "role"}
	if role == nil {
		names = names[:1]
	}
	if jsonskim.Valid(raw) {
		if v, ok := jsonskim.Named(raw, names...); ok && (role == nil || jsonskim.StringValues(v[1:], role)) {
			if ps, ok := skimParts(v[0]); ok {
				return ps, nil
			}
		}
	}
	var m struct {
		Parts []part `json:"parts"`
	}
	if role == nil {
		err := json.Unmarshal(raw, &m)
		return m.Parts, err
	}
	var mr struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	err := json.Unmarshal(raw, &mr)
	*role = mr.Role
	return mr.Parts, err
}

// skimParts is a list of parts (nil: absent or null) as encoding/json
// decodes it; ok false where the skim cannot vouch for that.
func skimParts(b []byte) (ps []part, ok bool) {
	if b == nil || string(b) == "null" {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	ps = []part{}
	ok = jsonskim.Elements(b, func(e []byte) bool {
		var p part
		if string(e) != "null" && !skimPart(e, &p) {
			return false
		}
		ps = append(ps, p)
		return true
	})
	return ps, ok
}

func skimPart(b []byte, p *part) bool {
	v, ok := jsonskim.Named(b, "text", "thought", "functionCall", "functionResponse", "inlineData")
	if !ok {
		return false
	}
	switch t := v[0]; {
	case t == nil || string(t) == "null":
	case t[0] != '"':
		return false
	default:
		s, ok := jsonskim.Text(t)
		if !ok {
			return false
		}
		p.Text = &s
	}
	switch string(v[1]) {
	case "", "null", "false":
	case "true":
		p.Thought = true
	default:
		return false
	}
	if fc := v[2]; fc != nil && string(fc) != "null" {
		f, ok := jsonskim.Named(fc, "id", "name", "args")
		if !ok || fc[0] != '{' {
			return false
		}
		p.FunctionCall = &struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}{Args: rawOf(f[2])}
		if !jsonskim.StringValues(f, &p.FunctionCall.ID, &p.FunctionCall.Name) {
			return false
		}
	}
	if fr := v[3]; fr != nil && string(fr) != "null" {
		f, ok := jsonskim.Named(fr, "id", "name", "response", "parts")
		if !ok || fr[0] != '{' {
			return false
		}
		p.FunctionResponse = &response{Response: rawOf(f[2])}
		if !jsonskim.StringValues(f, &p.FunctionResponse.ID, &p.FunctionResponse.Name) {
			return false
		}
		if p.FunctionResponse.Parts, ok = skimParts(f[3]); !ok {
			return false
		}
	}
	if in := v[4]; in != nil && string(in) != "null" {
		f, ok := jsonskim.Named(in, "mimeType", "data", "displayName")
		if !ok || in[0] != '{' {
			return false
		}
		p.InlineData = &media{}
		if !jsonskim.StringValues(f, &p.InlineData.MimeType, &p.InlineData.Data, &p.InlineData.DisplayName) {
			return false
		}
	}
	return true
}

// rawOf is a member's value as a json.RawMessage field decodes it
// (absent: nil; null: "null").
func rawOf(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	return v
}

// sentString is the first of a function response's members output and
// error that decodes to a string (null to ""), with its key, as decoding
// the response into a map of raw values finds it; key "" for none.
// Skimmed where the skim can vouch for the map (valid JSON, each name
// once and no other folding to it). FuzzSentString checks it against
// encoding/json.
func sentString(resp []byte) (key, s string) {
	keys := []string{"output", "error"}
	if jsonskim.Valid(resp) {
		if v, ok := jsonskim.Named(resp, keys...); ok {
			for i, k := range keys {
				switch {
				case v[i] == nil:
				case string(v[i]) == "null":
					return k, ""
				default:
					if s, ok := jsonskim.Text(v[i]); ok {
						return k, s
					}
				}
			}
			return "", ""
		}
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) == nil {
		for _, k := range keys {
			if json.Unmarshal(m[k], &s) == nil && m[k] != nil {
				return k, s
			}
		}
	}
	return "", ""
}
