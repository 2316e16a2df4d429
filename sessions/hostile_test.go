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
