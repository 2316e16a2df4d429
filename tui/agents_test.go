package tui

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// The agents' recorded fixtures, as sessions.Open takes them (see
// render/*conformance_test.go).
var agentFixtures = []struct {
	name, dir string
	agent     model.Agent
	label     string // the picker's agent column
	header    string // the session header's agent and version
	own       string // the provider label of the agent's own wire
}{
	{"opencode-v1", "../testdata/opencode/anthropic/data", model.AgentOpencode, "opencode v1", "opencode 1.18.33 · v1", "Anthropic"},
	{"opencode-v2", "../testdata/opencode/v2-anthropic/data", model.AgentOpencode, "opencode v2", "opencode 1.18.33 · v2", "Anthropic"},
	{"claude-code", "../testdata/claude-code/anthropic", model.AgentClaudeCode, "Claude Code", "Claude Code 2.1.332", "Anthropic"},
	{"codex", "../testdata/codex/gpt-5.5/data", model.AgentCodex, "Codex", "Codex 0.171.0", "OpenAI Responses"},
	{"gemini-cli", "../testdata/gemini-cli/gemini-3.8-flash/data", model.AgentGeminiCLI, "Gemini CLI", "Gemini CLI", "Gemini"},
	{"copilot", "../testdata/copilot/copilot/data", "copilot", "GitHub Copilot CLI", "GitHub Copilot CLI 1.0.102", "OpenAI Chat"},
}

func needDir(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixture %s not recorded", dir)
	}
}

