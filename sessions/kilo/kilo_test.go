package kilo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
	"correx/sessions/opencode"
)

const (
	first  = "../../testdata/kilo/oracle-model"
	second = "../../testdata/kilo/oracle-model-second"
)

// isolated gives the test a home of its own, so that this machine's
// agent data is never read.
func isolated(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("KILO_DB", "")
	return home
}

func load(t *testing.T, source string) (sessions.Store, []*model.Session) {
	t.Helper()
	st, err := sessions.Open(source)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	infos, err := st.List(context.Background())
	require.NoError(t, err)
	var out []*model.Session
	for _, in := range infos {
		s, err := st.Load(context.Background(), in.ID)
		require.NoError(t, err)
		out = append(out, s)
	}
	return st, out
}

// TestOpenKiloStore: a Kilo data dir and its kilo.db open as Kilo's,
// with its version, through opencode's reader (the lazy outline path
// too); an opencode data dir is not claimed.
func TestOpenKiloStore(t *testing.T) {
	isolated(t)
	for _, src := range []string{filepath.Join(first, "data"), filepath.Join(first, "data", "kilo.db")} {
		st, sess := load(t, src)
		require.Len(t, sess, 1, src)
		in := sess[0].Info
		require.Equal(t, Agent, in.Agent, src)
		require.Equal(t, "7.7.9", in.Version)
		require.Equal(t, "Kilo Code", in.Agent.Name())
		require.True(t, in.Agent.UsesOpencode())
		require.Equal(t, "flagged", in.TruncatedBy())
		require.Equal(t, 13, in.ToolCalls)
		require.NotNil(t, sessions.LazyFor(st, in.ID), "the outline path of opencode's reader")
	}
	fifo := filepath.Join(t.TempDir(), "kilo.db")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := sessions.Open(fifo)
	require.ErrorContains(t, err, "not a regular file", "a FIFO named kilo.db is refused, not opened")
	text := filepath.Join(t.TempDir(), "kilo.db")
	require.NoError(t, os.WriteFile(text, []byte("not a database at all"), 0o644))
	_, err = sessions.Open(text)
	require.ErrorContains(t, err, "not a SQLite database")

	_, ok, err := open(filepath.Join("../../testdata/opencode/openai/data"), true)
	require.NoError(t, err)
	require.False(t, ok, "an opencode data dir is not Kilo's")
	_, ok, _ = open(filepath.Join("../../testdata/opencode/openai/data/opencode.db"), false)
	require.False(t, ok)
}

// TestDiscovery: $XDG_DATA_HOME/kilo/kilo.db, and $KILO_DB relative to
// the data dir or absolute (its spills then in the data dir).
func TestDiscovery(t *testing.T) {
	home := isolated(t)
	data := filepath.Join(home, ".local", "share", "kilo")
	require.Empty(t, locations())
	require.NoError(t, os.MkdirAll(data, 0o755))
	db, err := os.ReadFile(filepath.Join(first, "data", "kilo.db"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(data, "kilo.db"), db, 0o644))
	require.Equal(t, []string{filepath.Join(data, "kilo.db")}, locations())
	require.Contains(t, sessions.Discover(), filepath.Join(data, "kilo.db"))

	elsewhere := filepath.Join(home, "elsewhere.db")
	require.NoError(t, os.WriteFile(elsewhere, db, 0o644))
	t.Setenv("KILO_DB", elsewhere)
	require.Equal(t, []string{elsewhere, filepath.Join(data, "kilo.db")}, locations())
	_, sess := load(t, elsewhere)
	require.Equal(t, Agent, sess[0].Info.Agent)
	require.Equal(t, data, sess[0].Info.DataDir, "a $KILO_DB elsewhere keeps its spills in the data dir")

	t.Setenv("KILO_DB", "other.db")
	require.Equal(t, filepath.Join(data, "other.db"), envDB(), "relative to the data dir")
}

// TestEnvironmentDetails: Kilo's injectEditorContext, from the message's
// time, the session's directory and path, and its editor context.
func TestEnvironmentDetails(t *testing.T) {
	at := time.Date(2026, 12, 1, 23, 5, 33, 916e6, time.UTC)
	s := &model.Session{Info: model.SessionInfo{Directory: "/home/user/proj/sub/deep", Path: "sub/deep"}}
	m := &model.Message{Role: model.RoleUser, Created: at}
	require.Equal(t, "\n\n<environment_details>\nMessage time: 2026-12-01T23:05:33Z\nWorking directory: /home/user/proj/sub/deep\nWorkspace root folder: /home/user/proj\n</environment_details>",
		EnvironmentDetails(s, m))
	m.EditorContext = json.RawMessage(`{"worktree":"","activeFile":"a.go","visibleFiles":["a.go","b.go"],"openTabs":["c.go"]}`)
	require.Equal(t, "\n\n<environment_details>\nMessage time: 2026-12-01T23:05:33Z\nWorking directory: /home/user/proj/sub/deep\nActive file: a.go\nVisible files:\n  a.go\n  b.go\nOpen tabs:\n  c.go\n</environment_details>",
		EnvironmentDetails(s, m))
	m.Parts = []model.Part{{Type: model.PartText, Synthetic: true, Text: "\n\n<environment_details>\nstored\n</environment_details>"}}
	require.Empty(t, EnvironmentDetails(s, m), "a message that holds one gets no other")
}

