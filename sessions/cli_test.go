package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"correx/formatters"
	"correx/model"
)

// The Codex CLI and Gemini CLI fixtures are real recordings (testdata/record).
const (
	codexFixture  = "../testdata/codex/gpt-5.5/data"
	geminiFixture = "../testdata/gemini-cli/gemini-3.8-flash/data"
)

func loadOnly(t *testing.T, path string) (Store, *model.Session) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { st.Close() })
	infos, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 {
		t.Fatalf("%s: %d sessions, want 1", path, len(infos))
	}
	sess, err := st.Load(context.Background(), infos[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return st, sess
}

func treeHash(t *testing.T, dir string) [32]byte {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			h.Write([]byte(p))
			h.Write(b)
		}
		return nil
	})
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func TestCodexRollout(t *testing.T) {
	before := treeHash(t, codexFixture)
	_, sess := loadOnly(t, codexFixture)
	if treeHash(t, codexFixture) != before {
		t.Fatal("reading the rollouts changed them")
	}
	in := sess.Info
	if in.Agent != model.AgentCodex || in.Version != "0.171.0" || in.Directory != "/home/user/proj" {
		t.Errorf("info = %+v", in)
	}
	if !strings.HasPrefix(in.Title, "Please run the correx oracle scenario for Codex") {
		t.Errorf("title %q", in.Title)
	}
	if in.ToolCalls != 14 || in.Truncated != 2 || len(sess.AssistantSteps()) != 12 {
		t.Errorf("%d calls, %d truncated, %d steps; want 14, 2, 12", in.ToolCalls, in.Truncated, len(sess.AssistantSteps()))
	}
	if len(sess.Warnings) > 0 {
		t.Errorf("warnings: %v", sess.Warnings)
	}
	var patches, truncated int
	for _, r := range sess.ToolCalls() {
		c := r.Call
		if c.Sent == nil || c.Status != model.StatusCompleted {
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
			if tr.Kind != model.TruncCodexTokens || len(tr.Markers) != 3 || tr.FullBytes != nil {
				t.Errorf("truncation %+v", tr)
			}
			for _, m := range tr.Markers {
				mark := v.Text[m.Start:m.End]
				if !strings.Contains(mark, "truncated") && !strings.Contains(mark, "omitted") {
					t.Errorf("marker %q", mark)
				}
			}
		}
	}
	if patches != 3 || truncated != 2 {
		t.Errorf("%d patches, %d truncated", patches, truncated)
	}
}

func TestGeminiChat(t *testing.T) {
	before := treeHash(t, geminiFixture)
	_, sess := loadOnly(t, geminiFixture)
	if treeHash(t, geminiFixture) != before {
		t.Fatal("reading the chats changed them")
	}
	in := sess.Info
	if in.Agent != model.AgentGeminiCLI || in.Directory != "/home/user/proj" || in.ToolCalls != 13 || in.Errors != 2 || in.Truncated != 1 {
		t.Errorf("info = %+v", in)
	}
	if steps := len(sess.AssistantSteps()); steps != 11 {
		t.Errorf("%d steps, want 11", steps)
	}
	ref, ok := sess.FindCall("run_shell_command__run_shell_command_1796011006910_0")
	if !ok {
		// ids change with every recording: find the huge one by its input
		for _, r := range sess.ToolCalls() {
			if strings.Contains(string(r.Call.Input), "seq 1 200000") {
				ref, ok = r, true
			}
		}
	}
	if !ok {
		t.Fatal("no seq call")
	}
	v := formatters.Visible(ref.Call, SpillsFor(sess.Info))
	tr := v.Truncation
	if tr == nil || tr.Kind != model.TruncGeminiSpill || len(tr.Markers) != 2 || tr.SpillFound == "" || tr.FullBytes == nil || *tr.FullBytes < 1_288_000 {
		t.Fatalf("truncation %+v", tr)
	}
	if strings.HasPrefix(ref.Call.CallID, "run_shell_command__") {
		t.Errorf("call id %q keeps the stored prefix", ref.Call.CallID)
	}
}

