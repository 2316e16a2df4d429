package qwencode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"correx/model"
	"correx/sessions"
)

// The lines' shapes are those of Qwen Code 0.24.4's recordings
// (testdata/qwen-code), cut down.
const (
	sid       = "121f2bfc-8ec2-4463-86f8-a1be9fbb81bb"
	userLine  = `{"uuid":"u1","parentUuid":null,"sessionId":"` + sid + `","timestamp":"2026-12-01T23:05:25.249Z","type":"user","provenance":"real_user","cwd":"/home/user/proj","version":"0.24.4","message":{"role":"user","parts":[{"text":"Run it."}]}}`
	modelLine = `{"uuid":"a1","parentUuid":"u1","sessionId":"` + sid + `","timestamp":"2026-12-01T23:05:28.433Z","type":"assistant","cwd":"/home/user/proj","version":"0.24.4","model":"qwen3.8-plus","message":{"role":"model","parts":[{"text":"Thinking.","thought":true},{"functionCall":{"id":"call_1","name":"run_shell_command","args":{"command":"true"}}}]},"usageMetadata":{"promptTokenCount":1}}`
	toolLine  = `{"uuid":"t1","parentUuid":"a1","sessionId":"` + sid + `","timestamp":"2026-12-01T23:05:30.001Z","type":"tool_result","cwd":"/home/user/proj","version":"0.24.4","message":{"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"run_shell_command","response":{"error":"Exit Code: 3"}}}]},"toolCallResult":{"callId":"call_1","status":"error"}}`
	telemetry = `{"uuid":"s1","parentUuid":"t1","sessionId":"` + sid + `","timestamp":"2026-12-01T23:05:31.000Z","type":"system","subtype":"ui_telemetry","cwd":"/home/user/proj","version":"0.24.4","systemPayload":{}}`
)

// writeChat writes a chat file under root/projects/-home-user-proj/chats/.
func writeChat(t *testing.T, root string, lines ...string) string {
	t.Helper()
	dir := filepath.Join(root, "projects", "-home-user-proj", "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiscovery: the default ~/.qwen, $QWEN_HOME and $QWEN_RUNTIME_DIR
// are found when they hold chats, and a dir without any is not.
func TestDiscovery(t *testing.T) {
	home, other, runtime := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("QWEN_HOME", "")
	t.Setenv("QWEN_RUNTIME_DIR", "")
	if got := locations(); len(got) != 0 {
		t.Fatalf("no chats anywhere, found %q", got)
	}
	writeChat(t, filepath.Join(home, ".qwen"), userLine)
	if got := locations(); !slices.Equal(got, []string{filepath.Join(home, ".qwen")}) {
		t.Errorf("default dir: found %q", got)
	}
	writeChat(t, other, userLine)
	t.Setenv("QWEN_HOME", other)
	if got := locations(); !slices.Equal(got, []string{other}) {
		t.Errorf("$QWEN_HOME: found %q", got)
	}
	writeChat(t, runtime, userLine)
	t.Setenv("QWEN_RUNTIME_DIR", runtime)
	if got := locations(); !slices.Equal(got, []string{runtime, other}) {
		t.Errorf("$QWEN_RUNTIME_DIR and $QWEN_HOME: found %q", got)
	}
	// the global dir's settings name another runtime dir
	custom := t.TempDir()
	writeChat(t, custom, userLine)
	if err := os.WriteFile(filepath.Join(other, "settings.json"), []byte(`{"advanced":{"runtimeOutputDir":"`+custom+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := locations(); !slices.Equal(got, []string{runtime, custom, other}) {
		t.Errorf("advanced.runtimeOutputDir: found %q", got)
	}
	// every way in: the dir, projects/, a project, chats/, the file
	chat := filepath.Join(runtime, "projects", "-home-user-proj", "chats")
	for _, p := range []string{runtime, filepath.Dir(filepath.Dir(chat)), filepath.Dir(chat), chat, filepath.Join(chat, sid+".jsonl")} {
		st, ok, err := open(p, sessions.IsDir(p))
		if !ok || err != nil {
			t.Errorf("%s: not opened (%v)", p, err)
			continue
		}
		infos, err := st.List(context.Background())
		if err != nil || len(infos) != 1 || infos[0].ID != sid || infos[0].Agent != Agent {
			t.Errorf("%s: listed %+v, %v", p, infos, err)
		}
	}
}

// TestBadLine: a line that is not JSON is skipped with a warning naming
// the file and line, and the rest of the session is read.
func TestBadLine(t *testing.T) {
	path := writeChat(t, t.TempDir(), userLine, `{"uuid": broken`, modelLine, toolLine, telemetry)
	sess, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := path + ":2: "
	if len(sess.Warnings) != 1 || !strings.HasPrefix(sess.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", sess.Warnings, want)
	}
	calls := sess.ToolCalls()
	if len(calls) != 1 || calls[0].Call.Status != model.StatusError || calls[0].Call.Error != "Exit Code: 3" {
		t.Fatalf("calls %+v", calls)
	}
	if sess.Info.Version != "0.24.4" || sess.Info.Directory != "/home/user/proj" || len(sess.Messages) != 2 {
		t.Errorf("info %+v, %d messages (the telemetry line is no message)", sess.Info, len(sess.Messages))
	}
	if want := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path)))), "tmp", ProjectHash("/home/user/proj")); sess.Info.DataDir != want {
		t.Errorf("spill dir %q, want %q", sess.Info.DataDir, want)
	}
}

