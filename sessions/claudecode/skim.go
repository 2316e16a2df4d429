package claudecode

// Skimming logged messages and transcript lines: a request of thousands of
// steps is hundreds of megabytes of tool results that the reader only
// passes on. encoding/json checks and decodes every byte of them in each
// of its passes; the skim (internal/jsonskim) finds the spans the reader
// needs with bytes.IndexByte over strings. Each skim answers only the
// shapes it can vouch that encoding/json reads the same (exact lowercase
// keys, no duplicates, values of the type the field takes) and leaves
// every other to encoding/json; the JSON itself is checked when it is
// written (render marshals every raw message).

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"correx/internal/jsonskim"
)

// plainString is the text of span v, a JSON string of printable UTF-8
// without escapes, or "" for null; ok false for any other value.
func plainString(v []byte) (string, bool) {
	if string(v) == "null" {
		return "", true
	}
	if len(v) < 2 || v[0] != '"' || !utf8.Valid(v) {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c == '\\' {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}

// skimLine is the message, its content and the toolUseResult of
// transcript line data, as ccLines.read decodes them; ok false when the
// skim cannot vouch for them (a message that is not an object, a null).
func skimLine(data []byte) (msg, content, toolUseResult json.RawMessage, ok bool) {
	vals, ok := jsonskim.Named(data, "message", "toolUseResult")
	if !ok || vals[0] == nil || vals[0][0] != '{' || string(vals[1]) == "null" {
		return nil, nil, nil, false
	}
	content, ok = contentOf(vals[0])
	return vals[0], content, vals[1], ok
}

// contentOf is the content of message b (nil when it has none); ok false
// when the skim cannot vouch for it (a duplicate, a folded key).
func contentOf(b []byte) ([]byte, bool) {
	vals, ok := jsonskim.Named(b, "content")
	return vals[0], ok
}

// skimBlocks is the elements of content, an array, as []json.RawMessage
// decodes them.
func skimBlocks(content []byte) ([]json.RawMessage, bool) {
	var out []json.RawMessage
	ok := jsonskim.Elements(content, func(v []byte) bool {
		out = append(out, v)
		return true
	})
	return out, ok
}

// skimPlainText is plainText where the skim can vouch for it.
func skimPlainText(raw []byte, last bool) (text string, reform, ok bool) {
	vals, ok := jsonskim.Named(raw, "role", "content")
	if !ok {
		return "", false, false
	}
	role, content := vals[0], vals[1]
	r, ok := plainString(role)
	if role != nil && !ok {
		return "", false, false
	}
	if r == "assistant" || content == nil {
		return "", false, true
	}
	switch content[0] {
	case '"', 'n':
		if !last {
			return "", false, true // a string stays one
		}
		if json.Unmarshal(content, &text) != nil {
			return "", false, false
		}
		return text, true, true
	case '[':
	default:
		return "", false, true
	}
	blocks, ok := skimBlocks(content)
	if !ok || len(blocks) != 1 || blocks[0][0] != '{' {
		return "", false, ok
	}
	keys := map[string]bool{}
	var typ, body []byte
	if !jsonskim.Members(blocks[0], func(k, v []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 {
			return false
		}
		keys[string(k)] = true
		switch string(k) {
		case `"type"`:
			typ = v
		case `"text"`:
			body = v
		}
		return true
	}) {
		return "", false, false
	}
	if len(keys) != 2 || string(typ) != `"text"` || body == nil {
		return "", false, true
	}
	if body[0] != '"' && string(body) != "null" {
		return "", false, true
	}
	if last {
		return "", false, true // a one-block list stays one
	}
	if json.Unmarshal(body, &text) != nil {
		return "", false, false
	}
	return text, true, true
}

// blockFields are model.AnthropicBlock's keys and the first bytes of the
// values each takes besides null ("" any value); source's own fields are
// left to encoding/json.
var blockFields = map[string]string{
	"type": `"`, "text": `"`, "thinking": `"`, "signature": `"`, "data": `"`, "id": `"`,
	"name": `"`, "tool_use_id": `"`, "tool_name": `"`, "is_error": "tf", "input": "", "content": "",
}

// toolBlock is a tool_use or tool_result block of a logged message.
type toolBlock struct {
	typ, id, toolUseID string
}

// skimToolBlocks is the blocks of logged message raw as placeLogged
// decodes them (nil for a string content); ok false where the skim cannot
// vouch for them.
func skimToolBlocks(raw []byte) (blocks []toolBlock, ok bool) {
	content, ok := contentOf(raw)
	if !ok {
		return nil, false
	}
	if content == nil || string(content) == "null" {
		return nil, true
	}
	if content[0] != '[' {
		return nil, false // a string: encoding/json fails, which the caller reads as no blocks
	}
	ok = jsonskim.Elements(content, func(el []byte) bool {
		if string(el) == "null" {
			blocks = append(blocks, toolBlock{})
			return true
		}
		if el[0] != '{' {
			return false
		}
		var b toolBlock
		good := jsonskim.Members(el, func(k, v []byte) bool {
			if jsonskim.Folded(k, "type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "tool_name", "content", "is_error", "source") {
				return false
			}
			name := string(k[1 : len(k)-1])
			if name == "source" {
				return string(v) == "null"
			}
			first, known := blockFields[name]
			if !known || first == "" || string(v) == "null" {
				return true
			}
			if !strings.ContainsRune(first, rune(v[0])) {
				return false
			}
			var s string
			var ok bool
			switch name {
			case "type":
				s, ok = plainString(v)
				b.typ = s
			case "id":
				s, ok = plainString(v)
				b.id = s
			case "tool_use_id":
				s, ok = plainString(v)
				b.toolUseID = s
			default:
				return true
			}
			return ok
		})
		blocks = append(blocks, b)
		return good
	})
	return blocks, ok
}

// decodeSkimmed decodes object b, valid JSON, into v as json.Unmarshal
// does, but for the members named in names and in scalars: each of names
// is left out of what encoding/json reads and its value's span put in the
// RawMessage of the same index in raws (which must be v's fields of those
// names); each of scalars (v's fields of those names: a *string, *bool or
// **string) is decoded by the skim, and encoding/json reads the rest, if
// any: a member v has no field for (not even case folded) is left out
// of what it reads, as encoding/json skips it (b is valid). The
// RawMessages are spans of b, not copies: a scan's line is its
// reader's to keep, and what is kept of them is copied where it is kept.
// ok false, v to be decoded again, when the skim cannot vouch for it or
// encoding/json fails.
func decodeSkimmed(b []byte, v any, names []string, raws []*json.RawMessage, sc scalars) bool {
	small := make([]byte, 0, 1024)
	small = append(small, '{')
	spans := make([][]byte, len(names))
	fields, named := jsonskim.FieldNames(reflect.TypeOf(v).Elem())
	ok := jsonskim.Members(b, func(k, val []byte) bool {
		if jsonskim.Folded(k, names...) || jsonskim.Folded(k, sc.names...) {
			return false
		}
		for i, n := range names {
			if len(k) == len(n)+2 && string(k[1:len(k)-1]) == n {
				if spans[i] != nil {
					return false // a duplicate: left to encoding/json
				}
				spans[i] = val
				return true
			}
		}
		if i := slices.Index(sc.names, string(k[1:len(k)-1])); i >= 0 {
			return setScalar(sc.ptrs[i], val) // a duplicate: the last wins, as in encoding/json
		}
		if named && !slices.Contains(fields, string(k[1:len(k)-1])) && !jsonskim.Folded(k, fields...) {
			return true // no field of v's: encoding/json would skip it
		}
		if len(small) > 1 {
			small = append(small, ',')
		}
		small = append(append(append(small, k...), ':'), val...)
		return true
	})
	if !ok || len(small) > 1 && json.Unmarshal(append(small, '}'), v) != nil {
		return false
	}
	for i, s := range spans {
		if s != nil {
			*raws[i] = s
		}
	}
	return true
}

// scalars are the fields a skim decodes itself: the member names[i] into
// ptrs[i] (a *string, *bool or **string).
type scalars struct {
	names []string
	ptrs  []any
}

// setScalar decodes val into field f (a *string, *bool or **string) as
// encoding/json does; false when val is not of f's type (nor null).
func setScalar(f any, val []byte) bool {
	if string(val) == "null" {
		if p, ok := f.(**string); ok {
			*p = nil
		}
		return true
	}
	switch p := f.(type) {
	case *bool:
		switch string(val) {
		case "true", "false":
			*p = string(val) == "true"
			return true
		}
	case *string:
		s, ok := jsonskim.Text(val)
		*p = s
		return ok
	case **string:
		s, ok := jsonskim.Text(val)
		*p = &s
		return ok
	}
	return false
}

// lineScalars are l's string and bool fields, by their names.
func lineScalars(l *ccLine) scalars {
	return scalars{lineScalarNames, []any{
		&l.Type, &l.Subtype, &l.UUID, &l.ParentUUID,
		&l.IsSidechain, &l.IsMeta, &l.IsCompactSummary,
		&l.IsAPIErrorMessage, &l.AgentID, &l.SessionID,
		&l.Timestamp, &l.CWD, &l.Version, &l.RequestRef,
		&l.Summary, &l.AITitle, &l.CustomTitle,
		&l.ID, &l.Base, &l.Hash,
	}}
}

var lineScalarNames = []string{
	"type", "subtype", "uuid", "parentUuid",
	"isSidechain", "isMeta", "isCompactSummary",
	"isApiErrorMessage", "agentId", "sessionId",
	"timestamp", "cwd", "version", "requestRef",
	"summary", "aiTitle", "customTitle",
	"id", "base", "hash",
}

// decodeLine decodes transcript line raw into l as json.Unmarshal does,
// its message, toolUseResult, attachment and content skimmed.
func decodeLine(raw []byte, l *ccLine) error {
	if jsonskim.Valid(raw) && decodeSkimmed(raw, l, []string{"message", "toolUseResult", "attachment", "content"},
		[]*json.RawMessage{&l.Message, &l.ToolUseResult, &l.Attachment, &l.Content}, lineScalars(l)) {
		return nil
	}
	*l = ccLine{}
	return json.Unmarshal(raw, l)
}

// agentIDOf is the agentId of a toolUseResult (a span of a checked line)
// as encoding/json decodes it into a struct of that one field, "" when it
// does not: skimmed where the skim can vouch for it, not decoded whole (a
// result's toolUseResult repeats its output). FuzzSkim checks it.
func agentIDOf(tur []byte) string {
	if v, ok := jsonskim.Named(tur, "agentId"); ok && (v[0] == nil || v[0][0] == '"' || string(v[0]) == "null") {
		id, _ := jsonskim.Text(v[0])
		return id
	}
	var d struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(tur, &d) != nil {
		return ""
	}
	return d.AgentID
}
