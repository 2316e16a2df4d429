package main

import (
	"bytes"
	"encoding/json"
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
