package jsonskim_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"correx/formatters"
	"correx/internal/jsonskim"
)

// FuzzCanonical: the body Stringify writes for any valid string is canonical,
// and a canonical body is the body Stringify writes for what it decodes
// to, so that it can be copied as it lies.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\t\"q\"\\", "\x00\x1f\x7f", "é中😀", "\u2028", `\u001f`, `\u000a`, `\u001F`, `\/`, "\xff", `\ud83d\ude00`, `\`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := formatters.Stringify(s)
		if err != nil {
			t.Fatal(err)
		}
		// (a string decoded from JSON is valid UTF-8: Stringify writes
		// \ufffd for an invalid byte of a Go string)
		if body := string(enc[1 : len(enc)-1]); utf8.ValidString(s) && !jsonskim.Canonical(body) {
			t.Fatalf("Stringify's body %q is not canonical", body)
		}
		if !jsonskim.Canonical(s) {
			return
		}
		var dec string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &dec); err != nil {
			t.Fatalf("canonical %q does not decode: %v", s, err)
		}
		if again, _ := formatters.Stringify(dec); string(again[1:len(again)-1]) != s {
			t.Fatalf("canonical %q decodes to what Stringify writes as %q", s, again)
		}
	})
}
