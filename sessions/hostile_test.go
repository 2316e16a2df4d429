//go:build unix

package sessions

// Hostile and broken input: what sits in a data dir is written by other
// programs, and anything can be named like a session.

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// openAndList opens path and lists it, and returns its error, or its
// warnings one a line. It fails the test, instead of hanging it, when
// that never returns (a read blocked on a FIFO, or one of /dev/zero).
func openAndList(t *testing.T, path string) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		s, err := Open(path)
		if err != nil {
			done <- err.Error()
			return
		}
		defer s.Close()
		if _, err = s.List(context.Background()); err != nil {
			done <- err.Error() // a List that fails has its warnings in the error
			return
		}
		done <- strings.Join(Warnings(s), "\n")
	}()
	select {
	case msg := <-done:
		return msg
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
		t.Fatalf("opening %s never returned", path)
		return ""
	}
}

// hostileLayouts are, per format, where a file named like a session goes:
// it returns the path to open and the file's path.
var hostileLayouts = map[string]func(dir string) (source, file string){
	"opencode export file": func(d string) (string, string) { return join(d, "ses_x.json"), join(d, "ses_x.json") },
	"opencode export dir":  func(d string) (string, string) { return d, join(d, "ses_x.json") },
	"opencode database":    func(d string) (string, string) { return join(d, "opencode.db"), join(d, "opencode.db") },
	"opencode legacy":      func(d string) (string, string) { return d, join(d, "storage", "session", "global", "ses_x.json") },
	"Claude Code dir":      func(d string) (string, string) { return d, join(d, "projects", "-p", "s.jsonl") },
	"Claude Code file":     func(d string) (string, string) { return join(d, "s.jsonl"), join(d, "s.jsonl") },
	"Codex home": func(d string) (string, string) {
		return d, join(d, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-x.jsonl")
	},
	"Codex rollout":      func(d string) (string, string) { return join(d, "rollout-x.jsonl"), join(d, "rollout-x.jsonl") },
	"Gemini CLI chat":    func(d string) (string, string) { return d, join(d, "tmp", "p", "chats", "session-x.jsonl") },
	"Gemini CLI legacy":  func(d string) (string, string) { return d, join(d, "tmp", "p", "chats", "session-x.json") },
	"Gemini CLI subchat": func(d string) (string, string) { return d, join(d, "tmp", "p", "chats", "abc", "x.jsonl") },
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
				msg := openAndList(t, source)
				require.Contains(t, msg, "not a regular file: "+file)
			})
		}
	}
}

// TestLongLineSkippedAndNamed: a line over the cap is skipped with a
// file:line warning, and the lines after it are still read.
func TestLongLineSkippedAndNamed(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 1 << 10
	p := filepath.Join(t.TempDir(), "f.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("a\n"+strings.Repeat("x", 3000)+"\nb\nc"), 0o644))
	var lines, warns []string
	err := readJSONL(p, func(n int, line []byte, last bool) {
		lines = append(lines, string(line))
		if last {
			lines = append(lines, "(last)")
		}
	}, lineWarner(&warns, p))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "(last)"}, lines)
	require.Equal(t, []string{p + ":2: skipped a line of more than 1024 bytes"}, warns)
}

// TestTooLargeFileNamed: a whole-JSON file over the file cap is not read.
func TestTooLargeFileNamed(t *testing.T) {
	defer func(n int64) { maxFileBytes = n }(maxFileBytes)
	maxFileBytes = 1 << 10
	dir := t.TempDir()
	p := filepath.Join(dir, "ses_big.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"info":{"id":"ses_big"},"messages":[]}`+strings.Repeat(" ", 2000)), 0o644))
	require.Contains(t, openAndList(t, dir), "too large: "+p+" (2039 bytes; correx reads at most 1024 bytes)")
}

// denyOpen makes opening the files named base fail with EACCES, as for a
// file without read permission (tests run as root, which reads anything).
func denyOpen(t *testing.T, base string) {
	prev := osOpen
	t.Cleanup(func() { osOpen = prev })
	osOpen = func(name string, flag int, perm fs.FileMode) (*os.File, error) {
		if filepath.Base(name) == base {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
		}
		return prev(name, flag, perm)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
}

const claudeFixtureTranscript = "../testdata/claude-code/anthropic/projects/-home-user-proj/32e57bf8-f980-492f-9700-2d786061b4d4.jsonl"

// TestUnreadableFilesAreNamed: a file correx may not read is named as
// such, never shown as an empty store or as no store at all.
func TestUnreadableFilesAreNamed(t *testing.T) {
	codex, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	gemini, _ := filepath.Glob(geminiFixture + "/tmp/proj/chats/session-*.jsonl")
	require.Len(t, codex, 1)
	require.Len(t, gemini, 1)
	cases := map[string]struct {
		src, rel string
	}{
		"Claude Code": {claudeFixtureTranscript, "projects/-p/s.jsonl"},
		"Codex":       {codex[0], "sessions/2026/11/30/" + filepath.Base(codex[0])},
		"Gemini CLI":  {gemini[0], "tmp/proj/chats/" + filepath.Base(gemini[0])},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, c.rel)
			copyFile(t, c.src, file)
			denyOpen(t, filepath.Base(file))
			require.Equal(t, "permission denied: "+file, strings.TrimPrefix(openAndList(t, dir), "open sessions: "))
		})
	}
}

// TestJunkFilesAreNamed: a file named like a session that holds none is
// named with why, beside the sessions that are read.
func TestJunkFilesAreNamed(t *testing.T) {
	t.Run("Codex", func(t *testing.T) {
		dir := t.TempDir()
		junk := filepath.Join(dir, "sessions", "2026", "01", "01", "rollout-junk.jsonl")
		copyFile(t, claudeFixtureTranscript, junk) // JSON lines, not a rollout
		require.Equal(t, "not a session file: "+junk+" (no session_meta line: not a Codex rollout)", openAndList(t, dir))
	})
	t.Run("Gemini CLI", func(t *testing.T) {
		dir := t.TempDir()
		junk := filepath.Join(dir, "tmp", "p", "chats", "session-junk.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(junk), 0o755))
		require.NoError(t, os.WriteFile(junk, []byte("\x00\x00\x00"), 0o644))
		require.Contains(t, openAndList(t, dir), "not a session file: "+junk+" (not JSON: ")
	})
	t.Run("Claude Code", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, claudeFixtureTranscript, filepath.Join(dir, "projects", "-p", "s.jsonl"))
		junk := filepath.Join(dir, "projects", "-p", "junk.jsonl")
		require.NoError(t, os.WriteFile(junk, []byte("\x00\x00\x00\n"), 0o644))
		require.Contains(t, openAndList(t, dir), "not a session file: "+junk+" (line 1: bad JSON, skipped: ")
	})
}

// TestConfigFileFIFONeverBlocks: opencode's config files are read the
// same way.
func TestConfigFileFIFONeverBlocks(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "opencode.json"), 0o644))
	done := make(chan error, 1)
	go func() { _, err := Machine{Root: root}.read("/opencode.json", maxConfigFile); done <- err }()
	select {
	case err := <-done:
		require.EqualError(t, err, "not a regular file: "+filepath.Join(root, "opencode.json")+" (a named pipe)")
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
		t.Fatal("reading a FIFO config file never returned")
	}
}
