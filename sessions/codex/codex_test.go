package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/props"
	"correx/model"
	"correx/sessions"
)

// The Codex CLI fixtures are real recordings (testdata/record).
const codexFixture = "../../testdata/codex/gpt-5.5/data"

func TestCodexRollout(t *testing.T) {
	before := props.TreeHash(t, codexFixture)
	_, sess := props.LoadOnly(t, sessions.Open, codexFixture)
	if props.TreeHash(t, codexFixture) != before {
		t.Fatal("reading the rollouts changed them")
	}
	in := sess.Info
	if in.Agent != model.AgentCodex || in.Version != "0.171.0" || in.Directory != "/home/user/proj" {
		t.Errorf("info = %+v", in)
	}
	if !strings.HasPrefix(in.Title, "Please run the correx oracle scenario for Codex") {
		t.Errorf("title %q", in.Title)
	}
	if in.ToolCalls != 16 || in.Truncated != 3 || len(sess.AssistantSteps()) != 13 {
		t.Errorf("%d calls, %d truncated, %d steps; want 16, 3, 13", in.ToolCalls, in.Truncated, len(sess.AssistantSteps()))
	}
	if len(sess.Warnings) > 0 {
		t.Errorf("warnings: %v", sess.Warnings)
	}
	var patches, truncated int
	for _, r := range sess.ToolCalls() {
		c := r.Call
		if c.Sent == nil {
			t.Errorf("call %s: no output linked", c.CallID)
			continue
		}
		v := formatters.Visible(c, nil)
		switch c.Tool {
		case "apply_patch":
			patches++
			var s string
			if json.Unmarshal(c.Input, &s) != nil || !strings.HasPrefix(s, "*** Begin Patch") {
				t.Errorf("apply_patch input %s", c.Input)
			}
			if patches == 3 && !strings.HasPrefix(v.Text, "apply_patch verification failed: Failed to find expected lines") {
				t.Errorf("failing patch shows %q", v.Text)
			}
		case "exec_command":
			if !strings.HasPrefix(v.Text, "Chunk ID: ") {
				t.Errorf("exec_command shows %q", v.Text)
			}
		}
		if v.Truncation != nil {
			truncated++
			tr := v.Truncation
			// the warning, the 1 MiB buffer's "bytes omitted" or (under it)
			// "Total output lines", and the middle cut
			if tr.Kind != model.TruncCodexTokens || len(tr.Markers) != 3 || tr.FullBytes != nil {
				t.Errorf("truncation %+v", tr)
			}
			for _, m := range tr.Markers {
				mark := v.Text[m.Start:m.End]
				if !strings.Contains(mark, "truncated") && !strings.Contains(mark, "omitted") && !strings.HasPrefix(mark, "Total output lines: ") {
					t.Errorf("marker %q", mark)
				}
			}
		}
	}
	if patches != 3 || truncated != 3 {
		t.Errorf("%d patches, %d truncated", patches, truncated)
	}
}

// TestCodexFailedCalls: a call is an error when Codex's own item_completed
// event says it failed (a non-zero exit: rg without a match too; a patch
// that failed verification gets no such event), and
// the session's error count says how many.
func TestCodexFailedCalls(t *testing.T) {
	_, sess := props.LoadOnly(t, sessions.Open, codexFixture)
	var failed []string
	for _, r := range sess.ToolCalls() {
		c := r.Call
		var in struct {
			Cmd string `json:"cmd"`
		}
		_ = json.Unmarshal(c.Input, &in)
		if why := formatters.Visible(c, nil).Why; why != "" {
			t.Errorf("%s (%s): note %q on a result sent as stored", c.CallID, c.Status, why)
		}
		switch c.Status {
		case model.StatusError:
			failed = append(failed, in.Cmd)
		case model.StatusCompleted:
		default:
			t.Errorf("%s: status %s", c.CallID, c.Status)
		}
	}
	want := []string{"echo about to fail; echo this goes to stderr 1>&2; exit 3", "rg -n zzz_no_match_zzz", "cat does-not-exist.txt"}
	if strings.Join(failed, "|") != strings.Join(want, "|") {
		t.Errorf("failed calls %q, want %q", failed, want)
	}
	if sess.Info.Errors != len(want) {
		t.Errorf("info.Errors = %d, want %d", sess.Info.Errors, len(want))
	}
}

