package codex

// A small JSON scanner for rollout lines: it checks a line is valid JSON
// and finds its members as slices of the line, without decoding the large
// strings (outputs, aggregated_output) that the reader only keeps the
// place of. Whatever it does not vouch for is decoded by encoding/json,
// so a line reads as json.Unmarshal reads it.

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: past it the scanner leaves
// the line to encoding/json.
const maxDepth = 10000

type jsonScan struct {
	b       []byte
	depth   int
	space   bool // whitespace was found outside strings
	trusted bool // b is valid JSON: strings are skipped, not checked
}

func (s *jsonScan) skipSpace(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			s.space = true
			i++
		default:
			return i
		}
	}
	return i
}

// value is the end of the valid JSON value at i; ok false when there is
// none.
func (s *jsonScan) value(i int) (int, bool) {
	if i >= len(s.b) {
		return i, false
	}
	switch c := s.b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{' || c == '[':
		s.depth++
		defer func() { s.depth-- }()
		if s.depth > maxDepth {
			return i, false
		}
		return s.container(i, nil)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number(i)
	}
	return i, false
}

// container is the end of the object or array at i, calling member (when
// not nil, for an object) with each key (raw, without its quotes) and
// value.
func (s *jsonScan) container(i int, member func(key, val []byte)) (int, bool) {
	obj, end := s.b[i] == '{', byte(']')
	if obj {
		end = '}'
	}
	i = s.skipSpace(i + 1)
	if i < len(s.b) && s.b[i] == end {
		return i + 1, true
	}
	for {
		var key []byte
		if obj {
			k, ok := s.str(i)
			if !ok {
				return i, false
			}
			key = s.b[i+1 : k-1]
			i = s.skipSpace(k)
			if i >= len(s.b) || s.b[i] != ':' {
				return i, false
			}
			i = s.skipSpace(i + 1)
		}
		v, ok := s.value(i)
		if !ok {
			return i, false
		}
		if member != nil {
			member(key, s.b[i:v])
		}
		i = s.skipSpace(v)
		if i >= len(s.b) {
			return i, false
		}
		switch s.b[i] {
		case ',':
			i = s.skipSpace(i + 1)
		case end:
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (s *jsonScan) literal(i int, lit string) (int, bool) {
	if !bytes.HasPrefix(s.b[i:], []byte(lit)) {
		return i, false
	}
	return i + len(lit), true
}

func (s *jsonScan) number(i int) (int, bool) {
	digits := func(i int) int {
		for i < len(s.b) && s.b[i] >= '0' && s.b[i] <= '9' {
			i++
		}
		return i
	}
	if s.b[i] == '-' {
		i++
	}
	switch {
	case i < len(s.b) && s.b[i] == '0':
		i++
	case i < len(s.b) && s.b[i] >= '1' && s.b[i] <= '9':
		i = digits(i)
	default:
		return i, false
	}
	if i < len(s.b) && s.b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// str is the end of the valid string at i (after its closing quote).
func (s *jsonScan) str(i int) (int, bool) {
	if i >= len(s.b) || s.b[i] != '"' {
		return i, false
	}
	if s.trusted {
		// the first quote after i not escaped by an odd run of backslashes
		for j := i + 1; ; {
			k := bytes.IndexByte(s.b[j:], '"')
			if k < 0 {
				return len(s.b), false
			}
			q, n := j+k, 0
			for p := q - 1; p > i && s.b[p] == '\\'; p-- {
				n++
			}
			if n%2 == 0 {
				return q + 1, true
			}
			j = q + 1
		}
	}
	for i++; i < len(s.b); {
		for i < len(s.b) && !strSpecial[s.b[i]] {
			i++ // the plain bytes of a run at once
		}
		if i >= len(s.b) {
			break
		}
		switch c := s.b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(s.b) {
				return i, false
			}
			switch s.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s.b) || !isHex4(s.b[i+2:i+6]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

// strSpecial are the bytes str looks at: the end, an escape, and control
// characters, which JSON strings cannot hold.
var strSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// object calls member for each member of b, which must be one valid JSON
// object and nothing else (members seen before the scanner finds b is not
// one are to be ignored then). compact tells that b holds no whitespace
// outside its strings. With trusted, b is known to be valid JSON (a
// member of a line object checked), and its strings are not checked
// again.
func object(b []byte, trusted bool, member func(key, val []byte)) (compact, ok bool) {
	s := &jsonScan{b: b, trusted: trusted}
	i := s.skipSpace(0)
	if i >= len(b) || b[i] != '{' {
		return false, false
	}
	s.depth = 1
	end, ok := s.container(i, member)
	if !ok || s.skipSpace(end) != len(b) {
		return false, false
	}
	return !s.space, true
}

// plainKey says whether key (raw) is matched by encoding/json only to a
// field of that exact name: no escapes, ASCII, and not a case-folded
// spelling of a field of fields.
func plainKey(key []byte, fields ...string) bool {
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	for _, f := range fields {
		if string(key) != f && bytes.EqualFold(key, []byte(f)) {
			return false
		}
	}
	return true
}

// stringValue decodes raw, a valid JSON string or null (or nil: no
// member), as json.Unmarshal into a string does; ok false for another
// value.
func stringValue(raw []byte) (s string, ok bool) {
	if raw == nil || string(raw) == "null" { // absent, or null
		return "", true
	}
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	t, _ := unquote(raw)
	return t, true
}

// unquote decodes raw, a valid JSON string, as encoding/json does (an
// invalid UTF-8 byte or lone surrogate is U+FFFD). canonical tells that
// raw is exactly how formatters.Stringify writes the text, so that the
// wire can write it again from the text.
func unquote(raw []byte) (text string, canonical bool) {
	in := raw[1 : len(raw)-1]
	var out strings.Builder
	out.Grow(len(in))
	canonical = true
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			e := in[i+1]
			switch e {
			case '"', '\\':
				out.WriteByte(e)
				i += 2
			case 'n', 'r', 't', 'b', 'f':
				out.WriteByte(shortEscapes[e])
				i += 2
			case '/':
				out.WriteByte('/')
				canonical = false
				i += 2
			case 'u':
				r := hex4(in[i+2 : i+6])
				hex := in[i+2 : i+6]
				i += 6
				// Stringify writes \u00XX (lowercase) only for the control
				// characters that have no short escape
				if r >= 0x20 || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t' || hex[2] >= 'A' && hex[2] <= 'F' || hex[3] >= 'A' && hex[3] <= 'F' {
					canonical = false
				}
				if utf16.IsSurrogate(r) {
					if i+6 <= len(in) && in[i] == '\\' && in[i+1] == 'u' && isHex4(in[i+2:i+6]) {
						if d := utf16.DecodeRune(r, hex4(in[i+2:i+6])); d != utf8.RuneError {
							out.WriteRune(d)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out.WriteRune(r)
			}
		case c < utf8.RuneSelf:
			// a run of plain bytes at once
			j := i + 1
			for j < len(in) && in[j] != '\\' && in[j] < utf8.RuneSelf {
				j++
			}
			out.Write(in[i:j])
			i = j
		default:
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n == 1 {
				canonical = false // Stringify writes \ufffd
			}
			out.WriteRune(r)
			i += n
		}
	}
	return out.String(), canonical
}

var shortEscapes = [256]byte{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'f': '\f'}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
