package render

import (
	"strings"
	"unicode/utf8"
)

// The character classes opencode's id and name rules keep; each other
// character (an invalid byte being one) is replaced. They are what the
// regexps [^a-zA-Z0-9_-] and [^a-zA-Z0-9] replace, without a regexp: the
// rewrite of every call id was a fifth of a 5,000-call lowering for a
// Claude model.
var (
	idChars    = asciiClass("-_")
	alnumChars = asciiClass("")
)

// asciiClass is the letters, digits and extra.
func asciiClass(extra string) (c [256]bool) {
	for b := range 256 {
		c[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte(extra, byte(b)) >= 0
	}
	return c
}

// replaceOutside is s with each character outside class replaced by with
// (regexp's ReplaceAllString of the class's complement); s itself when it
// has none.
func replaceOutside(s string, class *[256]bool, with string) string {
	i := 0
	for i < len(s) && class[s[i]] {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if class[s[i]] {
			b.WriteByte(s[i])
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(with)
		i += n
	}
	return b.String()
}
