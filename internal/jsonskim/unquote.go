package jsonskim

import (
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// UnquoteSimple decodes a string body whose escapes are all one of
// \" \\ \/ \b \f \n \r \t, in valid UTF-8 without control characters,
// as encoding/json does (the escapes of almost every tool output: its
// newlines and tabs); ok false for anything else (\u escapes, invalid
// bytes, a raw control character, a malformed escape), left to
// encoding/json. FuzzString here and opencode's FuzzUnquotePieces check it
// against encoding/json.
func UnquoteSimple(s string) (string, bool) {
	b, ok := AppendUnquoted(make([]byte, 0, len(s)), s)
	if !ok {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true // b is not written after
}

// AppendUnquoted is UnquoteSimple appending to b.
func AppendUnquoted(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return b, false
	}
	for i := 0; i < len(s); i++ {
		n := PlainRun(s, i)
		b = append(b, s[i:i+n]...)
		if i += n; i == len(s) {
			break
		}
		if s[i] != '\\' { // '"' or a control character
			return b, false
		}
		if i++; i == len(s) {
			return b, false
		}
		switch s[i] {
		case '"', '\\', '/':
			b = append(b, s[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		default:
			return b, false
		}
	}
	return b, true
}

// String decodes raw, the JSON text of one string (quotes included, no
// space around), as encoding/json does when its escapes are UnquoteSimple's;
// ok false otherwise, left to encoding/json. raw is not checked beyond
// that: it is for text encoding/json validated.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || StringEnd(raw, 0) != len(raw) {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	return UnquoteSimple(unsafe.String(unsafe.SliceData(body), len(body))) // read, not kept
}

// Text is raw, a JSON value, decoded when it is a string: by String
// where it can, else by encoding/json; ok false for any other value (or
// a string encoding/json refuses).
func Text(raw []byte) (string, bool) {
	if s, ok := String(raw); ok {
		return s, true
	}
	var s string
	if i := space(raw, 0); i == len(raw) || raw[i] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// StringValues decodes vals[i] into dsts[i], each a string member's value
// as Named gives it (nil: absent) as encoding/json decodes it; false when
// one is neither a string nor null (dsts before it are set).
func StringValues(vals [][]byte, dsts ...*string) bool {
	for i, dst := range dsts {
		switch v := vals[i]; {
		case v == nil || string(v) == "null":
		default:
			s, ok := Text(v)
			if !ok {
				return false
			}
			*dst = s
		}
	}
	return true
}