// openStores opens several fixture stores in one TUI.
func openStores(t *testing.T, w, hh int, dirs ...string) *harness {
	t.Helper()
	var stores []sessions.Store
	for _, d := range dirs {
		needDir(t, d)
		s, err := sessions.Open(d)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	return newHarness(t, Options{Stores: stores}, w, hh)
}

// openSession selects the picker row of the top-level session whose
// agent label is label and opens it.
func openSession(t *testing.T, h *harness, label string) *sessionView {
	t.Helper()
	h.key("g")
	for k, i := range h.m.picker.shown {
		if in := h.m.picker.all[i]; in.ParentID == "" && agentLabel(in) == label {
			h.m.picker.sel = k
			h.key("enter")
			v := h.m.current()
			require.NotNil(t, v, "session did not open")
			return v
		}
	}
	t.Fatalf("no %s session in the picker", label)
	return nil
}

func selectRow(t *testing.T, h *harness, pred func(ci *callInfo) bool) *callInfo {
	t.Helper()
	v := h.m.current()
	i, ok := findRow(v, pred)
	require.True(t, ok, "no such call")
	v.list.Select(i)
	h.send(nil)
	return v.list.rows[i].info()
}

func TestAgentsPickerHeaderAndPanes(t *testing.T) {
	var dirs []string
	for _, f := range agentFixtures {
		dirs = append(dirs, f.dir)
	}
	h := openStores(t, 120, 30, dirs...)
	out := h.plain()
	require.Contains(t, out, "AGENT")
	for _, f := range agentFixtures {
		require.Contains(t, out, f.label, "agent column")
	}
	checkFrame(t, h.raw(), 120, 30)

	crossed := 0 // Pipeline first screens whose line count gained a digit
	for _, f := range agentFixtures {
		t.Run(f.name, func(t *testing.T) {
			// typing the agent's name filters the picker to its sessions
			for h.m.page != pagePicker {
				h.key("esc")
			}
			if h.m.picker.filter.Value() != "" {
				h.key("esc")
			}
			h.key("/", "type:"+strings.ToLower(f.label), "enter")
			require.NotEmpty(t, h.m.picker.shown)
			for _, i := range h.m.picker.shown {
				require.Equal(t, f.agent, h.m.picker.all[i].Agent)
			}
			v := openSession(t, h, f.label)
			require.Equal(t, f.agent, v.data.sess.Info.Agent)
			require.NotEmpty(t, v.list.rows, "no calls")
			require.Contains(t, h.plain(), f.header, "session header")

			// the agent's own provider is "as sent", the others projections
			h.key("3")
			for v.provider.Label() != f.own {
				h.key("p")
			}
			out := h.plain()
			require.Contains(t, out, f.own+" · as sent")
			require.NotContains(t, out, "projection")
			h.key("p")
			require.Contains(t, h.plain(), v.provider.Label()+" · projection ("+agentName(f.agent)+" sent "+f.own+")")
			for p := 1; p <= 6; p++ {
				h.key(string(rune('0' + p)))
				checkFrame(t, h.raw(), 120, 30)
			}
			// every call's panes render on the agent's own wire
			for v.provider.Label() != f.own {
				h.key("p")
			}
			for i := range v.list.rows {
				if v.list.rows[i].data != v.data {
					continue
				}
				v.list.Select(i)
				for _, p := range []string{"3", "6"} {
					h.key(p)
					require.NotContains(t, h.plain(), "render error", "call %d pane %s", i, p)
				}
				require.Contains(t, v.raw[panePipeline], "━━ 5 wire · "+f.own+" · as sent")
				if pipelineFirstScreen(t, v) {
					crossed++
				}
				h.send(nil)
				if requestStep(v.list.rows[i].info(), v.data.sess) > 0 && f.agent != model.AgentGeminiCLI {
					require.NotContains(t, v.raw[panePipeline], "not found by its call id", "call %d", i)
				}
			}
		})
	}
	require.Positive(t, crossed, "no Pipeline's wire stage took its line count past a power of ten")
}

func stageOrder(t *testing.T, text string) {
	t.Helper()
	at := -1
	for _, h := range []string{"━━ 1 stored state", "━━ 2 model-visible text ━━", "━━ 3 bounded ━━", "━━ 4 ToolResultValue ━━", "━━ 5 wire · "} {
		i := strings.Index(text, h)
		require.Greater(t, i, at, "stage %q out of order", h)
		at = i
	}
}

// A v2 bash call cut by ToolOutputStore.bound: its stored state, the cut's
// facts, the value and the wire.
func TestPipelineV2TruncatedBash(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		h := openStores(t, sz[0], sz[1], "../testdata/opencode/v2/data")
		v := openSession(t, h, "opencode v2")
		ci := selectRow(t, h, func(ci *callInfo) bool {
			return ci.call().Tool == "bash" && ci.vis.Truncation != nil && ci.vis.Truncation.Kind == model.TruncV2Bound
		})
		h.key("6")
		require.Equal(t, panePipeline, v.pane)
		text := v.raw[panePipeline]
		stageOrder(t, text)
		for _, s := range []string{
			"━━ 1 stored state · v2 tool state (session_message) ━━",
			"state.structured:\n" + string(ci.call().Structured) + "\n",
			"state.content: 1 item\n",
			"state.outputPaths:\n  " + ci.call().OutputPaths[0] + "\n",
			"→ unchanged: the one text item\n",
			"→ cut to head+tail, marker added (v2-bound",
			"kind: v2-bound\n",
			"seen: " + truncBadge(ci.vis.Truncation) + "\n",
			"→ text: the text above\n",
			"━━ 5 wire · OpenAI Chat · projection · lowering native ━━\n→ in a tool message: the text as it is",
			`"tool_call_id": "` + ci.call().CallID + `"`,
		} {
			require.Contains(t, text, s)
		}
		// the stored text and the visible text are both there, exactly
		require.Equal(t, 2, strings.Count(text, ci.vis.Text))
		// the marker is marked where stage 2 shows it
		tv := &v.views[panePipeline]
		require.Len(t, tv.marks, 1)
		m := tv.marks[0]
		require.Contains(t, text[m.Start:m.End], "... output truncated; full content saved to ")
		require.Greater(t, m.Start, strings.Index(text, "━━ 2 model-visible text"))
		require.Contains(t, ansi.Strip(strings.Join(v.headers[panePipeline], " ")), "lowering native (v2)")
		checkFrame(t, h.raw(), sz[0], sz[1])
		// L on a v2 session says there is nothing to switch
		h.key("L")
		require.Contains(t, h.m.status.text, "v2 sessions are native only")
		require.Equal(t, text, v.raw[panePipeline])
	}
}

func pixelRead(ci *callInfo) bool {
	return ci.call().Tool == "read" && len(ci.call().Attachments) > 0
}

// A v1 read of an image: the attachment in the stored state, a content
// value, and the wire by provider and lowering.
func TestPipelineV1ImageRead(t *testing.T) {
	h := openStores(t, 100, 30, "../testdata/opencode/anthropic/data")
	v := openSession(t, h, "opencode v1")
	ci := selectRow(t, h, pixelRead)
	h.key("6")
	text := v.raw[panePipeline]
	stageOrder(t, text)
	for _, s := range []string{
		"━━ 1 stored state · v1 tool part (state) ━━",
		"state.output (1 line · 23 B, no final newline):\nImage read successfully\n",
		"state.attachments: 1\n  [0] image/png",
		ci.call().Attachments[0].URL + "\n",
		"→ unchanged text: state.output; the attachments become file items of the result",
		"→ unchanged: not truncated",
		"→ content: 2 items (1 file), not one string",
		`"type": "content"`,
		"━━ 5 wire · Anthropic · as sent · lowering ai-sdk ━━\n→ in a tool_result block of a user message: items kept: text and media blocks",
		`"media_type": "image/png"`,
	} {
		require.Contains(t, text, s)
	}
	checkFrame(t, h.raw(), 100, 30)

	// native lowering: the content goes out as one JSON string
	h.key("L")
	text = v.raw[panePipeline]
	stageOrder(t, text)
	require.Contains(t, text, "→ native lowering: the text and media of the result are sent as one JSON string")
	require.Contains(t, text, `visible text (1 line · `)
	require.Contains(t, text, `[{"type":"text","text":"Image read successfully"},{"type":"media","mediaType":"image/png","data":"iVBOR`)
	require.Contains(t, text, "━━ 5 wire · Anthropic · as sent · lowering native ━━\n→ in a tool_result block of a user message: stringified JSON (native lowering)")
	require.NotContains(t, text, `"media_type": "image/png"`)
	h.key("L")

	// OpenAI Chat (AI SDK) moves the image to a synthetic user message
	for v.provider != "openai-chat" {
		h.key("p")
	}
	text = v.raw[panePipeline]
	require.Contains(t, text, "━━ 5 wire · OpenAI Chat · projection · lowering ai-sdk ━━\n→ in a tool message: images moved to a synthetic user message")
	require.Contains(t, text, "Attached media from tool result:")
}

