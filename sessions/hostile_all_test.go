//go:build unix

package sessions_test

// Hostile and broken input in every agent's format, with every driver
// registered (hostile_test.go has the internal cases).

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// hostileLayouts are, per format, where a file named like a session goes:
// it returns the path to open and the file's path.
var hostileLayouts = map[string]func(dir string) (source, file string){
	"opencode export file": func(d string) (string, string) { return filepath.Join(d, "ses_x.json"), filepath.Join(d, "ses_x.json") },
	"opencode export dir":  func(d string) (string, string) { return d, filepath.Join(d, "ses_x.json") },
	"opencode database": func(d string) (string, string) {
		return filepath.Join(d, "opencode.db"), filepath.Join(d, "opencode.db")
	},
	"opencode legacy": func(d string) (string, string) {
		return d, filepath.Join(d, "storage", "session", "global", "ses_x.json")
	},
	"Claude Code dir":  func(d string) (string, string) { return d, filepath.Join(d, "projects", "-p", "s.jsonl") },
	"Claude Code file": func(d string) (string, string) { return filepath.Join(d, "s.jsonl"), filepath.Join(d, "s.jsonl") },
	"Codex home": func(d string) (string, string) {
		return d, filepath.Join(d, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-x.jsonl")
	},
	"Codex rollout": func(d string) (string, string) {
		return filepath.Join(d, "rollout-x.jsonl"), filepath.Join(d, "rollout-x.jsonl")
	},
	"Gemini CLI chat":    func(d string) (string, string) { return d, filepath.Join(d, "tmp", "p", "chats", "session-x.jsonl") },
	"Gemini CLI legacy":  func(d string) (string, string) { return d, filepath.Join(d, "tmp", "p", "chats", "session-x.json") },
	"Gemini CLI subchat": func(d string) (string, string) { return d, filepath.Join(d, "tmp", "p", "chats", "abc", "x.jsonl") },
}

// TestNoFormatOpensAFIFOOrDevice puts a FIFO and a link to /dev/zero
// where each format's session files go: correx names the file and goes
// on, never blocking on the FIFO or reading /dev/zero without end.
func TestNoFormatOpensAFIFOOrDevice(t *testing.T) {
	makers := map[string]func(string) error{
		"FIFO":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"devzero": func(p string) error { return os.Symlink("/dev/zero", p) },
	}
	for format, layout := range hostileLayouts {
		for kind, mk := range makers {
			t.Run(format+"/"+kind, func(t *testing.T) {
				source, file := layout(t.TempDir())
				require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
				require.NoError(t, mk(file))
				msg := sessions.OpenAndList(t, source)
				require.Contains(t, msg, "not a regular file: "+file)
			})
		}
	}
}

// TestTooLargeFileNamed: a whole-JSON file over the file cap is not read.
func TestTooLargeFileNamed(t *testing.T) {
	sessions.LowerMaxFileBytes(t, 1<<10)
	dir := t.TempDir()
	p := filepath.Join(dir, "ses_big.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"info":{"id":"ses_big"},"messages":[]}`+strings.Repeat(" ", 2000)), 0o644))
	require.Contains(t, sessions.OpenAndList(t, dir), "too large: "+p+" (2039 bytes; correx reads at most 1024 bytes)")
}