func TestCLIFilesOpenDirectly(t *testing.T) {
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	if len(rollouts) != 1 || len(chats) != 1 {
		t.Fatalf("fixtures: %v %v", rollouts, chats)
	}
	for path, agent := range map[string]model.Agent{rollouts[0]: model.AgentCodex, chats[0]: model.AgentGeminiCLI} {
		_, sess := loadOnly(t, path)
		if sess.Info.Agent != agent {
			t.Errorf("%s: agent %s", path, sess.Info.Agent)
		}
	}
}

// copyFixture copies a fixture file into dir/rel and returns its path.
func copyFixture(t *testing.T, src, dir, rel string) string {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestCodexBadLinesAndZstd(t *testing.T) {
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	home := t.TempDir()
	dst := copyFixture(t, rollouts[0], home, "sessions/2026/01/02/"+filepath.Base(rollouts[0]))
	f, _ := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("this is not json\n{\"timestamp\":\"2026-01-02T00:00:00Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"mess")
	f.Close()
	zst := filepath.Join(home, "archived_sessions", "rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000000.jsonl.zst")
	os.MkdirAll(filepath.Dir(zst), 0o755)
	os.WriteFile(zst, []byte{0x28, 0xb5, 0x2f, 0xfd}, 0o644)
	st, sess := loadOnly(t, home)
	var bad, partial, zstd bool
	for _, w := range append(Warnings(st), sess.Warnings...) {
		bad = bad || strings.Contains(w, filepath.Base(dst)+":98: skipped a line that is not JSON")
		partial = partial || strings.Contains(w, filepath.Base(dst)+":99: skipped")
		zstd = zstd || strings.Contains(w, "zstd-compressed rollouts are not supported")
	}
	if !bad || !partial || !zstd {
		t.Errorf("warnings (bad line %v, partial line %v, zst %v): %q", bad, partial, zstd, append(Warnings(st), sess.Warnings...))
	}
	if sess.Info.ToolCalls != 14 {
		t.Errorf("%d calls after bad lines", sess.Info.ToolCalls)
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
	_, sess := loadOnly(t, dir)
	if sess.Info.ToolCalls != 12 || len(sess.AssistantSteps()) != 9 {
		t.Errorf("%d calls, %d steps; want 12, 9", sess.Info.ToolCalls, len(sess.AssistantSteps()))
	}
	for _, r := range sess.ToolCalls() {
		if r.Call.Sent == nil {
			t.Errorf("call %s has no result", r.Call.CallID)
		}
	}
}

func TestDiscoverCLI(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("OPENCODE_DB", "")
	codex := filepath.Join(home, "codex")
	t.Setenv("CODEX_HOME", codex)
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(home, "g"))
	rollouts, _ := filepath.Glob(codexFixture + "/sessions/*/*/*/rollout-*.jsonl")
	copyFixture(t, rollouts[0], codex, "sessions/2026/01/02/"+filepath.Base(rollouts[0]))
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	copyFixture(t, chats[0], filepath.Join(home, "g", ".gemini"), "tmp/proj/chats/"+filepath.Base(chats[0]))
	got := Discover()
	want := []string{codex, filepath.Join(home, "g", ".gemini")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Discover() = %v, want %v", got, want)
	}
	stores, errs := OpenAll(got)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	all := Combine(stores...)
	infos, err := all.List(context.Background())
	if err != nil || len(infos) != 2 || infos[0].Agent == infos[1].Agent {
		t.Fatalf("combined list %v %v", infos, err)
	}
}

func TestGeminiBadLines(t *testing.T) {
	chats, _ := filepath.Glob(geminiFixture + "/tmp/*/chats/session-*.jsonl")
	dir := t.TempDir()
	dst := copyFixture(t, chats[0], dir, "tmp/proj/chats/"+filepath.Base(chats[0]))
	b, _ := os.ReadFile(dst)
	lines := strings.Count(string(b), "\n")
	f, _ := os.OpenFile(dst, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("garbage\n{\"id\":\"x\",\"type\":\"gem")
	f.Close()
	_, sess := loadOnly(t, dir)
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
	if sess.Info.ToolCalls != 13 {
		t.Errorf("%d calls after bad lines", sess.Info.ToolCalls)
	}
}
