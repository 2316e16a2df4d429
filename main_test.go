package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// The CLI is checked against a real recording: testdata/opencode/openai.
const fixture = "testdata/opencode/openai"

type entry struct {
	File    string `json:"file"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Step    int    `json:"step"`
}

// lastRequest returns the manifest entry and body of the last main request
// of a recording.
func lastRequest(t *testing.T, dir string) (entry, map[string]any) {
	var m []entry
	b, err := os.ReadFile(filepath.Join(dir, "requests", "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	var last entry
	for _, e := range m {
		if e.Kind == "main" && e.Step >= last.Step {
			last = e
		}
	}
	body, err := os.ReadFile(filepath.Join(dir, "requests", last.File))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(body, &v))
	return last, v
}

func correx(t *testing.T, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestShowPrintsWhatReachedTheWire(t *testing.T) {
	last, body := lastRequest(t, fixture)
	n := 0
	for _, m := range body["messages"].([]any) {
		msg := m.(map[string]any)
		if msg["role"] != "tool" {
			continue
		}
		out, stderr, code := correx(t, "show", "--source", fixture+"/data", "--session", last.Session, "--call", msg["tool_call_id"].(string))
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, msg["content"], out, "call %s", msg["tool_call_id"])
		n++
	}
	assert.Greater(t, n, 25)
}

func TestWireEqualsCapturedConversation(t *testing.T) {
	last, body := lastRequest(t, fixture)
	out, stderr, code := correx(t, "wire", "--source", fixture+"/data", "--session", last.Session, "--provider", "openai-chat", "--text-only")
	require.Equal(t, 0, code, stderr)
	var got any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var want []any
	for _, m := range body["messages"].([]any) {
		if m.(map[string]any)["role"] != "system" {
			want = append(want, m)
		}
	}
	assert.Equal(t, want, got)
}

func TestShowJSONTruncationFacts(t *testing.T) {
	last, _ := lastRequest(t, fixture)
	out, _, code := correx(t, "calls", "--source", fixture+"/data", "--session", last.Session, "--json")
	require.Equal(t, 0, code)
	var calls []struct {
		CallID    string          `json:"call_id"`
		Tool      string          `json:"tool"`
		Truncated bool            `json:"truncated"`
		Input     json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &calls))
	var seq string
	for _, c := range calls {
		if c.Tool == "bash" && strings.Contains(string(c.Input), "seq 1 100000") {
			seq = c.CallID
			assert.True(t, c.Truncated)
		}
	}
	require.NotEmpty(t, seq, "the recording has a seq 1 100000 call")
	out, _, code = correx(t, "show", "--source", fixture+"/data", "--session", last.Session, "--call", seq, "--json")
	require.Equal(t, 0, code)
	var s struct {
		Result struct {
			Type string `json:"type"`
		} `json:"result"`
		Truncation struct {
			Kind       string `json:"kind"`
			FullLines  int    `json:"full_lines"`
			FullBytes  int    `json:"full_bytes"` // numbers here: the spill file is there
			SeenLines  int    `json:"seen_lines"`
			SpillPath  string `json:"spill_path"`
			SpillFound string `json:"spill_found"`
		} `json:"truncation"`
		SpillGone bool `json:"spill_gone"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	assert.Equal(t, "text", s.Result.Type)
	assert.Equal(t, "bash-tail", s.Truncation.Kind)
	assert.Equal(t, 100000, s.Truncation.FullLines) // seq 1 100000
	assert.Equal(t, 588895, s.Truncation.FullBytes) // len of 1..100000 with newlines
	assert.Less(t, s.Truncation.SeenLines, 2001)
	assert.True(t, strings.HasPrefix(s.Truncation.SpillPath, "/home/user/.local/share/opencode/tool-output/tool_"))
	assert.FileExists(t, s.Truncation.SpillFound)
	assert.False(t, s.SpillGone)
}

