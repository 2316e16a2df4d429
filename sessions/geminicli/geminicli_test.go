package geminicli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/props"
	"correx/model"
	"correx/sessions"
)

// The Gemini CLI fixtures are real recordings (testdata/record).
const geminiFixture = "../../testdata/gemini-cli/gemini-3.8-flash/data"

func TestGeminiChat(t *testing.T) {
	before := props.TreeHash(t, geminiFixture)
	_, sess := props.LoadOnly(t, sessions.Open, geminiFixture)
	if props.TreeHash(t, geminiFixture) != before {
		t.Fatal("reading the chats changed them")
	}
	in := sess.Info
	// the shell spill and read_file's truncation of big.txt
	if in.Agent != model.AgentGeminiCLI || in.Directory != "/home/user/proj" || in.ToolCalls != 16 || in.Errors != 2 || in.Truncated != 2 {
		t.Errorf("info = %+v", in)
	}
	if steps := len(sess.AssistantSteps()); steps != 13 {
		t.Errorf("%d steps, want 13", steps)
	}
	// ids change with every recording: find the calls by their input
	find := func(in string) model.CallRef {
		for _, r := range sess.ToolCalls() {
			if strings.Contains(string(r.Call.Input), in) {
				return r
			}
		}
		t.Fatalf("no call with %s", in)
		return model.CallRef{}
	}
	ref := find("seq 1 10000")
	v := formatters.Visible(ref.Call, sessions.SpillsFor(sess.Info))
	tr := v.Truncation
	if tr == nil || tr.Kind != model.TruncGeminiSpill || len(tr.Markers) != 2 || tr.SpillFound == "" || tr.FullBytes == nil || *tr.FullBytes < 48_894 { // seq 1 10000 and its wrapper
		t.Fatalf("truncation %+v", tr)
	}
	big := formatters.Visible(find("big.txt").Call, sessions.SpillsFor(sess.Info))
	if tr := big.Truncation; tr == nil || tr.Kind != model.TruncGeminiRead || !strings.Contains(big.Text[tr.Markers[0].Start:tr.Markers[0].End], "of 3001 total lines") {
		t.Errorf("read_file big.txt: truncation %+v", tr)
	}
	// the subagent: its own chat under chats/<parent id>/, named by the
	// invoke_agent call
	agent := find(`"agent_name":"generalist"`).Call
	st, err := sessions.Open(geminiFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	child, err := st.Load(context.Background(), agent.ChildSessionID)
	if err != nil || child.Info.ParentID != in.ID || child.Info.ToolCalls != 2 {
		t.Fatalf("subagent %q: %v %+v", agent.ChildSessionID, err, child)
	}
	if strings.HasPrefix(ref.Call.CallID, "run_shell_command__") {
		t.Errorf("call id %q keeps the stored prefix", ref.Call.CallID)
	}
}

// TestGeminiLegacyJSON reads the single-JSON form of older Gemini CLI
// versions, made from the first run of the recorded chat.
func TestGeminiLegacyJSON(t *testing.T) {
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	b, _ := os.ReadFile(chats[0])
	var meta map[string]any
	var msgs []json.RawMessage
	seen := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var top map[string]json.RawMessage
		json.Unmarshal([]byte(line), &top)
		switch {
		case i == 0:
			json.Unmarshal([]byte(line), &meta)
		case top["sessionId"] != nil && top["id"] == nil:
			i = -1 // second run: stop
		case top["id"] != nil:
			var id string
			json.Unmarshal(top["id"], &id)
			if j, ok := seen[id]; ok {
				msgs[j] = json.RawMessage(line)
			} else {
				seen[id] = len(msgs)
				msgs = append(msgs, json.RawMessage(line))
			}
		}
		if i == -1 {
			break
		}
	}
	meta["messages"] = msgs
	doc, _ := json.MarshalIndent(meta, "", "  ")
	dir := t.TempDir()
	path := filepath.Join(dir, "tmp", "proj", "chats", "session-2025-10-01T10-00-abcdef12.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, doc, 0o644)
	_, sess := props.LoadOnly(t, sessions.Open, dir)
	// the main run: all but the follow-up's call and two steps
	if sess.Info.ToolCalls != 15 || len(sess.AssistantSteps()) != 11 {
		t.Errorf("%d calls, %d steps; want 15, 11", sess.Info.ToolCalls, len(sess.AssistantSteps()))
	}
	for _, r := range sess.ToolCalls() {
		if r.Call.Sent == nil {
			t.Errorf("call %s has no result", r.Call.CallID)
		}
	}
}

func TestGeminiBadLines(t *testing.T) {
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	dir := t.TempDir()
	dst := props.CopyFile(t, chats[0], dir, "tmp/proj/chats/"+filepath.Base(chats[0]))
	_, clean := props.LoadOnly(t, sessions.Open, dir)
	b, _ := os.ReadFile(dst)
	lines := strings.Count(string(b), "\n")
	f, _ := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("garbage\n{\"id\":\"x\",\"type\":\"gem")
	f.Close()
	_, sess := props.LoadOnly(t, sessions.Open, dir)
	want := []string{
		filepath.Base(dst) + ":" + strconv.Itoa(lines+1) + ": skipped a line that is not a JSON object",
		filepath.Base(dst) + ":" + strconv.Itoa(lines+2) + ": skipped a line that is not a JSON object",
	}
	got := strings.Join(sess.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("no warning %q in %q", w, got)
		}
	}
	if sess.Info.ToolCalls != clean.Info.ToolCalls {
		t.Errorf("%d calls after bad lines, %d without", sess.Info.ToolCalls, clean.Info.ToolCalls)
	}
}

