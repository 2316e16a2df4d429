package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// TestGeneratedSessionsLoad keeps testdata/gen (the benchmark generator,
// outside ./...) from rotting: a small session of every agent it writes
// loads with every call and its result, without a warning, with at least
// one truncated call whose spill file (when the agent keeps one) is found;
// Claude Code's steps have their logged requests, not rebuilt ones; the
// same flags write the same bytes; and -huge makes the last call's full
// output that big (or truncated from an unknown size, as Codex says).
func TestGeneratedSessionsLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	dir := t.TempDir()
	gen := buildGen(t)
	const calls = 40
	for _, agent := range []string{"opencode", "claude-code", "codex", "gemini-cli", "copilot", "qwen-code"} {
		t.Run(agent, func(t *testing.T) {
			out := filepath.Join(dir, agent)
			args := []string{"-agent", agent, "-calls", fmt.Sprint(calls), "-mb", "2"}
			id := gen(t, out, args...)
			st, err := sessions.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sess, err := st.Load(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if len(sess.Warnings) > 0 {
				t.Errorf("warnings: %q", sess.Warnings)
			}
			refs := sess.ToolCalls()
			if len(refs) != calls {
				t.Errorf("%d calls, want %d", len(refs), calls)
			}
			spills := sessions.SpillsFor(sess.Info)
			truncated := 0
			for _, ref := range refs {
				c := ref.Call
				if c.Status == model.StatusRunning || (c.Sent == nil && c.Output == "" && c.Error == "") {
					t.Errorf("call %s (%s): no result (status %s)", c.CallID, c.Tool, c.Status)
					continue
				}
				text := c.Output
				if c.Sent != nil {
					text = formatters.ResultText(*c.Sent)
				}
				tr := formatters.Detect(c.Tool, text, c.Metadata, spills)
				if tr == nil {
					continue
				}
				truncated++
				if tr.SpillPath != "" && agent != "copilot" { // Copilot deletes its spills
					if _, _, _, ok := spills.FindSpill(tr.SpillPath); !ok {
						t.Errorf("call %s: spill %s not found", c.CallID, tr.SpillPath)
					}
				}
			}
			if truncated == 0 {
				t.Error("no truncated call")
			}
			if agent == "claude-code" {
				for _, i := range sess.AssistantSteps() {
					if r := sess.Messages[i].Request; r == nil || r.Rebuilt != "" {
						t.Errorf("step at message %d: not the logged request: %s", i, rebuilt(r))
					}
				}
			}
			again := filepath.Join(dir, agent+"-again")
			gen(t, again, args...)
			if a, b := treeHash(t, out), treeHash(t, again); a != b {
				t.Error("the same flags wrote different bytes")
			}
			hugeLast(t, gen, filepath.Join(dir, agent+"-huge"), agent)
		})
	}
	t.Run("opencode sessions", func(t *testing.T) {
		out := filepath.Join(dir, "many")
		gen(t, out, "-sessions", "30", "-calls", "3", "-mb", "0.01")
		st, err := sessions.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		infos, err := st.List(context.Background())
		if err != nil || len(infos) != 30 {
			t.Fatalf("%d sessions, %v; want 30", len(infos), err)
		}
	})
}

// hugeLast checks that -huge 1 makes the last call's full output 1 MiB.
func hugeLast(t *testing.T, gen func(*testing.T, string, ...string) string, out, agent string) {
	id := gen(t, out, "-agent", agent, "-calls", "10", "-mb", "0.1", "-huge", "1")
	st, err := sessions.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	refs := sess.ToolCalls()
	c := refs[len(refs)-1].Call
	text := c.Output
	if c.Sent != nil {
		text = formatters.ResultText(*c.Sent)
	}
	full := len(text)
	tr := formatters.Detect(c.Tool, text, c.Metadata, sessions.SpillsFor(sess.Info))
	if tr != nil && tr.FullBytes != nil {
		full = max(full, *tr.FullBytes)
	}
	if full < 1<<20 && (tr == nil || tr.FullBytes != nil) {
		t.Errorf("-huge 1: the last call (%s) has %d bytes, truncation %+v", c.Tool, full, tr)
	}
}

// treeHash hashes the paths and contents of the files under dir.
func treeHash(t *testing.T, dir string) string {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %d\n", rel, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// buildGen builds testdata/gen; the func it returns writes a session into
// out and returns its id.
func buildGen(t *testing.T) func(t *testing.T, out string, args ...string) string {
	bin := filepath.Join(t.TempDir(), "gen")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/gen").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return func(t *testing.T, out string, args ...string) string {
		cmd := exec.Command(bin, append([]string{"-out", out, "-quiet"}, args...)...)
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("gen %v: %v", args, err)
		}
		return strings.TrimSpace(string(b))
	}
}

// TestRebuiltNoteAcrossPages: `calls` and `show` read a session a page of
// messages at a time; a call's request_rebuilt is its next step's, which
// may lie on a later page than the call (or on the first page, of a step
// the page does not number that way).
func TestRebuiltNoteAcrossPages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	defer func(n int) { walkPage = n }(walkPage)
	walkPage = 7 // odd: pages end inside steps and between them
	dir := filepath.Join(t.TempDir(), "claude")
	sid := buildGen(t)(t, dir, "-agent", "claude-code", "-calls", "30", "-mb", "0.05")
	src := fixtures.ClaudeCopy(t, dir, fixtures.ClaudeWithoutRecords)
	out, stderr, code := correx(t, "calls", "--source", src, "--session", sid, "--json")
	require.Equal(t, 0, code, stderr)
	var calls []struct {
		CallID  string `json:"call_id"`
		Step    int    `json:"step"`
		Rebuilt string `json:"request_rebuilt"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &calls))
	require.Len(t, calls, 30)
	for _, c := range calls {
		require.Contains(t, c.Rebuilt, sid+".jsonl: no api-request records", "call %s of step %d", c.CallID, c.Step)
		out, stderr, code = correx(t, "show", "--source", src, "--session", sid, "--call", c.CallID, "--json")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, out, `"request_rebuilt": "`, "show of call %s of step %d", c.CallID, c.Step)
	}
	out, stderr, code = correx(t, "calls", "--source", dir, "--session", sid, "--json")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "request_rebuilt", "the logged requests")
}

func rebuilt(r *model.LoggedRequest) string {
	if r == nil {
		return "none"
	}
	return r.Rebuilt
}