// show --json carries where each seen piece is in the full output: the
// 2 KB preview of a persisted Claude Code output is its first 527 lines
// (placed in the spill file), a read with offset 2990 saw lines 2990–2994
// of a 3,000-line file (its byte size unknown, and said so).
func TestShowJSONSeenRanges(t *testing.T) {
	type facts struct {
		Truncation struct {
			SeenLines   int    `json:"seen_lines"`
			FullLines   *int   `json:"full_lines"`
			FullBytes   *int   `json:"full_bytes"`
			FullUnknown string `json:"full_unknown"`
			Seen        []struct {
				Lines       *struct{ First, Last int } `json:"lines"`
				Placed      bool                       `json:"placed"`
				PartialLast bool                       `json:"partial_last"`
			} `json:"seen_ranges"`
			Added []struct {
				What string `json:"what"`
			} `json:"added"`
		} `json:"truncation"`
	}
	show := func(source, session, call string) facts {
		out, stderr, code := correx(t, "show", "--source", source, "--session", session, "--call", call, "--json")
		require.Equal(t, 0, code, stderr)
		var f facts
		require.NoError(t, json.Unmarshal([]byte(out), &f))
		return f
	}
	cc := show("testdata/claude-code/anthropic", "32e57bf8-f980-492f-9700-2d786061b4d4", "toolu_01RBNW889ArDoboXKXjxe1TD").Truncation
	require.Len(t, cc.Seen, 1)
	assert.Equal(t, &struct{ First, Last int }{1, 527}, cc.Seen[0].Lines)
	assert.True(t, cc.Seen[0].Placed)
	assert.Equal(t, 527, cc.SeenLines)
	require.NotNil(t, cc.FullLines)
	assert.Equal(t, 200000, *cc.FullLines)
	require.Len(t, cc.Added, 1, "the system reminder Claude Code appended")

	rd := show("testdata/opencode/anthropic/data", "ses_dd5702c07ffeZK99XZPMl8RkAH", "toolu_01o6GHTtdOoctNH0l3AKkR3k").Truncation
	require.Len(t, rd.Seen, 1)
	assert.Equal(t, &struct{ First, Last int }{2990, 2994}, rd.Seen[0].Lines)
	assert.Equal(t, 5, rd.SeenLines)
	require.NotNil(t, rd.FullLines)
	assert.Equal(t, 3000, *rd.FullLines)
	assert.Nil(t, rd.FullBytes)
	assert.NotEmpty(t, rd.FullUnknown)
}

func TestPipedInspectorPrintsTranscript(t *testing.T) {
	last, _ := lastRequest(t, fixture)
	out, stderr, code := correx(t, "--source", fixture+"/data", "--session", last.Session)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "truncated (bash-tail): model saw 1999 lines")
	assert.Contains(t, out, "of 100000 lines")
	// the recording prints \033[31m; it must come out inert
	assert.NotContains(t, out, "\x1b")
	assert.Contains(t, out, "␛[31mred")
}

func TestErrorsNameTheThing(t *testing.T) {
	last, _ := lastRequest(t, fixture)
	src := fixture + "/data"
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"show", "--source", src, "--session", "ses_nope", "--call", "x"}, 1, `"ses_nope"`},
		{[]string{"show", "--source", src, "--session", last.Session, "--call", "call_nope"}, 1, `call "call_nope" not found`},
		{[]string{"wire", "--source", src, "--session", last.Session, "--provider", "grok"}, 2, `unknown provider "grok"`},
		{[]string{"wire", "--source", src, "--session", last.Session, "--provider", "gemini", "--step", "99"}, 1, "not 99"},
		{[]string{"ls", "--source", "testdata/no-such-store"}, 1, "no-such-store"},
		{[]string{"calls", "--source", src}, 2, "calls needs --session"},
		{[]string{"frob"}, 2, `unknown command "frob"`},
	}
	for _, c := range cases {
		out, stderr, code := correx(t, c.args...)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, stderr, c.msg, "%v", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	}
}

