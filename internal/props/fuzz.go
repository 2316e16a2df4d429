package props

// What every reader's fuzz target checks.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"correx/formatters"
	"correx/model"
)

// SeedMax is the largest seed cut from a fixture: big enough for a call
// and its result, small enough for the fuzzer to mutate quickly.
const SeedMax = 32 << 10

// CheckSession checks what a reader gave for n bytes of input: a result
// bounded by the input, tool calls whose input and metadata are JSON and
// whose model-visible result is consistent (CheckVisible).
func CheckSession(t testing.TB, s *model.Session, n int) {
	t.Helper()
	if len(s.Messages) > n+1 {
		t.Fatalf("%d messages from %d bytes", len(s.Messages), n)
	}
	stored := 0
	for _, m := range s.Messages {
		for _, p := range m.Parts {
			stored += len(p.Text)
			c := p.Tool
			if c == nil {
				continue
			}
			stored += len(c.Output) + len(c.Error)
			for _, raw := range []json.RawMessage{c.Input, c.Metadata, c.Structured} {
				if len(raw) > 0 && !json.Valid(raw) {
					t.Fatalf("call %s: stored JSON %q is not JSON", c.CallID, raw)
				}
			}
			CheckVisible(t, c, formatters.Visible(c, nil))
		}
	}
	if stored > 4*n+1024 {
		t.Fatalf("%d bytes of text from %d bytes of input", stored, n)
	}
}

// CheckRead checks what a reader gave for the n bytes of the file at path:
// an error that names the file, or a session with CheckSession's
// properties.
func CheckRead(t testing.TB, path string, n int, s *model.Session, err error) {
	t.Helper()
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	CheckSession(t, s, n)
}

// FuzzFile writes data to the file name under dir and returns its path.
func FuzzFile(t testing.TB, dir, name string, data []byte) string {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// JSONLSeeds returns runs of lines of agent's JSON Lines fixtures; with
// head, each after its file's first line (Codex's session_meta, Gemini
// CLI's session record), which the reader needs.
func JSONLSeeds(f testing.TB, agent string, head bool) [][]byte {
	var out [][]byte
	for _, file := range Files(f, agent, func(p string) bool { return strings.HasSuffix(p, ".jsonl") }) {
		data := Read(f, file)
		first := []byte{}
		if i := bytes.IndexByte(data, '\n'); head && i >= 0 {
			first, data = data[:i+1], data[i+1:]
		}
		for _, w := range Windows(data, 4, SeedMax) {
			out = append(out, append(append([]byte{}, first...), w...))
		}
	}
	return out
}
