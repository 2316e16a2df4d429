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
	"strings"
	"unicode/utf8"

	"correx/internal/jsonskim"
)

// odd reports whether key k (quoted, as written) is one encoding/json may
// match to one of names though it is not exactly it (case folded,
// escaped): the skim then leaves the object to encoding/json.
func odd(k []byte, names ...string) bool {
	if bytes.IndexByte(k, '\\') >= 0 {
		return true
	}
	s := string(k[1 : len(k)-1])
	for _, n := range names {
		if s != n && strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

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
	ok = jsonskim.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case `"message"`:
			if msg != nil || v[0] != '{' {
				return false
			}
			msg = v
		case `"toolUseResult"`:
			if toolUseResult != nil || string(v) == "null" {
				return false
			}
			toolUseResult = v
		default:
			return !odd(k, "message", "toolUseResult")
		}
		return true
	})
	if !ok || msg == nil {
		return nil, nil, nil, false
	}
	ok = jsonskim.Members(msg, func(k, v []byte) bool {
		switch {
		case string(k) == `"content"`:
			if content != nil {
				return false
			}
			content = v
		case odd(k, "content"):
			return false
		}
		return true
	})
	return msg, content, toolUseResult, ok
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
	var role, content []byte
	if !jsonskim.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case `"role"`:
			if role != nil {
				return false
			}
			role = v
		case `"content"`:
			if content != nil {
				return false
			}
			content = v
		default:
			return !odd(k, "role", "content")
		}
		return true
	}) {
		return "", false, false
	}
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
	var content []byte
	if !jsonskim.Members(raw, func(k, v []byte) bool {
		switch {
		case string(k) == `"content"`:
			if content != nil {
				return false
			}
			content = v
		case odd(k, "content"):
			return false
		}
		return true
	}) {
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
			if odd(k, "type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "tool_name", "content", "is_error", "source") {
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