const geminiSecondFixture = "../../testdata/gemini-cli/gemini-3.8-flash-second/data"

// TestGeminiResumeLayouts reads the layouts Gemini CLI 0.61.0 leaves when
// `--resume` runs (recorded): a resume starts a chat file named for the
// minute it starts in, writes its metadata line and session context there,
// then goes on in the file it resumes with {"$set":{"sessionId"}} and a
// `$set` of the whole history. In the same minute that is one file (a
// second metadata line); in another minute a stub file beside it and, in
// the resumed file, a run with no metadata line.
func TestGeminiResumeLayouts(t *testing.T) {
	runs := func(sess *model.Session) []int {
		var out []int
		for _, i := range sess.AssistantSteps() {
			out = append(out, sess.Messages[i].Run)
		}
		return out
	}
	t.Run("same minute", func(t *testing.T) {
		_, sess := props.LoadOnly(t, sessions.Open, geminiFixture)
		want := "1 1 1 1 1 1 1 1 1 1 1 2 2"
		if got := strings.Trim(fmt.Sprint(runs(sess)), "[]"); got != want {
			t.Errorf("runs of the steps %s, want %s", got, want)
		}
	})
	t.Run("another minute", func(t *testing.T) {
		chats, _ := filepath.Glob(geminiSecondFixture + "/tmp/*/chats/session-*.jsonl")
		if len(chats) < 2 {
			t.Fatalf("chat files %v, want the conversation and a resume's stub", chats)
		}
		st, sess := props.LoadOnly(t, sessions.Open, geminiSecondFixture)
		if len(sessions.Warnings(st)) > 0 || len(sess.Warnings) > 0 {
			t.Errorf("warnings %v %v", sessions.Warnings(st), sess.Warnings)
		}
		if filepath.Base(sess.Info.Source) != filepath.Base(chats[0]) {
			t.Errorf("read %s, want the file with the conversation %s", sess.Info.Source, chats[0])
		}
		// the second resume began in another minute: no metadata line of
		// its own in the conversation file
		want := "1 1 1 1 1 1 2 2 3 3"
		if got := strings.Trim(fmt.Sprint(runs(sess)), "[]"); got != want {
			t.Errorf("runs of the steps %s, want %s", got, want)
		}
	})
	t.Run("a stub with a message of its own", func(t *testing.T) {
		chats, _ := filepath.Glob(geminiSecondFixture + "/tmp/*/chats/session-*.jsonl")
		dir := t.TempDir()
		props.CopyFile(t, chats[0], dir, "tmp/proj/chats/"+filepath.Base(chats[0]))
		stub := props.CopyFile(t, chats[1], dir, "tmp/proj/chats/"+filepath.Base(chats[1]))
		f, _ := os.OpenFile(stub, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"id":"only-in-the-stub","timestamp":"2026-12-01T20:25:00.000Z","type":"user","content":[{"text":"lost?"}]}` + "\n")
		f.Close()
		st, _ := props.LoadOnly(t, sessions.Open, dir)
		if w := strings.Join(sessions.Warnings(st), "\n"); !strings.Contains(w, "skipped "+stub+": session ") {
			t.Errorf("no warning for the stub with a message of its own: %q", w)
		}
	})
}

func TestGeminiSetHistoryKeepsSteps(t *testing.T) {
	const sid = "95f21dea-abf2-4f11-8bb4-bfe27b096ce9"
	meta := `{"sessionId":"` + sid + `","projectHash":"h","startTime":"2026-12-01T21:07:10.498Z","lastUpdated":"2026-12-01T21:07:10.498Z","kind":"main"}`
	ctx := `{"id":"ctx","timestamp":"2026-12-01T21:07:10.498Z","type":"user","content":[{"text":"<session_context>\nctx\n</session_context>"}]}`
	u1 := `{"id":"u1","timestamp":"2026-12-01T21:07:10.630Z","type":"user","content":[{"text":"Please run it."}]}`
	g1 := `{"id":"g1","timestamp":"2026-12-01T21:07:12.019Z","type":"gemini","content":"Done.","model":"gemini-2.5-pro"}`
	n1 := `{"id":"n1","timestamp":"2026-12-01T21:07:34.838Z","type":"user","content":[{"text":"<session_context>\nctx\n</session_context>"},{"text":"Please run it."}]}`
	n2 := `{"id":"n2","timestamp":"2026-12-01T21:07:34.838Z","type":"gemini","content":[{"text":"Done."}]}`
	set := func(recs ...string) string { return `{"$set":{"messages":[` + strings.Join(recs, ",") + `]}}` }
	lines := []string{
		meta, set(ctx), u1, g1, // the main run
		meta, set(ctx), `{"$set":{"sessionId":"` + sid + `"}}`, set(ctx, u1, g1), // a resume in the same minute
		n1, n2, set(n1, n2), // its setHistory
		`{"id":"u2","timestamp":"2026-12-01T21:07:34.850Z","type":"user","content":[{"text":"Next."}]}`,
	}
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "session-2026-12-01T21-07-95f21dea.jsonl"
	if err := os.WriteFile(filepath.Join(chats, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, sess := props.LoadOnly(t, sessions.Open, dir)
	if len(sess.Warnings) > 0 {
		t.Errorf("warnings %q", sess.Warnings)
	}
	var ids []string
	for _, m := range sess.Messages {
		ids = append(ids, m.ID)
	}
	if got := strings.Join(ids, " "); got != "ctx u1 g1 u2" {
		t.Errorf("messages %s, want ctx u1 g1 u2", got)
	}
	for _, f := range fixtures.All(t) {
		if f.Agent != "gemini-cli" {
			continue
		}
		st, infos := props.OpenList(t, sessions.Open, f.Source)
		for _, in := range infos {
			s, err := st.Load(context.Background(), in.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range s.Warnings {
				if strings.Contains(w, "replaced by a later run's history") {
					t.Errorf("%s: %s", f.ID(), w)
				}
			}
		}
	}
}
