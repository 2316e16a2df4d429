package jsonskim

import "unsafe"

// Valid reports whether b is one JSON value, as encoding/json's Valid
// does, a string's plain bytes skipped a word at a time (PlainRun): a
// transcript line is mostly the strings of a tool's output, and
// encoding/json looks at each of their bytes on its own. FuzzValid checks
// it against encoding/json.
func Valid(b []byte) bool {
	s := unsafe.String(unsafe.SliceData(b), len(b)) // read, not kept
	i, ok := validValue(s, space(s, 0), 0)
	return ok && space(s, i) == len(s)
}

// maxNesting is encoding/json's limit of nested arrays and objects.
const maxNesting = 10000

// validValue is the end of the value at s[i:]; ok false when there is
// none. depth is how many arrays and objects it is in.
func validValue(s string, i, depth int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch c := s[i]; {
	case c == '{' || c == '[':
		if depth >= maxNesting {
			return i, false
		}
		return validContainer(s, i, depth+1)
	case c == '"':
		return validString(s, i)
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(s, i)
	case c == 't':
		return literal(s, i, "true")
	case c == 'f':
		return literal(s, i, "false")
	case c == 'n':
		return literal(s, i, "null")
	}
	return i, false
}

func literal(s string, i int, lit string) (int, bool) {
	if len(s)-i >= len(lit) && s[i:i+len(lit)] == lit {
		return i + len(lit), true
	}
	return i, false
}

// validContainer is the end of the object or array at s[i].
func validContainer(s string, i, depth int) (int, bool) {
	obj := s[i] == '{'
	end := byte(']')
	if obj {
		end = '}'
	}
	i = space(s, i+1)
	if i < len(s) && s[i] == end {
		return i + 1, true
	}
	for {
		var ok bool
		if obj {
			if i >= len(s) || s[i] != '"' {
				return i, false
			}
			if i, ok = validString(s, i); !ok {
				return i, false
			}
			if i = space(s, i); i >= len(s) || s[i] != ':' {
				return i, false
			}
			i = space(s, i+1)
		}
		if i, ok = validValue(s, i, depth); !ok {
			return i, false
		}
		if i = space(s, i); i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = space(s, i+1)
		case end:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// validString is the end of the string at s[i], its quote.
func validString(s string, i int) (int, bool) {
	for i++; ; {
		i += PlainRun(s, i)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// validNumber is the end of the number at s[i].
func validNumber(s string, i int) (int, bool) {
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i+1)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// ValidValueEnd is the index after the JSON value that starts at b[i],
// checked as encoding/json checks one; ok false when it is not one.
func ValidValueEnd(b []byte, i int) (int, bool) {
	return validValue(unsafe.String(unsafe.SliceData(b), len(b)), i, 0)
}

// ValidStringEnd is the index after the closing quote of the JSON string
// that starts at b[i] (a quote), checked as encoding/json checks one (its
// escapes, no control characters; a string's plain bytes a word at a
// time); ok false when it is not one.
func ValidStringEnd(b []byte, i int) (int, bool) {
	return validString(unsafe.String(unsafe.SliceData(b), len(b)), i)
}
