package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"correx/model"
	"correx/sessions"
)

// fakeStore is an in-memory sessions.Store shaped like a recorded opencode
// run: plain, silent, failing and escape-laden bash calls, a tail-truncated
// bash call whose spill file exists, one whose spill file is gone, and a
// task call whose subagent session is in the store.
type fakeStore struct {
	infos []model.SessionInfo
	sess  map[string]*model.Session
}

func (f *fakeStore) Path() string { return "fake" }
func (f *fakeStore) List(context.Context) ([]model.SessionInfo, error) {
	return f.infos, nil
}
func (f *fakeStore) Load(_ context.Context, id string) (*model.Session, error) {
	if s, ok := f.sess[id]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%w: %q", sessions.ErrNotFound, id)
}
func (f *fakeStore) Close() error { return nil }

var fakeNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const fakeSpillName = "tool_fake_seq"

func newFakeStore(t testing.TB) *fakeStore {
	// The spill file lives in testdata so paths in goldens are stable; it
	// is rewritten when missing or different.
	dir := filepath.Join("testdata", "fake")
	spillDir := filepath.Join(dir, "tool-output")
	if err := os.MkdirAll(spillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var full strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	spill := filepath.Join(spillDir, fakeSpillName)
	if b, err := os.ReadFile(spill); err != nil || string(b) != full.String() {
		if err := os.WriteFile(spill, []byte(full.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var tail strings.Builder
	for i := 2001; i <= 3000; i++ {
		fmt.Fprintf(&tail, "%d\n", i)
	}
	// The recorded path is another machine's: the finder falls back to
	// tool-output/ beside the store.
	recorded := "/home/someone/.local/share/opencode/tool-output/" + fakeSpillName
	truncated := "...output truncated...\n\nFull output saved to: " + recorded + "\n\n" + tail.String()
	gone := "...output truncated...\n\nFull output saved to: /nowhere/tool-output/tool_gone\n\nlast line\n"

	t0 := fakeNow.Add(-3 * time.Hour)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	bash := func(id, cmd, desc, out string, status model.ToolStatus, errText string, meta string, sec int) model.Part {
		in, _ := json.Marshal(map[string]any{"command": cmd, "description": desc})
		return model.Part{ID: "prt_" + id, Type: model.PartTool, Tool: &model.ToolCall{
			CallID: "call_" + id, Tool: "bash", Status: status, Input: in, Output: out, Error: errText,
			Title: desc, Metadata: json.RawMessage(meta), Start: at(sec), End: at(sec).Add(1500 * time.Millisecond),
		}}
	}
	asst := func(id string, sec int, parts ...model.Part) model.Message {
		return model.Message{ID: "msg_" + id, Role: model.RoleAssistant, Created: at(sec), Completed: at(sec + 1),
			ProviderID: "openai", ModelID: "gpt-5", Parts: parts}
	}
	user := func(id, text string, sec int) model.Message {
		return model.Message{ID: "msg_" + id, Role: model.RoleUser, Created: at(sec),
			Parts: []model.Part{{ID: "prt_" + id, Type: model.PartText, Text: text}}}
	}
	text := func(id, s string) model.Part { return model.Part{ID: "prt_" + id, Type: model.PartText, Text: s} }

	taskIn := `{"description":"Find text files","prompt":"List the text files","subagent_type":"explore"}`
	main := &model.Session{
		Info: model.SessionInfo{ID: "ses_main", Agent: model.AgentOpencode, Title: "Oracle scenario run",
			Directory: "/work/proj", Version: "1.18.33", Created: t0, Updated: fakeNow.Add(-2 * time.Hour),
			Messages: 6, ToolCalls: 8, Truncated: 2, Errors: 1, DataDir: dir, Source: filepath.Join(dir, "opencode.db")},
		Messages: []model.Message{
			user("u1", "Please run the scenario", 0),
			asst("a1", 1,
				text("t1", "I'll start with a few shell commands."),
				bash("hello", "echo hello from bash; echo second line", "Print two lines", "hello from bash\nsecond line\n", model.StatusCompleted, "", `{"exit":0}`, 2),
				bash("ansi", `printf '\033[31mred\033[0m plain\n'`, "Print ANSI, unicode and CRLF",
					"\x1b[31mred\x1b[0m plain\nemoji 🎉 ünïcödé\r\nsecond line\r\n\x1b]0;pwned\x07title\tTAB\nno trailing newline", model.StatusCompleted, "", `{"exit":0}`, 3),
				bash("fail", "exit 3", "Fail with exit code 3", "", model.StatusError, "about to fail\nthis goes to stderr\n\nexit code 3", `{"exit":3}`, 4),
			),
			asst("a2", 5, bash("seq", "seq 1 3000", "Print three thousand lines", truncated, model.StatusCompleted, "",
				`{"exit":0,"truncated":true,"outputPath":"`+recorded+`"}`, 6)),
			asst("a3", 8, bash("gone", "seq 1 99", "Spill file gone", gone, model.StatusCompleted, "", `{"truncated":true}`, 9),
				model.Part{ID: "prt_read", Type: model.PartTool, Tool: &model.ToolCall{
					CallID: "call_read", Tool: "read", Status: model.StatusCompleted,
					Input:  json.RawMessage(`{"filePath":"/work/proj/main.go"}`),
					Output: "<path>/work/proj/main.go</path>\n<type>file</type>\n<content>\n1: package main\n2: \n3: func main() { println(\"hi\") }\n\n(End of file - total 3 lines)\n</content>",
					Title:  "main.go", Start: at(9), End: at(9).Add(3 * time.Millisecond)}}),
			asst("a4", 10, model.Part{ID: "prt_task", Type: model.PartTool, Tool: &model.ToolCall{
				CallID: "call_task", Tool: "task", Status: model.StatusCompleted, Input: json.RawMessage(taskIn),
				Output: "task_id: ses_child\n\n<task_result>\nThere are 4 text files.\n</task_result>", Title: "Find text files",
				Start: at(11), End: at(40), ChildSessionID: "ses_child"}}),
			asst("a5", 41, text("t5", "All done.")),
		},
	}
	globIn := `{"pattern":"*.txt","path":"/work/proj"}`
	child := &model.Session{
		Info: model.SessionInfo{ID: "ses_child", Agent: model.AgentOpencode, Title: "Find text files (@explore subagent)",
			Directory: "/work/proj", ParentID: "ses_main", Created: at(11), Updated: at(40), Messages: 3, ToolCalls: 1, DataDir: dir},
		Messages: []model.Message{
			user("cu1", "List the text files", 11),
			asst("ca1", 12, model.Part{ID: "prt_glob", Type: model.PartTool, Tool: &model.ToolCall{
				CallID: "call_glob", Tool: "glob", Status: model.StatusCompleted, Input: json.RawMessage(globIn),
				Output: "/work/proj/big.txt\n/work/proj/notes.txt\n/work/proj/large.txt\n/work/proj/crlf.txt", Title: "",
				Start: at(13), End: at(13).Add(20 * time.Millisecond)}}),
			asst("ca2", 14, text("ct", "There are 4 text files.")),
		},
	}
	return &fakeStore{
		infos: []model.SessionInfo{main.Info, child.Info},
		sess:  map[string]*model.Session{"ses_main": main, "ses_child": child},
	}
}