// TestUserMessagesOnTheWire: Kilo stores one text part per prompt, and
// sends each user message with its <environment_details> (not stored)
// after it, as the captured request has it.
func TestUserMessagesOnTheWire(t *testing.T) {
	isolated(t)
	_, sess := load(t, filepath.Join(first, "data"))
	s := sess[0]
	require.Len(t, s.Messages[0].Parts, 1)
	got, err := render.Conversation(s, render.OpenAIChat, 0, render.Model{})
	require.NoError(t, err)
	gb, err := render.Marshal(got)
	require.NoError(t, err)
	var conv []map[string]any
	require.NoError(t, json.Unmarshal(gb, &conv))
	b, err := os.ReadFile(filepath.Join(first, "requests", "010.json"))
	require.NoError(t, err)
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(b, &req))
	users := 0
	for i, m := range conv {
		content, _ := m["content"].([]any)
		if m["role"] != "user" || len(content) != 2 {
			continue
		}
		require.Equal(t, req.Messages[i+1]["content"], content) // after the system message
		if env, _ := content[1].(map[string]any)["text"].(string); strings.HasPrefix(env, "\n\n<environment_details>\nMessage time: ") {
			users++
		}
	}
	require.Equal(t, 2, users, "the prompt and the follow-up")
	for _, m := range conv {
		if m["role"] == "assistant" && m["content"] == nil {
			return // a step without text: "content": null
		}
	}
	t.Fatal("no assistant message with null content")
}

// TestSpillsAndMarkers: opencode's bash tail cut with its spill in
// <data>/tool-output, and Kilo's grep footer as a marker.
func TestSpillsAndMarkers(t *testing.T) {
	isolated(t)
	_, sess := load(t, filepath.Join(first, "data"))
	spills := sessions.SpillsFor(sess[0].Info)
	var tail *model.Truncation
	for _, r := range sess[0].ToolCalls() {
		if tr := formatters.Visible(r.Call, spills).Truncation; tr != nil && tr.Kind == model.TruncBashTail {
			tail = tr
		}
	}
	require.NotNil(t, tail)
	require.Empty(t, spills.SpillProblem(tail.SpillFound), "inside Kilo's spill folder")
	require.Equal(t, "tool-output", filepath.Base(filepath.Dir(tail.SpillFound)))
	require.NotNil(t, tail.FullLines)
	require.Equal(t, 2100, *tail.FullLines)

	_, sess = load(t, filepath.Join(second, "data"))
	found := false
	for _, s := range sess {
		for _, r := range s.ToolCalls() {
			if r.Call.Tool != "grep" || !strings.HasPrefix(r.Call.Output, "Found 100") {
				continue
			}
			v := formatters.Visible(r.Call, sessions.SpillsFor(s.Info))
			require.NotNil(t, v.Truncation)
			mk := v.Truncation.Markers
			require.Len(t, mk, 2)
			require.Equal(t, "\n\n100 matches limit reached. Use limit=200 for more, or refine pattern.", v.Text[mk[1].Start:mk[1].End])
			found = true
		}
	}
	require.True(t, found, "the capped grep")
}

// TestCapabilities: a Kilo model's inputs are decided from Kilo's config
// (~/.config/kilo/kilo.json of the recording), as opencode decides them.
func TestCapabilities(t *testing.T) {
	isolated(t)
	var rec struct {
		Env []string `json:"env"`
	}
	b, err := os.ReadFile(filepath.Join(first, "record.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	_, sess := load(t, filepath.Join(first, "data"))
	caps, warns := opencode.Capabilities(sess[0], opencode.FixtureMachine(filepath.Join(first, "root"), rec.Env))
	require.Empty(t, warns)
	c := caps.For("oracle-kilo", "oracle-model")
	require.False(t, c.Assumed, c.Note)
	require.Equal(t, "~/.config/kilo/kilo.json", c.Source)
	require.Equal(t, []model.InputKind{model.InputImage}, c.Input)
}

// TestProjectConfig: a project's .kilo/kilo.jsonc is merged over the
// global kilo.json, opencode's way, under Kilo's names (an opencode.json
// of the same model in ~/.config/opencode is not Kilo's).
func TestProjectConfig(t *testing.T) {
	isolated(t)
	root := t.TempDir()
	write := func(p, text string) {
		p = filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	declared := func(input string) string {
		return `{"provider":{"p":{"npm":"@ai-sdk/openai-compatible","models":{"m":{"modalities":{"input":[` + input + `]}}}}}}`
	}
	write("home/user/.config/kilo/kilo.json", declared(`"text","image"`))
	write("home/user/.config/opencode/opencode.json", declared(`"text","pdf"`))
	write("home/user/proj/.git/HEAD", "ref: refs/heads/main\n")
	write("home/user/proj/.kilo/kilo.jsonc", "// text only here\n"+declared(`"text"`))
	mc := opencode.FixtureMachine(root, []string{"HOME=/home/user"})
	info := func(dir string) model.SessionInfo { return model.SessionInfo{Agent: Agent, Directory: dir} }
	caps, warns := opencode.ModelCapabilities(info("/home/user/proj"), []opencode.ModelRef{{ProviderID: "p", ModelID: "m"}}, mc)
	require.Empty(t, warns)
	c := caps.For("p", "m")
	require.Equal(t, "~/proj/.kilo/kilo.jsonc", c.Source)
	require.Empty(t, c.Input)
	caps, _ = opencode.ModelCapabilities(info("/home/user/elsewhere"), []opencode.ModelRef{{ProviderID: "p", ModelID: "m"}}, mc)
	c = caps.For("p", "m")
	require.Equal(t, "~/.config/kilo/kilo.json", c.Source)
	require.Equal(t, []model.InputKind{model.InputImage}, c.Input)
}
