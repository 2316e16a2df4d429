package sessions

// Fuzz targets for the readers of Claude Code records and JSON Lines (the
// Codex and Gemini CLI readers': drivers_fuzz_test.go) (scripts/fuzz.sh
// runs them): each is seeded from the recorded
// fixtures and checks the properties of props.CheckSession whatever the
// input, and, where there is one, agreement with a reference.

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"correx/internal/props"
)

// jsonlSeeds returns runs of lines of agent's JSON Lines fixtures; with
// head, each after its file's first line (Codex's session_meta, Gemini
// CLI's session record), which the reader needs.
func jsonlSeeds(f *testing.F, agent string, head bool) [][]byte {
	var out [][]byte
	for _, file := range props.Files(f, agent, func(p string) bool { return strings.HasSuffix(p, ".jsonl") }) {
		data := props.Read(f, file)
		first := []byte{}
		if i := bytes.IndexByte(data, '\n'); head && i >= 0 {
			first, data = data[:i+1], data[i+1:]
		}
		for _, w := range props.Windows(data, 4, props.SeedMax) {
			out = append(out, append(append([]byte{}, first...), w...))
		}
	}
	return out
}

// FuzzClaudeTranscript: a Claude Code transcript.
func FuzzClaudeTranscript(f *testing.F) {
	for _, s := range jsonlSeeds(f, "claude-code", false) {
		f.Add(s)
	}
	dir := f.TempDir() // one per process: the fuzzer's workers call the target in turn
	f.Fuzz(func(t *testing.T, data []byte) {
		path := props.FuzzFile(t, dir, "projects/-home-user-proj/32e57bf8-f980-492f-9700-2d786061b4d4.jsonl", data)
		ss, err := readClaudeTranscript(path, filepath.Join(dir, "projects"))
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) > len(data)+1 {
			t.Fatalf("%d sessions from %d bytes", len(ss), len(data))
		}
		for _, s := range ss {
			props.CheckSession(t, s, len(data))
		}
	})
}

// FuzzReadJSONL: readJSONL gives every non-blank line, trimmed, with its
// number, as splitting the file at newlines does.
func FuzzReadJSONL(f *testing.F) {
	for _, agent := range []string{"claude-code", "codex", "gemini-cli"} {
		for _, s := range jsonlSeeds(f, agent, false) {
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
