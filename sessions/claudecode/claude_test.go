package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

const claudeFixture = "../../testdata/claude-code/anthropic"

func TestClaudeFixture(t *testing.T) {
	st, err := sessions.Open(claudeFixture)
	require.NoError(t, err)
	defer st.Close()
	infos, err := st.List(context.Background())
	require.NoError(t, err)
	if len(infos) != 2 {
		t.Fatalf("want the session and its subagent, got %+v", infos)
	}
	var root, child model.SessionInfo
	for _, in := range infos {
		if in.Agent != model.AgentClaudeCode {
			t.Errorf("%s: agent %q", in.ID, in.Agent)
		}
		if in.ParentID == "" {
			root = in
		} else {
			child = in
		}
	}
	if child.ParentID != root.ID || root.Directory != "/home/user/proj" || root.Version != "2.1.332" {
		t.Errorf("root %+v child %+v", root, child)
	}
	sess, err := st.Load(context.Background(), root.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sess.AssistantSteps()); n != 14 {
		t.Errorf("%d steps, want 14 (assistant lines merged by message.id)", n)
	}
	for _, i := range sess.AssistantSteps() {
		if sess.Messages[i].Request == nil {
			t.Errorf("step %s has no logged request", sess.Messages[i].ID)
		}
	}
	var agent, persisted *model.ToolCall
	for _, r := range sess.ToolCalls() {
		switch {
		case r.Call.Tool == "Agent":
			agent = r.Call
		case r.Call.Tool == "Bash" && strings.Contains(string(r.Call.Input), "seq 1 200000"):
			persisted = r.Call
		}
		if r.Call.Sent == nil {
			t.Errorf("%s: no result", r.Call.CallID)
		}
	}
	if agent == nil || agent.ChildSessionID != child.ID {
		t.Errorf("Agent call not linked to %s: %+v", child.ID, agent)
	}
	v := formatters.Visible(persisted, sessions.SpillsFor(sess.Info))
	tr := v.Truncation
	if tr == nil || tr.Kind != model.TruncClaudePersisted || tr.FullLines == nil || *tr.FullLines != 200000 || tr.SpillFound == "" {
		t.Fatalf("persisted output: %+v", tr)
	}
	// found in the fixture, or at the recorded path on a machine that still
	// holds the recording
	fixture, _ := filepath.Abs(claudeFixture)
	if !strings.HasPrefix(tr.SpillFound, fixture) && !strings.HasPrefix(tr.SpillFound, "/home/user/") {
		t.Errorf("spill found at %s", tr.SpillFound)
	}
	// the other ways in: one transcript, its project dir, the projects dir
	for _, p := range []string{filepath.Join(claudeFixture, "projects"), filepath.Join(claudeFixture, "projects", "-home-user-proj"),
		filepath.Join(claudeFixture, "projects", "-home-user-proj", root.ID+".jsonl")} {
		s2, err := sessions.Open(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := s2.Load(context.Background(), root.ID); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := s2.Load(context.Background(), child.ID); err != nil {
			t.Errorf("%s: subagent: %v", p, err)
		}
		s2.Close()
	}
}

// A hand-made 1.0.x-style file: lines per content block, a bad line, a
// content replacement, an inline sidechain and a partial last line.
func TestClaudeTranscriptRules(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-p")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	const sid = "11111111-2222-4333-8444-555555555555"
	lines := []string{
		`{"type":"summary","summary":"A title","leafUuid":"u9"}`,
		`{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u1","sessionId":"` + sid + `","cwd":"/p","version":"1.0.98","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"do it"}}`,
		`{"parentUuid":"u1","type":"assistant","uuid":"u2","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:01Z","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"ok"}]}}`,
		`{"parentUuid":"u2","type":"assistant","uuid":"u3","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:01Z","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_a","name":"Bash","input":{"command":"false"}}]}}`,
		`{"parentUuid":"u3","type":"assistant","uuid":"u4","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:01Z","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_b","name":"Task","input":{"description":"d","prompt":"look around"}}]}}`,
		`{not json`,
		`{"parentUuid":"u3","type":"user","uuid":"u5","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"boom","is_error":true}]}}`,
		`{"parentUuid":null,"isSidechain":true,"type":"user","uuid":"s1","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":"look around"}}`,
		`{"parentUuid":"s1","isSidechain":true,"type":"assistant","uuid":"s2","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:03Z","message":{"id":"msg_s","role":"assistant","model":"claude-x","content":[{"type":"text","text":"found"}]}}`,
		`{"parentUuid":"u4","type":"user","uuid":"u6","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"found"}]}]}}`,
		`{"type":"content-replacement","sessionId":"` + sid + `","replacements":[{"kind":"tool-result","toolUseId":"toolu_a","replacement":"<persisted-output>\nOutput too large (2KB). Full output saved to: /x/projects/-p/` + sid + `/tool-results/t1.txt\n\nPreview (first 2KB):\nboom\n</persisted-output>"}]}`,
		`{"parentUuid":"u6","type":"assistant","uuid":"u7","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:05Z","message":{"id":"msg_2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]}}`,
		`{"parentUuid":"u7","type":"user","uuid":"u8"`,
	}
	file := filepath.Join(proj, sid+".jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, sid, "tool-results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, sid, "tool-results", "t1.txt"), []byte("boom\nboom\nboom\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sessions.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := st.List(context.Background())
	if err != nil || len(infos) != 2 {
		t.Fatalf("list: %v %+v", err, infos)
	}
	sess, err := st.Load(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Info.Title != "A title" || sess.Info.Version != "1.0.98" || sess.Info.Directory != "/p" {
		t.Errorf("info %+v", sess.Info)
	}
	if n := len(sess.AssistantSteps()); n != 2 {
		t.Errorf("%d steps, want 2", n)
	}
	var warned6, warned13 bool
	for _, w := range sess.Warnings {
		warned6 = warned6 || strings.Contains(w, sid+".jsonl:6: bad JSON")
		warned13 = warned13 || strings.Contains(w, sid+".jsonl:13: partial line")
	}
	if !warned6 || !warned13 {
		t.Errorf("warnings %q", sess.Warnings)
	}
	a, _ := sess.FindCall("toolu_a")
	v := formatters.Visible(a.Call, sessions.SpillsFor(sess.Info))
	if a.Call.Status != model.StatusError || v.Result.Type != model.ResultError || !strings.HasPrefix(v.Text, "<persisted-output>") {
		t.Errorf("replacement not applied: %+v", v)
	}
	if v.Truncation == nil || v.Truncation.FullLines == nil || *v.Truncation.FullLines != 3 {
		t.Errorf("spill via the config dir: %+v", v.Truncation)
	}
	b, _ := sess.FindCall("toolu_b")
	if b.Call.ChildSessionID != "s1" {
		t.Errorf("Task call linked to %q, want the inline sidechain s1", b.Call.ChildSessionID)
	}
	side, err := st.Load(context.Background(), "s1")
	if err != nil || side.Info.ParentID != sid || len(side.AssistantSteps()) != 1 {
		t.Errorf("sidechain: %v %+v", err, side)
	}
}

// A broken api-request record (a tail hash the transcript does not hold):
// its step is rebuilt from the transcript, labelled so with the file and
// line, the session warns, and the results are still those sent.
func TestClaudeBrokenRequestRecord(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "claude-code", "parallel-resume")
	broken, file := 0, ""
	src := fixtures.ClaudeCopy(t, dir, func(rel string, lines []string) []string {
		if strings.Contains(rel, "subagents") {
			return lines
		}
		seen := 0
		for i, l := range lines {
			if !strings.Contains(l, `"type":"api-request",`) {
				continue
			}
			if seen++; seen == 2 { // the second step's record
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatal(err)
				}
				tail := rec["tail"].([]any)
				tail[len(tail)-1] = strings.Repeat("0", 64)
				b, _ := json.Marshal(rec)
				lines[i], broken, file = string(b), i+1, rel
			}
		}
		return lines
	})
	if broken == 0 {
		t.Fatal("no second api-request record in the fixture")
	}
	st, err := sessions.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sessions.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	sess, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sent, err := want.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	at := fmt.Sprintf("%s:%d: ", filepath.Base(file), broken)
	if req := sess.StepRequest(1); req == nil || req.Rebuilt != "" {
		t.Errorf("step 1 is not as logged: %+v", req)
	}
	if req := sess.StepRequest(2); req == nil || !strings.Contains(req.Rebuilt, at) {
		t.Errorf("step 2 not labelled as rebuilt at %s: %+v", at, req)
	}
	warned := false
	for _, w := range sess.Warnings {
		warned = warned || strings.Contains(w, at) && strings.HasSuffix(w, model.RebuiltLabel)
	}
	if !warned {
		t.Errorf("no warning naming %s: %q", at, sess.Warnings)
	}
	for _, ref := range sent.ToolCalls() {
		got, ok := sess.FindCall(ref.Call.CallID)
		if !ok || formatters.Visible(got.Call, nil).Text != formatters.Visible(ref.Call, nil).Text {
			t.Errorf("call %s: result differs from the one sent", ref.Call.CallID)
		}
	}
}

// A tool_result block correx does not read (here a search_result) is named
// in a warning with its file and line, not dropped silently.
func TestClaudeUnknownResultBlockWarned(t *testing.T) {
	const sid = "11111111-2222-4333-8444-666666666666"
	lines := []string{
		`{"parentUuid":null,"type":"user","uuid":"u1","sessionId":"` + sid + `","cwd":"/p","version":"2.1.332","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"find it"}}`,
		`{"parentUuid":"u1","type":"assistant","uuid":"u2","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:01Z","message":{"id":"msg_1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_a","name":"mcp__s__find","input":{}}]}}`,
		`{"parentUuid":"u2","type":"user","uuid":"u3","sessionId":"` + sid + `","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"one hit"},{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"hit"}]}]}]}}`,
	}
	dir := filepath.Join(t.TempDir(), "projects", "-p")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	st, err := sessions.Open(dir)
	require.NoError(t, err)
	defer st.Close()
	sess, err := st.Load(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range sess.Warnings {
		found = found || strings.Contains(w, sid+`.jsonl:3: tool_result toolu_a: a "search_result" block`)
	}
	if !found {
		t.Errorf("warnings %q", sess.Warnings)
	}
}

// Requests share the messages of the request they extend (the prefix is
// not copied): two requests extending one base (a rewind or a resume)
// each keep their own tail, and appending to one request's messages
// changes no other.
func TestClaudeRequestsShareBase(t *testing.T) {
	r := newCCReader("t.jsonl", "")
	st := r.st[r.main]
	name := map[*ccBlob]string{}
	for i, h := range []string{"1", "2", "3"} {
		st.blobs[h] = &ccBlob{line: sessions.Line{N: i + 1}}
		name[st.blobs[h]] = "m" + h
	}
	for _, rec := range []ccLine{
		{ID: "a", Tail: []string{"1", "2", "3"}},
		{ID: "b", Base: "a", Keep: 3, Tail: []string{"1"}},
		{ID: "c", Base: "a", Keep: 3, Tail: []string{"2"}},
		{ID: "d", Base: "b", Keep: 4, Tail: []string{"3"}},
		{ID: "e", Base: "d", Keep: 3, Tail: []string{"2"}},
	} {
		r.request(st, rec, 1)
	}
	a := st.requests["a"].msgs
	_ = append(a[:len(a):len(a)], ccMsgRef{})
	want := map[string]string{"a": "m1 m2 m3", "b": "m1 m2 m3 m1", "c": "m1 m2 m3 m2", "d": "m1 m2 m3 m1 m3", "e": "m1 m2 m3 m2"}
	for id, w := range want {
		var got []string
		for _, ref := range st.requests[id].msgs {
			got = append(got, name[ref.blob])
		}
		if strings.Join(got, " ") != w {
			t.Errorf("request %s: messages %q, want %s", id, got, w)
		}
	}
}