// L switches the Wire pane of a v1 session between the AI SDK and the
// native lowering; each is rendered and cached under its own key.
func TestLoweringToggleWire(t *testing.T) {
	for _, dir := range []string{"../testdata/opencode/anthropic/data", "../testdata/opencode/anthropic-native/data"} {
		h := openStores(t, 120, 30, dir)
		v := openSession(t, h, "opencode v1")
		selectRow(t, h, pixelRead)
		h.key("3")
		require.Equal(t, "anthropic", string(v.provider))
		aisdk := v.raw[paneWire]
		require.Contains(t, aisdk, `"media_type": "image/png"`)
		require.Contains(t, h.plain(), "Anthropic · as sent · lowering ai-sdk (L)")
		h.key("L")
		require.Equal(t, model.LoweringNative, h.m.lowering)
		native := v.raw[paneWire]
		require.NotEqual(t, aisdk, native)
		require.Contains(t, native, `"content": "[{\"type\":\"text\",\"text\":\"Image read successfully\"},{\"type\":\"media\",\"mediaType\":\"image/png\",\"data\":\"iVBOR`)
		require.Contains(t, h.plain(), "Anthropic · as sent · lowering native (L)")
		require.Contains(t, h.plain(), "· Anthropic · native")
		// the Model sees pane follows: the model saw the JSON string
		h.key("2")
		require.Contains(t, v.raw[paneSees], `[{"type":"text","text":"Image read successfully"},{"type":"media"`)
		lows := map[model.Lowering]bool{}
		for k := range h.m.convs.convs {
			lows[k.low] = true
		}
		require.True(t, lows[model.LoweringAISDK] && lows[model.LoweringNative], "conversations cached by lowering")
		h.key("3", "L")
		require.Equal(t, aisdk, v.raw[paneWire])
	}
}

func TestLoweringOtherAgents(t *testing.T) {
	h := openStores(t, 100, 30, "../testdata/claude-code/anthropic")
	openSession(t, h, "Claude Code")
	h.key("L")
	require.Equal(t, statusWarn, h.m.status.kind)
	require.Contains(t, h.m.status.text, "Claude Code builds its own requests")
	require.Equal(t, model.LoweringAISDK, h.m.lowering)
	h.key("5", "V")
	require.Contains(t, h.m.status.text, "V compares opencode's v1 and v2 pipelines")
}

// V in Compare: the same tool's first call in a session of the other
// pipeline, side by side; V again goes back to providers.
func TestComparePipelines(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 30}} {
		h := openStores(t, sz[0], sz[1], "../testdata/opencode/anthropic/data", "../testdata/opencode/v2-anthropic/data")
		v := openSession(t, h, "opencode v1")
		ci := selectRow(t, h, func(ci *callInfo) bool { return ci.call().Tool == "bash" })
		h.key("5")
		require.Contains(t, h.plain(), "V v1↔v2")
		h.key("V")
		require.NotNil(t, v.other)
		require.Equal(t, model.PipelineV2, v.other.sess.Info.Pipeline)
		out := h.plain()
		require.Contains(t, out, "Compare v1 ↔ v2")
		require.Contains(t, out, "v1 bash (left) vs v2 bash (right)")
		left := v.raw[paneCompare]
		require.Contains(t, left, "model sees (text):\n"+ci.vis.Text)
		require.Contains(t, left, "wire · Anthropic · as sent · lowering ai-sdk:")
		require.Contains(t, left, "wire · Anthropic · as sent · lowering native:")
		// the v2 bash result ends with the exit line v1 does not send
		require.Contains(t, left, "Command exited with code 0.")
		require.Greater(t, v.cmp.differ, 0)
		checkFrame(t, h.raw(), sz[0], sz[1])
		// another tool follows the selection
		selectRow(t, h, func(ci *callInfo) bool { return ci.call().Tool == "glob" })
		require.Contains(t, h.plain(), "v1 glob (left) vs v2 glob (right)")
		h.key("V")
		require.Nil(t, v.other)
		require.Contains(t, h.plain(), "Anthropic as sent vs")
		checkFrame(t, h.raw(), sz[0], sz[1])
	}
	// a store without the other pipeline says so
	h := openStores(t, 100, 30, "../testdata/opencode/anthropic/data")
	openSession(t, h, "opencode v1")
	h.key("5", "V")
	require.Contains(t, h.m.status.text, "no opencode v2 session in the loaded stores")
}