// TestClaudeTranscriptNotClaimed: Claude Code's transcripts chain their
// lines with uuid/parentUuid/sessionId too, in <config>/projects/<cwd>/;
// the driver claims neither the file nor its dirs.
func TestClaudeTranscriptNotClaimed(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".claude")
	dir := filepath.Join(root, "projects", "-home-user-proj")
	if err := os.MkdirAll(filepath.Join(dir, "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/user/proj","sessionId":"` + sid + `","version":"2.1.332","type":"user","message":{"role":"user","content":"Run it."},"uuid":"u1","timestamp":"2026-12-01T23:05:25.249Z"}`
	for _, f := range []string{filepath.Join(dir, sid+".jsonl"), filepath.Join(dir, "chats", sid+".jsonl")} {
		if err := os.WriteFile(f, []byte(claude+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{root, filepath.Join(root, "projects"), dir, filepath.Join(dir, "chats"), filepath.Join(dir, sid+".jsonl")} {
		if _, ok, err := open(p, sessions.IsDir(p)); ok || err != nil {
			t.Errorf("%s: claimed (%v)", p, err)
		}
	}
}

// TestDetectShapes: the head cut inside a line ("...") and the tail
// starting inside one are markers; whole head and tail lines are not.
func TestDetectShapes(t *testing.T) {
	header := "Tool output was too large and has been truncated.\nThe full output has been saved to: /h/.qwen/tmp/x/run_shell_command_0123456789ab.output\nTo read the complete output, use the read_file tool with the absolute file path above.\nThe truncated output below shows the beginning and end of the content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\nTruncated part of the output:\n"
	for _, c := range []struct {
		head, tail string
		markers    int
	}{
		{"Command: seq\n0001\n00...", "...02\n0300", 4},
		{"Command: seq\n0001", "0300", 2},
	} {
		text := header + c.head + separator + c.tail
		tr := detect("run_shell_command", text)
		if tr == nil || tr.SpillPath != "/h/.qwen/tmp/x/run_shell_command_0123456789ab.output" || len(tr.Markers) != c.markers {
			t.Errorf("%q: %+v, want %d markers", c.head, tr, c.markers)
		}
	}
	if detect("read_file", "plain text\n---\n") != nil {
		t.Error("a text without the header is no truncation")
	}
}

// TestActiveBranch: a rewind continues from an earlier line; the lines it
// undid are off the chain of the last line and are not the session's. A
// chat_compression line is named with its file and line.
func TestActiveBranch(t *testing.T) {
	undone := strings.Replace(strings.Replace(modelLine, `"uuid":"a1"`, `"uuid":"a0"`, 1), `"id":"call_1"`, `"id":"call_0"`, 1)
	again := `{"uuid":"u2","parentUuid":"u1","sessionId":"` + sid + `","timestamp":"2026-12-01T23:06:00.000Z","type":"system","subtype":"chat_compression","cwd":"/home/user/proj","version":"0.24.4","systemPayload":{}}`
	redo := strings.Replace(modelLine, `"parentUuid":"u1"`, `"parentUuid":"u2"`, 1)
	path := writeChat(t, t.TempDir(), userLine, undone, again, redo, toolLine)
	sess, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := sess.ToolCalls()
	if len(calls) != 1 || calls[0].Call.CallID != "call_1" {
		t.Errorf("calls %+v, want only call_1 (call_0 was rewound)", calls)
	}
	if len(sess.Warnings) != 1 || !strings.HasPrefix(sess.Warnings[0], path+":3: Qwen Code compressed") {
		t.Errorf("warnings %q", sess.Warnings)
	}
	upto := len(sess.Messages) - 1
	conv, _ := conversation(sess, upto, nil)
	if g := gaps(sess, upto, conv); len(g) != 2 || g[0].Why != firstPromptGap || g[1].Why != compressedGap {
		t.Errorf("gaps %+v, want the first prompt's reminders and the compression", g)
	}
}