func TestCodexBadLinesAndZstd(t *testing.T) {
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	home := t.TempDir()
	dst := props.CopyFile(t, rollouts[0], home, "sessions/2026/01/02/"+filepath.Base(rollouts[0]))
	_, clean := props.LoadOnly(t, sessions.Open, home)
	b, _ := os.ReadFile(dst)
	lines := strings.Count(string(b), "\n")
	f, _ := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("this is not json\n{\"timestamp\":\"2026-01-02T00:00:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"mess")
	f.Close()
	zst := filepath.Join(home, "archived_sessions", "rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000000.jsonl.zst")
	os.MkdirAll(filepath.Dir(zst), 0o755)
	os.WriteFile(zst, []byte{0x28, 0xb5, 0x2f, 0xfd}, 0o644)
	st, sess := props.LoadOnly(t, sessions.Open, home)
	var bad, partial, zstd bool
	for _, w := range append(sessions.Warnings(st), sess.Warnings...) {
		bad = bad || strings.Contains(w, filepath.Base(dst)+":"+strconv.Itoa(lines+1)+": skipped a line that is not JSON")
		partial = partial || strings.Contains(w, filepath.Base(dst)+":"+strconv.Itoa(lines+2)+": skipped")
		zstd = zstd || strings.Contains(w, "zstd-compressed rollouts are not supported")
	}
	if !bad || !partial || !zstd {
		t.Errorf("warnings (bad line %v, partial line %v, zst %v): %q", bad, partial, zstd, append(sessions.Warnings(st), sess.Warnings...))
	}
	if sess.Info.ToolCalls != clean.Info.ToolCalls {
		t.Errorf("%d calls after bad lines, %d without", sess.Info.ToolCalls, clean.Info.ToolCalls)
	}
}

// TestCodexSpawnedAgent: a spawn_agent call (the multi_agent_v1 namespace
// Codex offers a model without a bundled preset) links the thread it
// started, whose rollout names the caller as its parent.
func TestCodexSpawnedAgent(t *testing.T) {
	st, infos := props.OpenList(t, sessions.Open, "../../testdata/codex/gpt-5.3-codex-third/data")
	parent := map[string]string{}
	for _, in := range infos {
		parent[in.ID] = in.ParentID
	}
	spawned := 0
	for _, in := range infos {
		sess, err := st.Load(context.Background(), in.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sess.ToolCalls() {
			if r.Call.Tool != "spawn_agent" {
				continue
			}
			spawned++
			if child := r.Call.ChildSessionID; child == "" || parent[child] != in.ID {
				t.Errorf("spawn_agent %s: child %q (its parent %q), want a thread of %s", r.Call.CallID, child, parent[child], in.ID)
			}
		}
	}
	if spawned != 1 {
		t.Errorf("%d spawn_agent calls, want 1", spawned)
	}
}

// TestCodexSessionsDirOpens: a CODEX_HOME's sessions/ opens by itself,
// with the sessions the home lists from it.
func TestCodexSessionsDirOpens(t *testing.T) {
	_, home := props.OpenList(t, sessions.Open, codexFixture)
	_, dir := props.OpenList(t, sessions.Open, filepath.Join(codexFixture, "sessions"))
	if len(dir) == 0 || len(dir) != len(home) || dir[0].ID != home[0].ID {
		t.Errorf("sessions/ lists %v, the home %v", dir, home)
	}
	if _, ok, err := Open(filepath.Join(codexFixture, "sessions", "2026"), true); ok || err != nil {
		t.Errorf("a folder inside sessions/ opened as a Codex store (%v)", err)
	}
}

// Codex's markers are looked for in Codex's results only: another agent's
// result that quotes one (a file that documents them) was not cut, and a
// call that names no agent is checked against every agent's rules.
func TestMarkersAreCodexsOwn(t *testing.T) {
	text := "head\n…1234 tokens truncated…\ntail\n"
	for _, tc := range []struct {
		agent model.Agent
		cut   bool
	}{{model.AgentCodex, true}, {"", true}, {model.AgentOpencode, false}, {model.AgentClaudeCode, false}} {
		call := &model.ToolCall{Agent: tc.agent, CallID: "c", Tool: "shell", Status: model.StatusCompleted,
			Sent: &model.ToolResultValue{Type: model.ResultText, Text: text}}
		tr := formatters.Visible(call, nil).Truncation
		if got := tr != nil && tr.Kind == model.TruncCodexTokens; got != tc.cut {
			t.Errorf("agent %q: cut by Codex's token budget = %v, want %v (%+v)", tc.agent, got, tc.cut, tr)
		}
	}
}
