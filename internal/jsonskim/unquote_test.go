package jsonskim

import (
	"encoding/json"
	"testing"
)

// FuzzString checks String against encoding/json: where it says ok it
// decodes what encoding/json decodes, and it says ok for every string of
// the escapes almost every tool output has.
func FuzzString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"line\nnext\ttab \"q\" \\ \/"`, `"\u00e9"`, `"é"`, `"a\"`, `"\x"`, "\"\x01\"", "\"\xff\"", `"a"b"`, `x`, ` "a" `, `1`, `null`, `["a"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := String(raw)
		var want string
		err := json.Unmarshal(raw, &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("String(%q) = %q, encoding/json: %q, %v", raw, got, want, err)
		}
		// Text is encoding/json's decoding of a string, and says no to
		// any other value
		text, tok := Text(raw)
		var v any
		isString := json.Unmarshal(raw, &v) == nil && v == want && err == nil
		if tok != isString || tok && text != want {
			t.Fatalf("Text(%q) = %q, %v; encoding/json: %q, a string %v", raw, text, tok, want, isString)
		}
	})
}

func TestStringTakesCommonEscapes(t *testing.T) {
	for s, want := range map[string]string{`""`: "", `"plain"`: "plain", `"a\nb\tc \"q\" \\ \/ é"`: "a\nb\tc \"q\" \\ / é"} {
		got, ok := String([]byte(s))
		if !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", s, got, ok, want)
		}
	}
	for _, s := range []string{`"\u00e9"`, "\"\x01\"", "\"\xff\"", `"a`, `"a"b"`, ` "a"`} {
		if _, ok := String([]byte(s)); ok {
			t.Errorf("String(%q) ok: it is encoding/json's", s)
		}
	}
}
