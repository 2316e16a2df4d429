package claudecode

import (
	"path/filepath"
	"testing"

	"correx/internal/props"
)

// FuzzClaudeTranscript: a Claude Code transcript (scripts/fuzz.sh).
func FuzzClaudeTranscript(f *testing.F) {
	for _, s := range props.JSONLSeeds(f, "claude-code", false) {
		f.Add(s)
	}
	dir := f.TempDir()
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