func TestHelpListsNewKeys(t *testing.T) {
	h := openStores(t, 120, 30, "../testdata/opencode/anthropic/data")
	openSession(t, h, "opencode v1")
	require.Contains(t, h.plain(), "L lowering")
	h.key("l", "?")
	out := h.plain()
	require.Contains(t, out, "L lowering")
	require.Contains(t, out, "V v1↔v2")
	require.Contains(t, out, "1-6       jump to pane")
}

// The Pipeline pane shows a transcript's escapes inert, like the others.
func TestPipelineInert(t *testing.T) {
	h := openMain(t, 120, 30)
	h.selectCall("call_ansi")
	h.key("6")
	raw := h.raw()
	require.Contains(t, ansi.Strip(raw), "␛[31mred␛[0m plain")
	require.NotContains(t, raw, "\x1b]")
	require.NotContains(t, raw, "\x07")
	require.NotContains(t, raw, "\r")
	require.Contains(t, h.m.current().raw[panePipeline], "\x1b]0;pwned\x07title")
	checkFrame(t, raw, 120, 30)
}

// TestGeminiCLIWireSaysSignaturesLeftOut: the Wire and Request panes of a
// Gemini CLI call say how many model turns of its request went with the
// thoughtSignatures the model streamed, which Gemini CLI never stores.
func TestGeminiCLIWireSaysSignaturesLeftOut(t *testing.T) {
	h := openStores(t, 160, 40, "../testdata/gemini-cli/gemini-3.8-flash/data")
	v := openSession(t, h, "Gemini CLI")
	selectRow(t, h, func(ci *callInfo) bool { return ci.call().Tool == "read_file" })
	for _, pane := range []string{"3", "4"} {
		h.key(pane)
		for v.provider.Label() != "Gemini" {
			h.key("p")
		}
		require.Regexp(t, `\d+ model turns? of this run went with the thoughtSignatures the model streamed`, h.plain(), "pane %s", pane)
	}
	// the projections are correx's own: nothing left out to say
	h.key("p")
	require.NotContains(t, h.plain(), "thoughtSignatures")
}

// A Claude Code request rebuilt from the transcript (its log removed) is
// labelled so in the Wire and Request panes, never "as sent".
func TestClaudeRebuiltRequestLabel(t *testing.T) {
	src := fixtures.ClaudeCopy(t, "../testdata/claude-code/parallel-resume", fixtures.ClaudeWithoutRecords)
	h := openStores(t, 160, 30, src)
	v := openSession(t, h, "Claude Code")
	selectRow(t, h, func(ci *callInfo) bool { return requestStep(ci, v.data.sess) > 0 })
	for v.provider.Label() != "Anthropic" {
		h.key("p")
	}
	for _, pane := range []string{"3", "4"} {
		h.key(pane)
		out := h.plain()
		require.Contains(t, out, "Anthropic · "+model.RebuiltLabel, "pane %s", pane)
		require.NotContains(t, out, "· as sent", "pane %s", pane)
	}
	h.key("6")
	require.Contains(t, v.raw[panePipeline], "━━ 5 wire · Anthropic · "+model.RebuiltLabel)
}

// A ToolSearch result is a tool_reference block, not text: Model sees
// names the tool instead of showing an empty result.
func TestClaudeToolReferenceShown(t *testing.T) {
	h := openStores(t, 140, 30, "../testdata/claude-code/probe")
	openSession(t, h, "Claude Code")
	selectRow(t, h, func(ci *callInfo) bool { return ci.call().Tool == "ToolSearch" })
	h.key("2")
	require.Contains(t, h.plain(), "+ tool references: TaskCreate")
	require.NotContains(t, h.plain(), "an empty result")
	// an image read is not an empty result either
	selectRow(t, h, func(ci *callInfo) bool { return strings.HasSuffix(string(ci.call().Input), `dot.jpg"}`) })
	require.Contains(t, h.plain(), "+ files: file image/jpeg")
	require.Contains(t, h.plain(), "(no text: the model was shown the items above)")
}
