package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
)

// TestCommandsNeverTouchTheAgentsFolders runs every command over a copy of
// every fixture of every agent (opencode's databases in WAL mode without
// -wal and -shm, as opencode leaves them) and checks the folder after each
// one: no file created, changed or removed, no mtime moved.
func TestCommandsNeverTouchTheAgentsFolders(t *testing.T) {
	for _, f := range fixtures.All(t) {
		t.Run(f.ID(), func(t *testing.T) {
			src := fixtures.CopySource(t, f)
			before := fixtures.Snapshot(t, src)
			cmd := func(args ...string) string {
				t.Helper()
				var out, errOut bytes.Buffer
				run(append(args, "--source", src), &out, &errOut)
				assert.Equal(t, before, fixtures.Snapshot(t, src), "after correx %q", args)
				return out.String()
			}
			var list []struct {
				ID string `json:"id"`
			}
			require.NoError(t, json.Unmarshal([]byte(cmd("ls", "--json")), &list))
			require.NotEmpty(t, list)
			cmd("ls")
			for _, s := range list {
				var calls []struct {
					CallID string `json:"call_id"`
				}
				require.NoError(t, json.Unmarshal([]byte(cmd("calls", "--session", s.ID, "--json")), &calls))
				cmd("calls", "--session", s.ID)
				cmd("transcript", "--session", s.ID)
				cmd("wire", "--session", s.ID, "--provider", "anthropic")
				if len(calls) > 0 {
					for _, c := range []string{calls[0].CallID, calls[len(calls)-1].CallID} {
						cmd("show", "--session", s.ID, "--call", c)
						cmd("show", "--session", s.ID, "--call", c, "--json")
					}
				}
			}
		})
	}
}

// TestEveryCommandSaysWhatItDropped truncates one tool part row in a copy
// of a recorded store (in WAL mode without -wal/-shm: opened immutable)
// and runs every command on it: each names the row on stderr, one inert
// line a warning (and no notice of the immutable open: a WAL database
// without -wal/-shm is complete); show of the lost call and wire say that
// what they print may lack it.
func TestEveryCommandSaysWhatItDropped(t *testing.T) {
	src := fixtures.CopySource(t, fixtures.Fixture{Source: filepath.Join(fixture, "data")})
	db, err := sql.Open("sqlite", "file:"+filepath.Join(src, "opencode.db"))
	require.NoError(t, err)
	var pid, callID, session string
	require.NoError(t, db.QueryRow(`SELECT id, json_extract(data, '$.callID'), session_id FROM part
WHERE json_extract(data, '$.type') = 'tool' ORDER BY id LIMIT 1 OFFSET 3`).Scan(&pid, &callID, &session))
	_, err = db.Exec(`UPDATE part SET data = substr(data, 1, length(data) / 2) WHERE id = ?`, pid)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	for _, args := range [][]string{
		{"ls"}, {"ls", "--json"},
		{"calls", "--session", session}, {"calls", "--session", session, "--json"},
		{"show", "--session", session, "--call", callID},
		{"wire", "--session", session, "--provider", "openai-chat"},
		{"transcript", "--session", session},
	} {
		var out, errOut bytes.Buffer
		code := run(append(args, "--source", src), &out, &errOut)
		stderr := errOut.String()
		assert.Contains(t, stderr, "correx: warning: table part, row "+pid, "%q", args)
		assert.NotContains(t, stderr, "immutable", "%q", args)
		for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			assert.True(t, strings.HasPrefix(line, "correx: "), "%q: %q", args, line)
			assert.NotRegexp(t, `[\x00-\x1f\x7f]`, line, "%q: inert", args)
		}
		switch args[0] {
		case "calls", "transcript":
			assert.Zero(t, code)
			assert.NotContains(t, out.String(), callID, "%q: the lost call", args)
		case "show":
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "not found in session "+session+"; it may be among what")
		case "wire":
			assert.Zero(t, code)
			assert.Contains(t, stderr, "correx: wire: what is printed may be incomplete")
		}
	}
}

// TestLsSaysWhichCountsAreUnknown lists a copy of a store with damaged
// part pages: every session, and the damaged one's counts null in --json
// (not 0) with what was lost, "N+" in the table.
func TestLsSaysWhichCountsAreUnknown(t *testing.T) {
	src := fixtures.CopySource(t, fixtures.Fixture{Source: filepath.Join(fixture, "data")})
	require.True(t, fixtures.DamagePages(t, filepath.Join(src, "opencode.db"), "part"))
	out, stderr, code := correx(t, "ls", "--source", src, "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "unreadable")
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 2)
	damaged := 0
	for _, s := range list {
		if d, _ := s["damaged"].(string); d != "" {
			damaged++
			assert.Nil(t, s["tool_calls"])
			assert.Nil(t, s["truncated_calls"])
			assert.Nil(t, s["errors"])
		} else {
			assert.NotNil(t, s["tool_calls"])
		}
	}
	assert.Equal(t, 1, damaged)
	out, _, _ = correx(t, "ls", "--source", src)
	assert.Regexp(t, `\s\d+\+\s`, out)
}
