package jsonskim

import "unicode/utf8"

// Canonical tells whether s, the body of a JSON string literal (or a
// piece of one cut between its units), is the body formatters.Stringify
// writes for the string it decodes to: JSON.stringify's, valid UTF-8 with
// only the escapes \" \\ \b \f \n \r \t, or \u00xx in lower-case hex for
// the other control characters. A store that wrote its strings that way
// can have them copied to the wire as they lie, not decoded and encoded
// again. FuzzCanonical checks it against Stringify.
func Canonical(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		i += PlainRun(s, i)
		if i >= len(s) {
			break
		}
		if s[i] != '\\' || i+1 >= len(s) {
			return false // a raw control character or quote, or a cut escape
		}
		switch s[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i++
			continue
		case 'u':
		default:
			return false
		}
		if i+5 >= len(s) || s[i+2] != '0' || s[i+3] != '0' || s[i+4] != '0' && s[i+4] != '1' || !isLowerHex(s[i+5]) {
			return false
		}
		switch c := (s[i+4]-'0')<<4 | hexVal(s[i+5]); c {
		case '\b', '\f', '\n', '\r', '\t':
			return false // written short
		}
		i += 5
	}
	return true
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}