func TestBadFileIsNamed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "broken.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"info": {"id": "ses_x"`), 0o644))
	_, stderr, code := correx(t, "ls", "--source", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "broken.json")
}

func TestNoAgentDataOpensTheDemo(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("OPENCODE_DB", "")
	out, stderr, code := correx(t)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "built-in demo")
	assert.Contains(t, out, "Oracle scenario run")
	assert.Contains(t, out, "(@explore subagent)")
}

// TestWireSaysWhatGeminiCLIDoesNotStore: the last request of a recorded
// Gemini CLI run carried the thoughtSignatures the model streamed on the
// run's live turns; `correx wire` leaves them out and says how many turns.
func TestWireSaysWhatGeminiCLIDoesNotStore(t *testing.T) {
	const dir = "testdata/gemini-cli/gemini-3.8-flash"
	last, body := lastRequest(t, dir)
	_, stderr, code := correx(t, "wire", "--source", dir+"/data", "--session", last.Session, "--provider", "gemini", "--step", "0")
	require.Equal(t, 0, code, stderr)
	// the resumed run's own model turns (the follow-up's first step) are
	// the ones that went with streamed signatures
	signed := 0
	for _, c := range body["contents"].([]any) {
		for _, p := range c.(map[string]any)["parts"].([]any) {
			if sig, ok := p.(map[string]any)["thoughtSignature"].(string); ok && sig != "skip_thought_signature_validator" {
				signed++
			}
		}
	}
	require.Greater(t, signed, 0)
	// the recorder's model signs one part of each turn
	assert.Contains(t, stderr, fmt.Sprintf("correx: note: %d model turn", signed))
	assert.Contains(t, stderr, "of this run went with the thoughtSignatures the model streamed; Gemini CLI does not store them, so they are left out here")
}

// wire decides the model's inputs from opencode's config on the machine:
// the local recording's global JSONC config (found through
// $XDG_CONFIG_HOME) makes it text-only, and the conversation is the one
// captured; --images overrides it, and the images come back.
func TestWireReadsTheModelsConfig(t *testing.T) {
	const local = "testdata/opencode/local"
	abs, err := filepath.Abs(local)
	require.NoError(t, err)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(abs, "root/home/user/.config"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("OPENCODE_CONFIG", "")
	t.Setenv("OPENCODE_CONFIG_CONTENT", "")
	t.Setenv("OPENCODE_CONFIG_DIR", "")
	last, body := lastRequest(t, local)
	var want []any
	for _, m := range body["messages"].([]any) {
		if m.(map[string]any)["role"] != "system" {
			want = append(want, m)
		}
	}
	out, stderr, code := correx(t, "wire", "--source", local+"/data", "--session", last.Session, "--provider", "openai-chat", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Capabilities struct {
			Decision, Source, Interleaved string
			Assumed, Overridden           bool
		}
		Conversation []any
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "text-only", got.Capabilities.Decision)
	assert.Equal(t, "reasoning_content", got.Capabilities.Interleaved)
	assert.Contains(t, got.Capabilities.Source, "root/home/user/.config/opencode/opencode.jsonc")
	assert.False(t, got.Capabilities.Assumed)
	assert.Equal(t, want, got.Conversation)

	out, _, code = correx(t, "wire", "--source", local+"/data", "--session", last.Session, "--provider", "openai-chat", "--images")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "ERROR: Cannot read image")
	assert.Contains(t, out, `"image_url"`)

	// show --json says the same of the call's model, and the override
	var shown struct {
		Capabilities struct {
			Decision, Declared string
			Overridden         bool
		}
	}
	callID := body["messages"].([]any)[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["id"].(string)
	out, stderr, code = correx(t, "show", "--source", local+"/data", "--session", last.Session, "--call", callID, "--json", "--images")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(out), &shown))
	assert.Equal(t, "all inputs", shown.Capabilities.Decision)
	assert.Equal(t, "text-only", shown.Capabilities.Declared)
	assert.True(t, shown.Capabilities.Overridden)
}

