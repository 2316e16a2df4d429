package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// oldCanonical is the reference: a JSON value decoded whole, as Claude Code hashes it in api-request
// records: sorted keys, no spaces, non-ASCII kept, cache_control left out;
// nil when it is not JSON.
func oldCanonical(raw json.RawMessage) []byte {
	if !json.Valid(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var b bytes.Buffer
	oldCanonicalAny(&b, v)
	return b.Bytes()
}

func oldCanonicalAny(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if k != "cache_control" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			ccJSString(b, k)
			b.WriteByte(':')
			oldCanonicalAny(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			oldCanonicalAny(b, e)
		}
		b.WriteByte(']')
	case string:
		ccJSString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
}

// canonicalCases are every block of every Claude Code fixture and strings
// whose escapes are not Claude Code's.
func canonicalCases(t testing.TB) []string {
	cases := []string{`"plain"`, `"\u00e9t\u00e9"`, `"\/"`, `"\u0008\u0009\u000a\u000c\u000d"`, `"\u001f\u001F\u0000"`,
		`"\ud83d\ude00"`, `"\ud800"`, "\"\xff\xfe\"", `{"b":1,"a":[true,null,-0.5e3],"cache_control":{"x":1}}`, `{"a":"x","a":"y"}`,
		` { "k" : "v" } `, `"tab\there"`, `"\u2028"`, `[1,"\""]`, `"unfinished`, `{"a":}`, `1.0`, `"<\u003c>"`,
		`{"b":1,"a":2,"b":{"c":[]},"cache_control":1,"cache_control":2}`, `{"\u0061":1,"a":2}`, "{\"\xff\":1,\"\xfe\":2}",
		`{"content":"x"} x`, `[{"a":[{"b":"\u00e9"}]}, "", {}]`}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "claude-code", "*", "projects", "*", "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var l struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			var blocks []json.RawMessage
			if json.Unmarshal(line, &l) == nil && json.Unmarshal(l.Message.Content, &blocks) == nil {
				for _, blk := range blocks {
					cases = append(cases, string(blk))
				}
			}
		}
	}
	if len(cases) < 100 {
		t.Fatalf("only %d blocks", len(cases))
	}
	return cases
}

// TestClaudeCanonicalAsDecoded: the canonical form written from the raw
// bytes is the one of the value decoded whole, on every canonicalCases.
func TestClaudeCanonicalAsDecoded(t *testing.T) {
	for _, c := range canonicalCases(t) {
		if got, want := claudeCanonical(json.RawMessage(c)), oldCanonical(json.RawMessage(c)); !bytes.Equal(got, want) {
			t.Errorf("%.80q: %.200q, want %.200q", c, got, want)
		}
	}
}

// FuzzClaudeCanonical: the canonical form written from the raw bytes by
// the skim is the one of the value decoded whole by encoding/json.
func FuzzClaudeCanonical(f *testing.F) {
	for _, c := range canonicalCases(f) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := claudeCanonical(raw), oldCanonical(raw); !bytes.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", raw, got, want)
		}
	})
}
