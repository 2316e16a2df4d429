package sessions

// The fuzz target of the JSON Lines reader every driver shares
// (scripts/fuzz.sh runs it; the drivers' readers' targets are in
// drivers_fuzz_test.go and their packages), seeded from the recorded
// fixtures.

import (
	"bytes"
	"reflect"
	"testing"

	"correx/internal/props"
)

// FuzzReadJSONL: readJSONL gives every non-blank line, trimmed, with its
// number, as splitting the file at newlines does.
func FuzzReadJSONL(f *testing.F) {
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		for _, s := range props.JSONLSeeds(f, agent, false) {
			f.Add(s)
		}
	}
	f.Add([]byte("\n\n  \r\n{}\r\n \t{\"a\":1}  \n{\"partial\""))
	type line struct {
		n    int
		text string
		last bool
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "f.jsonl", data)
		var got, want []line
		warnf := func(n int, format string, args ...any) { t.Fatalf("line %d: "+format, append([]any{n}, args...)...) }
		if err := readJSONL(path, func(n int, l []byte, last bool) { got = append(got, line{n, string(l), last}) }, warnf); err != nil {
			t.Fatal(err)
		}
		split := bytes.Split(data, []byte("\n"))
		for i, l := range split {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, line{i + 1, string(l), i == len(split)-1})
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("lines\n%v\nwant\n%v", got, want)
		}
	})
}
