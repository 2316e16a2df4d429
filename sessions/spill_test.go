//go:build unix

package sessions_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
	_ "correx/sessions/all"
)

// agentHomes points every agent's default data dir into a temp home, so
// that what the machine holds plays no part.
func agentHomes(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("GEMINI_CLI_HOME", "")
	return home
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestSpillConfinement: a transcript can name any path as its spill. Only
// files in the agent's spill folder, symlinks resolved, are read without
// asking; another file is found but not read, and Open refuses it unless
// asked to; a relative path is the store's, never the working
// directory's; a FIFO never blocks; an unreadable spill is not "gone".
func TestSpillConfinement(t *testing.T) {
	home := agentHomes(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	secret := writeFile(t, filepath.Join(tmp, "secret"), "s1\ns2\n")
	inside := writeFile(t, filepath.Join(data, "tool-output", "tool_a"), "a\nb\nc\n")
	link := filepath.Join(data, "tool-output", "tool_link")
	require.NoError(t, os.Symlink(secret, link))
	fifo := filepath.Join(data, "tool-output", "tool_fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	denied := writeFile(t, filepath.Join(data, "tool-output", "tool_denied"), "d\n")
	sessions.DenyOpen(t, "tool_denied")
	machine := writeFile(t, filepath.Join(home, ".local", "share", "opencode", "tool-output", "tool_m"), "m\n")
	writeFile(t, filepath.Join(data, "..", "cwd", "rel.txt"), "in the working directory\n")
	t.Chdir(filepath.Join(tmp, "cwd"))

	oc := sessions.Spills{DataDir: data, Agent: model.AgentOpencode}
	claude := sessions.Spills{DataDir: filepath.Join(tmp, "claude"), Agent: model.AgentClaudeCode}
	claudeIn := writeFile(t, filepath.Join(tmp, "claude", "projects", "-p", "s1", "tool-results", "x.txt"), "x\n")
	claudeOut := writeFile(t, filepath.Join(tmp, "claude", "projects", "-p", "s1.jsonl"), "{}\n")
	gemini := sessions.Spills{DataDir: filepath.Join(tmp, "gemini", "tmp", "p"), Agent: model.AgentGeminiCLI}
	geminiIn := writeFile(t, filepath.Join(tmp, "gemini", "tmp", "p", "tool-outputs", "session-1", "y.txt"), "y\n")
	geminiOut := writeFile(t, filepath.Join(tmp, "gemini", "tmp", "p", "chats", "session-1.jsonl"), "{}\n")
	codex := sessions.Spills{DataDir: filepath.Join(tmp, "codex"), Agent: model.AgentCodex}
	codexAny := writeFile(t, filepath.Join(tmp, "codex", "tool-output", "z"), "z\n")

	cases := []struct {
		name       string
		spills     sessions.Spills
		recorded   string
		found      string // "" when gone
		lines      int    // -1 when not read
		openErr    string // what Open says, "" when it opens
		outsideErr bool
	}{
		{"opencode spill", oc, inside, inside, 3, "", false},
		{"moved beside the store", oc, "/elsewhere/tool-output/tool_a", inside, 3, "", false},
		{"the machine's opencode data dir", oc, machine, machine, 1, "", false},
		{"outside", oc, secret, secret, -1, "outside opencode's spill folder: " + secret, true},
		{"a link out of the folder", oc, link, link, -1, "outside opencode's spill folder: " + link, true},
		{"relative, against the store", oc, "../secret", filepath.Join(data, "../secret"), -1, "outside opencode's spill folder: " + filepath.Join(data, "../secret"), true},
		{"relative, never the working directory", oc, "rel.txt", "", 0, "", false},
		{"a FIFO", oc, fifo, fifo, -1, "not a regular file: " + fifo + " (a named pipe)", false},
		{"unreadable", oc, denied, denied, -1, "permission denied: " + denied, false},
		{"Claude Code tool-results", claude, claudeIn, claudeIn, 1, "", false},
		{"Claude Code, not in tool-results", claude, claudeOut, claudeOut, -1, "outside Claude Code's spill folder: " + claudeOut, true},
		{"Gemini CLI tool-outputs", gemini, geminiIn, geminiIn, 1, "", false},
		{"Gemini CLI, not in tool-outputs", gemini, geminiOut, geminiOut, -1, "outside Gemini CLI's spill folder: " + geminiOut, true},
		{"Codex keeps no spill", codex, codexAny, codexAny, -1, "outside Codex's spill folder: " + codexAny, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, lines, _, ok := c.spills.FindSpill(c.recorded)
			require.Equal(t, c.found, path)
			require.Equal(t, c.found != "", ok)
			if !ok {
				return
			}
			require.Equal(t, c.lines, lines)
			f, _, err := c.spills.Open(path)
			if c.openErr == "" {
				require.NoError(t, err)
				f.Close()
				return
			}
			require.EqualError(t, err, c.openErr)
			var outside *sessions.OutsideSpillError
			require.Equal(t, c.outsideErr, errors.As(err, &outside))
			if !c.outsideErr {
				return
			}
			// asked: read and measured
			allow := c.spills
			allow.AllowOutside = true
			_, lines, _, _ = allow.FindSpill(c.recorded)
			require.Positive(t, lines)
			f, _, err = allow.Open(path)
			require.NoError(t, err)
			f.Close()
		})
	}
}
