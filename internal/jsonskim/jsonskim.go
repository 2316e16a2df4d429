// Package jsonskim finds the parts of a JSON text without decoding it (and
// decodes the strings whose escapes are the common ones, word at a time): the
// members of an object and the elements of an array, as byte spans, with
// strings skipped by bytes.IndexByte. It does not validate what it skips:
// it is for text that encoding/json checks later, or that Valid (encoding/
// json's Valid, faster) checked before, and a caller falls back to
// encoding/json wherever it says no.
package jsonskim

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is how deep a skim goes (encoding/json's limit).
const maxDepth = 10000

// Members calls f with each member of the object b (surrounding space
// allowed): its key as written, quotes included, and its value's span;
// f returns false to stop. It reports whether b is one whole object as far
// as the skim sees and f did not stop.
func Members(b []byte, f func(key, val []byte) bool) bool {
	i := space(b, 0)
	end, ok := members(b, i, 0, f)
	return ok && space(b, end) == len(b)
}

// Elements calls f with each element's span of the array b (surrounding
// space allowed); as Members.
func Elements(b []byte, f func(val []byte) bool) bool {
	i := space(b, 0)
	end, ok := elements(b, i, 0, f)
	return ok && space(b, end) == len(b)
}

// Strings calls f with each string value within the JSON value b (not
// the member names), quotes included, in order; it reports whether b is
// one whole value as far as the skim sees.
func Strings(b []byte, f func(str []byte)) bool {
	i := space(b, 0)
	switch {
	case i == len(b):
		return false
	case b[i] == '"':
		end := StringEnd(b, i)
		if end < 0 || space(b, end) != len(b) {
			return false
		}
		f(b[i:end])
		return true
	case b[i] == '{':
		return Members(b, func(_, v []byte) bool { return Strings(v, f) })
	case b[i] == '[':
		return Elements(b, func(v []byte) bool { return Strings(v, f) })
	}
	return true
}

// StringEnd is the index after the closing quote of the JSON string that
// starts at b[i]; -1 when it does not end.
func StringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0 // backslashes before the quote
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func members(b []byte, i, depth int, f func(key, val []byte) bool) (int, bool) {
	if i >= len(b) || b[i] != '{' || depth > maxDepth {
		return 0, false
	}
	if i = space(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		ke := StringEnd(b, i)
		if ke < 0 {
			return 0, false
		}
		k := b[i:ke]
		if i = space(b, ke); i >= len(b) || b[i] != ':' {
			return 0, false
		}
		vs := space(b, i+1)
		ve, ok := value(b, vs, depth+1)
		if !ok || f != nil && !f(k, b[vs:ve]) {
			return 0, false
		}
		if i = space(b, ve); i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = space(b, i+1)
		default:
			return 0, false
		}
	}
}

func elements(b []byte, i, depth int, f func(val []byte) bool) (int, bool) {
	if i >= len(b) || b[i] != '[' || depth > maxDepth {
		return 0, false
	}
	if i = space(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		ve, ok := value(b, i, depth+1)
		if !ok || f != nil && !f(b[i:ve]) {
			return 0, false
		}
		if i = space(b, ve); i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = space(b, i+1)
		default:
			return 0, false
		}
	}
}

// value is the end of the value at b[i].
func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		e := StringEnd(b, i)
		return e, e >= 0
	case '{':
		return members(b, i, depth, nil)
	case '[':
		return elements(b, i, depth, nil)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}

func space[T string | []byte](b T, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// Member is object b's member name as Named gives it, nil when b is no
// object, has none, or Named says no.
func Member(b []byte, name string) []byte {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	vals, ok := Named(b, name)
	if !ok {
		return nil
	}
	return vals[0]
}

// Named is the values of object b's members named names, in their order
// (nil for one absent); ok false when b is not an object as far as the
// skim sees, or a member is named twice or by a key that Folded says
// encoding/json may also take for it.
func Named(b []byte, names ...string) (vals [][]byte, ok bool) {
	vals = make([][]byte, len(names))
	ok = Members(b, func(k, v []byte) bool {
		if Folded(k, names...) {
			return false
		}
		for i, n := range names {
			if len(k) == len(n)+2 && string(k[1:len(k)-1]) == n {
				if vals[i] != nil {
					return false
				}
				vals[i] = v
			}
		}
		return true
	})
	return vals, ok
}

// Folded reports whether key k (quoted, as written) is one encoding/json
// may match to one of names though it is not exactly it (case folded,
// escaped): a skim then leaves the object to encoding/json.
func Folded(k []byte, names ...string) bool {
	if bytes.IndexByte(k, '\\') >= 0 {
		return true
	}
	s := string(k[1 : len(k)-1])
	ascii := isASCII(s)
	for _, n := range names {
		// ASCII texts fold only to ones of their length and first letter
		if ascii && isASCII(n) && (len(s) != len(n) || len(s) > 0 && s[0]|0x20 != n[0]|0x20) {
			continue
		}
		if s != n && strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Within is where inner, a span a skim gave, starts in outer, when it lies
// in it (a file's offsets of what a skim found in a line read from it).
func Within(outer, inner []byte) (int, bool) {
	if len(inner) == 0 || len(outer) == 0 {
		return 0, false
	}
	o, i := uintptr(unsafe.Pointer(unsafe.SliceData(outer))), uintptr(unsafe.Pointer(unsafe.SliceData(inner)))
	if i < o || i-o+uintptr(len(inner)) > uintptr(len(outer)) {
		return 0, false
	}
	return int(i - o), true
}
