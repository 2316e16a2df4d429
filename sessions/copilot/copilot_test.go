package copilot_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"correx/formatters"
	"correx/internal/props"
	"correx/model"
	"correx/sessions"
	"correx/sessions/copilot"
)

const fixture = "../../testdata/copilot/copilot/data"

// home makes a COPILOT_HOME under a fresh HOME holding a copy of the
// recorded session whose events.jsonl gets edit applied; it returns the
// home and the events file. Every agent's environment points into the
// fresh HOME, so nothing of this machine is discovered.
func home(t *testing.T, sub string, edit func([]byte) []byte) (string, string) {
	t.Helper()
	root := t.TempDir()
	for _, env := range []string{"COPILOT_HOME", "CODEX_HOME", "GEMINI_CLI_HOME", "CLAUDE_CONFIG_DIR", "OPENCODE_DB"} {
		t.Setenv(env, "")
	}
	t.Setenv("HOME", root)
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, ".local", "share"))
	logs, _ := filepath.Glob(filepath.Join(fixture, "session-state", "*", "events.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("fixture: %d sessions", len(logs))
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		b = edit(b)
	}
	h := filepath.Join(root, sub)
	events := filepath.Join(h, "session-state", filepath.Base(filepath.Dir(logs[0])), "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(events), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(events, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return h, events
}

// TestDiscovery: the data root is found at $COPILOT_HOME, and at
// ~/.copilot without it.
func TestDiscovery(t *testing.T) {
	h, _ := home(t, "elsewhere", nil)
	t.Setenv("COPILOT_HOME", h)
	if d := sessions.Discover(); !slices.Contains(d, h) {
		t.Errorf("COPILOT_HOME=%s: Discover gives %q", h, d)
	}
	h, _ = home(t, ".copilot", nil)
	if d := sessions.Discover(); !slices.Contains(d, h) {
		t.Errorf("no COPILOT_HOME: Discover gives %q, want ~/.copilot", d)
	}
	if got := copilot.Home(); got != h {
		t.Errorf("Home() = %s, want %s", got, h)
	}
}

// TestOpenForms: the data root, its session-state/, one session folder
// and one events.jsonl each open as the one session, named by the agent,
// with the facts of its records.
func TestOpenForms(t *testing.T) {
	h, events := home(t, ".copilot", nil)
	for _, p := range []string{h, filepath.Join(h, "session-state"), filepath.Dir(events), events} {
		_, infos := props.OpenList(t, sessions.Open, p)
		if len(infos) != 1 {
			t.Fatalf("%s: %d sessions", p, len(infos))
		}
		in := infos[0]
		if in.Agent != copilot.Agent || in.Agent.Name() != "GitHub Copilot CLI" || in.Version != "1.0.102" ||
			in.Directory != "/home/user/proj" || in.ID != filepath.Base(filepath.Dir(events)) || in.DataDir != h {
			t.Errorf("%s: %+v", p, in)
		}
		if in.Errors != 2 || in.Truncated != 1 || !strings.HasPrefix(in.Title, "Please run the correx oracle scenario") {
			t.Errorf("%s: errors %d, truncated %d, title %q", p, in.Errors, in.Truncated, in.Title)
		}
	}
}

// TestBadLine: a line that is not JSON is skipped with a warning naming
// FILE:LINE; the rest of the session loads.
func TestBadLine(t *testing.T) {
	h, events := home(t, ".copilot", func(b []byte) []byte {
		lines := strings.SplitAfter(string(b), "\n")
		return []byte(strings.Join(lines[:2], "") + "{not json\n" + strings.Join(lines[2:], ""))
	})
	st, infos := props.OpenList(t, sessions.Open, h)
	sess, err := st.Load(context.Background(), infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := events + ":3: skipped a line that is not JSON"
	if len(sess.Warnings) != 1 || !strings.HasPrefix(sess.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", sess.Warnings, want)
	}
	if len(sess.ToolCalls()) != 12 {
		t.Errorf("%d calls after the bad line, want 12", len(sess.ToolCalls()))
	}
}

// TestFIFONeverOpened: an events.jsonl that is a FIFO is named and
// skipped, never opened (which would block), whichever way it is reached.
func TestFIFONeverOpened(t *testing.T) {
	h, events := home(t, ".copilot", nil)
	if err := os.Remove(events); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(events, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan string, 1)
	go func() {
		var msgs []string
		for _, p := range []string{h, filepath.Dir(events), events} {
			st, err := sessions.Open(p)
			if err != nil {
				msgs = append(msgs, err.Error())
				continue
			}
			if _, err := st.List(context.Background()); err != nil {
				msgs = append(msgs, err.Error())
			}
			msgs = append(msgs, sessions.Warnings(st)...)
			st.Close()
		}
		done <- strings.Join(msgs, "\n")
	}()
	select {
	case msg := <-done:
		if !strings.Contains(msg, events) {
			t.Errorf("the FIFO is not named: %q", msg)
		}
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
		t.Fatal("opening a FIFO events.jsonl never returned")
	}
}

// TestSpillDeletedAtExit: the spilled call's preview is a copilot-spill
// cut whose full size comes from toolTelemetry and whose spill file is
// said to be deleted when Copilot exited; a failed call says its sent
// text is not stored.
func TestSpillDeletedAtExit(t *testing.T) {
	st, infos := props.OpenList(t, sessions.Open, fixture)
	sess, err := st.Load(context.Background(), infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	spills := sessions.SpillsFor(sess.Info)
	var cut, unknown int
	for _, r := range sess.ToolCalls() {
		v := formatters.Visible(r.Call, spills)
		if tr := v.Truncation; tr != nil {
			cut++
			if tr.Kind != copilot.TruncSpill || tr.FullBytes == nil || *tr.FullBytes != 20893 || !tr.SpillGone() ||
				tr.SpillGoneReason() != "deleted when Copilot exited" || tr.AgentFlagged == nil || !*tr.AgentFlagged {
				t.Errorf("call %s: %+v", r.Call.CallID, tr)
			}
			if len(tr.Added) != 1 || !strings.HasPrefix(v.Text[tr.Added[0].Start:], "\n\n<shellId: ") {
				t.Errorf("call %s: added pieces %+v", r.Call.CallID, tr.Added)
			}
		}
		if v.SentUnknown != "" {
			unknown++
			if r.Call.Status != model.StatusError || v.Text != r.Call.Error {
				t.Errorf("call %s: sent unknown but %s %q", r.Call.CallID, r.Call.Status, v.Text)
			}
		}
	}
	if cut != 1 || unknown != 2 {
		t.Errorf("%d spills, %d failed calls with unknown sent text; want 1 and 2", cut, unknown)
	}
}

// TestOtherWireWarned: a session whose requests went elsewhere than Chat
// Completions (COPILOT_PROVIDER_WIRE_API=responses) is loaded with one
// warning that its own wire is not rebuilt.
func TestOtherWireWarned(t *testing.T) {
	h, events := home(t, ".copilot", func(b []byte) []byte {
		return []byte(strings.ReplaceAll(string(b), `"apiEndpoint":"/chat/completions"`, `"apiEndpoint":"/responses"`))
	})
	st, infos := props.OpenList(t, sessions.Open, h)
	sess, err := st.Load(context.Background(), infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Warnings) != 1 || !strings.HasPrefix(sess.Warnings[0], events+":") || !strings.Contains(sess.Warnings[0], "/responses") {
		t.Errorf("warnings %q", sess.Warnings)
	}
}

const third = "../../testdata/copilot/copilot-third/data"

// callByTitle is the call of s whose intentionSummary is title.
func callByTitle(t *testing.T, s *model.Session, title string) *model.ToolCall {
	t.Helper()
	for _, r := range s.ToolCalls() {
		if r.Call.Title == title {
			return r.Call
		}
	}
	t.Fatalf("%s: no call %q", s.Info.ID, title)
	return nil
}

// TestSubagentOwnSession: Copilot 1.0.102 writes a `task` subagent's
// events (its prompt, turns and calls, each with the subagent's agentId)
// into the parent's events.jsonl; they are a conversation of their own,
// sent in requests of their own. The main session holds none of them, the
// task call names the child, and the child lists and loads with its own
// prompt and call.
func TestSubagentOwnSession(t *testing.T) {
	st, infos := props.OpenList(t, sessions.Open, third)
	if len(infos) != 2 {
		t.Fatalf("%d sessions listed, want the main one and its subagent's", len(infos))
	}
	var main, kid model.SessionInfo
	for _, in := range infos {
		if in.ParentID == "" {
			main = in
		} else {
			kid = in
		}
	}
	if kid.ParentID != main.ID || main.ID == "" {
		t.Fatalf("subagent session %q has parent %q, want %q", kid.ID, kid.ParentID, main.ID)
	}
	ms, err := st.Load(context.Background(), main.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms.Messages {
		for _, p := range m.Parts {
			if strings.Contains(p.Text, "Count the lines of notes.txt") || (p.Tool != nil && p.Tool.Title == "Count lines of notes.txt") {
				t.Errorf("main session holds the subagent's %s message %s", m.Role, m.ID)
			}
		}
	}
	if c := callByTitle(t, ms, "Count notes lines"); c.ChildSessionID != kid.ID {
		t.Errorf("task call names child %q, want %q", c.ChildSessionID, kid.ID)
	}
	ks, err := st.Load(context.Background(), kid.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ks.Messages) != 3 || ks.Messages[0].Role != model.RoleUser || !strings.HasSuffix(ks.Messages[0].Parts[0].Text, "\n\nCount the lines of notes.txt with wc -l and answer with the number only.") {
		t.Fatalf("subagent session: %d messages, first %+v", len(ks.Messages), ks.Messages[0])
	}
	if c := callByTitle(t, ks, "Count lines of notes.txt"); c.Output != "3 notes.txt\n<shellId: 8 completed with exit code 0>" {
		t.Errorf("subagent's call output %q", c.Output)
	}
}

// TestWholeResultSpill: besides the shell's own spill (largeOutputHandled,
// a status line after the preview), Copilot 1.0.102 spills a whole result
// of 20,480 bytes or more, status line included (a 20,479-byte output
// with its 40-byte status line): largeOutputWrittenToFile, the result's
// size in largeOutputOriginalSizeBytes, no status line after the preview.
// correx detects it, and the list's flag agrees with the truncation's.
func TestWholeResultSpill(t *testing.T) {
	st, _ := props.OpenList(t, sessions.Open, third)
	s, err := st.Load(context.Background(), "ef2e2c27-1620-4e0e-bc32-327690770be5")
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"One byte under the threshold", "At the threshold"} {
		c := callByTitle(t, s, title)
		v := formatters.Visible(c, nil)
		tr := v.Truncation
		if tr == nil || tr.Kind != copilot.TruncSpill {
			t.Fatalf("%s: truncation %+v, want %s", title, tr, copilot.TruncSpill)
		}
		if tr.FullBytes == nil || *tr.FullBytes != 20519 || len(tr.Added) != 0 {
			t.Errorf("%s: full %v bytes, added %+v; want 20519 and none", title, tr.FullBytes, tr.Added)
		}
		if f := formatters.AgentFlagged(c); f == nil || !*f || tr.AgentFlagged == nil || !*tr.AgentFlagged {
			t.Errorf("%s: AgentFlagged %v, truncation flagged %v; want both yes", title, f, tr.AgentFlagged)
		}
	}
	if v := formatters.Visible(callByTitle(t, s, "Under the threshold"), nil); v.Truncation != nil || len(v.Text) != 20469 {
		t.Errorf("a 20,469-byte result: truncation %+v, %d bytes; want it whole", v.Truncation, len(v.Text))
	}
}