// A Claude Code request rebuilt from the transcript: `correx wire` warns on
// stderr naming the transcript's file, and calls/show --json say it.
func TestWireWarnsOfTranscriptRebuild(t *testing.T) {
	dir := "testdata/claude-code/parallel-resume"
	src := fixtures.ClaudeCopy(t, dir, fixtures.ClaudeWithoutRecords)
	const sid = "db2a77d6-2557-42c3-91dd-f61365951ee0"
	file := filepath.Join(src, "projects", "-home-user-proj", sid+".jsonl")
	_, stderr, code := correx(t, "wire", "--source", src, "--session", sid, "--provider", "anthropic", "--step", "2")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "correx: warning: "+file+": no api-request records (Claude Code before 2.1 logs none): "+model.RebuiltLabel+"\n")
	assert.Contains(t, stderr, "correx: wire: what is printed may be incomplete or not what the provider received", "the session's warnings are printed too")
	_, stderr, code = correx(t, "wire", "--source", dir, "--session", sid, "--provider", "anthropic", "--step", "2")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "as logged: no warning")

	out, _, code := correx(t, "calls", "--source", src, "--session", sid, "--json")
	require.Equal(t, 0, code)
	var calls []struct {
		CallID  string `json:"call_id"`
		Rebuilt string `json:"request_rebuilt"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &calls))
	require.NotEmpty(t, calls)
	for _, c := range calls {
		assert.Contains(t, c.Rebuilt, file+": ", c.CallID)
	}
	out, _, code = correx(t, "show", "--source", src, "--session", sid, "--call", calls[0].CallID, "--json")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"request_rebuilt": "`+file+`: no api-request records`)
}

// The transcript names a result's items that are not text (an image, a
// PDF, a ToolSearch tool reference) instead of printing an empty result.
func TestTranscriptNamesNonTextItems(t *testing.T) {
	dir := "testdata/claude-code/probe"
	out, stderr, code := correx(t, "transcript", "--source", dir, "--session", "9fc4c1d5-685e-4b73-8559-6e9bb4c58042")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "+ file: image/jpeg\n")
	assert.Contains(t, out, "+ file: application/pdf\n")
	assert.Contains(t, out, "+ tool reference: TaskCreate (")
}

// TestWirePagedIsWhole: `wire` of a conversation lowered a window at a
// time from outline pages read one ahead of the other (pages of one
// message, windows of two) prints the whole lowering's JSON, for the last
// step of every session of every fixture whose store pages it
// (sessions.MessageLister: opencode's and Kilo Code's) on every provider.
func TestWirePagedIsWhole(t *testing.T) {
	defer func(p, w int) { wirePage, render.WindowMessages = p, w }(wirePage, render.WindowMessages)
	wirePage, render.WindowMessages = 1, 2
	checked := 0
	for _, f := range fixtures.All(t) {
		dir := f.Source
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		infos, err := st.List(t.Context())
		require.NoError(t, err)
		for _, in := range infos {
			if _, ok := sessions.LazyFor(st, in.ID).(sessions.MessageLister); !ok {
				continue
			}
			full, err := st.Load(t.Context(), in.ID)
			require.NoError(t, err)
			if len(full.AssistantSteps()) == 0 || !render.Windowable(full, render.Anthropic, 0, render.Model{}) {
				continue
			}
			for _, p := range render.Providers {
				r, err := render.Render(full, p, 0, render.Model{})
				require.NoError(t, err)
				want, err := render.MarshalIndent(r.Value)
				require.NoError(t, err)
				out, stderr, code := correx(t, "wire", "--source", dir, "--session", in.ID, "--provider", string(p))
				require.Equal(t, 0, code, stderr)
				require.Equal(t, string(want)+"\n", out, "%s %s %s", dir, in.ID, p)
				checked++
			}
		}
		st.Close()
	}
	require.Greater(t, checked, 20)
}
