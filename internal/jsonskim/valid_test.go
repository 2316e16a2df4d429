package jsonskim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid checks Valid against encoding/json's.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` {"a": [1, -0.5e+3, true, false, null, "x\ny\u00e9\"\\\/"]} `, `{"a":}`, `[1,]`, `01`, `1.`, `-`, `1e`, "\"\x01\"", "\"\xff\"", `"\x"`, `"\u12"`, `tru`, `{"a" 1}`, `[1 2]`, `{"a":1,}`, `""`, ``, ` `, `nul`, `"abc`, `{"a":"b"}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json: %v", b, got, want)
		}
		// ValidValueEnd: the value at the first byte, checked as a whole
		v := bytes.TrimLeft(b, " \t\r\n")
		if end, ok := ValidValueEnd(v, 0); ok && !json.Valid(v[:end]) ||
			json.Valid(b) && (!ok || len(bytes.TrimSpace(v[end:])) > 0) {
			t.Fatalf("ValidValueEnd(%q) = %d, %v", v, end, ok)
		}
	})
}

// TestValidNesting: as deep as encoding/json takes, and no deeper.
func TestValidNesting(t *testing.T) {
	for _, n := range []int{maxNesting - 1, maxNesting, maxNesting + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closer := map[string]string{"[": "]", `{"a":`: "}"}[open]
			b := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(closer, n))
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("%d deep %s: Valid %v, encoding/json %v", n, open, got, want)
			}
		}
	}
}

// BenchmarkValid: a transcript line that is mostly a tool's output,
// by Valid and by encoding/json.
func BenchmarkValid(b *testing.B) {
	out := strings.Repeat(`func main() {\n\tfmt.Println(\"héllo\")\n}\n`, 20000)
	line := []byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + out + `"}]},"toolUseResult":{"stdout":"` + out + `","stderr":"","interrupted":false}}`)
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"skim", Valid}, {"encoding-json", json.Valid}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if !c.valid(line) {
					b.Fatal("not valid")
				}
			}
		})
	}
}
