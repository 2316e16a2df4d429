package tui

import (
	"fmt"
	"image/color"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// harness drives the root model synchronously: every command is run and its
// message fed back, except spinner ticks (so no timer runs) and commands
// the test wants to see (clipboard, exec).
type harness struct {
	t         testing.TB
	m         Model
	clipboard []string
	quit      bool
}

func newHarness(t testing.TB, opts Options, w, h int) *harness {
	t.Helper()
	m := New(opts)
	m.now = func() time.Time { return fakeNow }
	m.picker.now = m.now
	m.cfg.StatusTTL = 0 // a clear timer would hold the synchronous harness
	hs := &harness{t: t, m: m}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil, spinner.TickMsg, liveTickMsg: // ticks are sent by the tests that want them
		return
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
		return
	case tea.QuitMsg:
		h.quit = true
		return
	}
	if t := fmt.Sprintf("%T", msg); t == "tea.setClipboardMsg" {
		h.clipboard = append(h.clipboard, reflect.ValueOf(msg).String())
		return
	}
	h.send(msg)
}

// key sends key presses: "enter", "tab", "j", or plain text typed rune by rune
// when prefixed with "type:".
func (h *harness) key(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		if s, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range s {
				h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		h.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func (h *harness) raw() string   { return h.m.View().Content }
func (h *harness) plain() string { return ansi.Strip(h.raw()) }

// selectCall moves the call-list selection to the row whose call id is id.
func (h *harness) selectCall(id string) {
	h.t.Helper()
	v := h.m.current()
	require.NotNil(h.t, v, "no session open")
	for i, r := range v.list.rows {
		if r.info().call().CallID == id {
			v.list.Select(i)
			h.send(nil)
			return
		}
	}
	h.t.Fatalf("no call %s", id)
}

func fakeOpts(t testing.TB) Options {
	return Options{Stores: []sessions.Store{newFakeStore(t)}}
}

// checkFrame asserts the frame is exactly w×h cells.
func checkFrame(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	require.Len(t, lines, h, "frame height")
	for i, l := range lines {
		require.Equal(t, w, ansi.StringWidth(l), "width of line %d: %q", i, ansi.Strip(l))
	}
}

func TestPickerGolden(t *testing.T) {
	for _, sz := range layoutSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			h := newHarness(t, fakeOpts(t), sz[0], sz[1])
			out := h.plain()
			require.Contains(t, out, "Oracle scenario run")
			require.Contains(t, out, "subagent: Find text files")
			checkFrame(t, h.raw(), sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
	}
}

func TestPickerFilter(t *testing.T) {
	h := newHarness(t, fakeOpts(t), 80, 24)
	h.key("/", "type:explore")
	require.Contains(t, h.raw(), "explore\x1b[7;37m \x1b[m", "the filter, a static cursor after it")
	require.Len(t, h.m.picker.shown, 1)
	h.key("enter", "enter")
	require.NotNil(t, h.m.current())
	require.Equal(t, "ses_child", h.m.current().data.sess.Info.ID)
}

func openMain(t *testing.T, w, hh int) *harness {
	h := newHarness(t, fakeOpts(t), w, hh)
	h.key("enter")
	require.NotNil(t, h.m.current(), "session did not open")
	require.Equal(t, "ses_main", h.m.current().data.sess.Info.ID)
	return h
}

func TestTruncatedBashCall(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := openMain(t, w, 24)
			h.selectCall("call_seq")
			out := h.plain()
			require.Contains(t, out, "✂ model saw 1,000 of 3,000 lines")
			require.Contains(t, out, "...output truncated...")
			// the marker bytes are drawn in the marker style
			require.Contains(t, h.raw(), h.m.st.Marker.Render("...output truncated..."))
			checkFrame(t, h.raw(), w, 24)
			golden.RequireEqual(t, out)
		})
	}
}

func TestEscapesNeverReachTheTerminal(t *testing.T) {
	h := openMain(t, 120, 30)
	h.selectCall("call_ansi")
	raw := h.raw()
	plain := ansi.Strip(raw)
	require.Contains(t, plain, "␛[31mred␛[0m plain")
	require.Contains(t, plain, "␛]0;pwned␇title")
	require.Contains(t, plain, "ünïcödé␍")
	require.NotContains(t, raw, "\x1b[31mred")
	require.NotContains(t, raw, "\x1b]")
	require.NotContains(t, raw, "\x07")
	require.NotContains(t, raw, "\r")
	// the only escapes left are SGR styles
	for _, seq := range strings.Split(raw, "\x1b")[1:] {
		require.True(t, strings.HasPrefix(seq, "["), "non-CSI escape: %q", seq[:min(len(seq), 10)])
		end := strings.IndexFunc(seq, func(r rune) bool { return r >= 0x40 && r <= 0x7e && r != '[' })
		require.Equal(t, byte('m'), seq[end], "non-SGR escape: %q", seq[:end+1])
	}
	// copying gives the exact bytes
	h.key("y")
	require.Equal(t, []string{h.m.current().list.rows[1].info().vis.Text}, h.clipboard)
	require.Contains(t, h.clipboard[0], "\x1b]0;pwned\x07")
}

func TestProviderCycling(t *testing.T) {
	h := openMain(t, 120, 30)
	h.selectCall("call_hello")
	h.key("3")
	out := h.plain()
	require.Contains(t, out, "OpenAI Responses · as sent · lowering ai-sdk (L)")
	h.key("p")
	out = h.plain()
	require.Contains(t, out, "Anthropic · projection (opencode sent OpenAI Responses)")
	require.NotContains(t, out, "OpenAI Responses · as sent")
	h.key("p", "p", "p")
	require.Contains(t, h.plain(), "OpenAI Chat · projection")
	// the chat renderer exists: the excerpt holds the call and its result
	out = h.plain()
	require.Contains(t, out, "request of step 2 (carried this result)")
	wire := h.m.current().raw[paneWire]
	require.Contains(t, wire, `"tool_call_id": "call_hello"`)
	require.Contains(t, wire, `"id": "call_hello"`)
	require.NotContains(t, wire, `"tool_call_id": "call_seq"`)
}

func TestPanesCycle(t *testing.T) {
	h := openMain(t, 100, 30)
	h.selectCall("call_hello")
	v := h.m.current()
	require.Equal(t, paneSees, v.pane)
	h.key("tab")
	require.Equal(t, paneWire, v.pane)
	h.key("shift+tab", "shift+tab")
	require.Equal(t, paneCall, v.pane)
	require.Contains(t, h.plain(), `"command": "echo hello from bash; echo second line"`)
	h.key("4")
	require.Contains(t, h.plain(), "Request")
	h.key("5")
	require.Contains(t, h.plain(), "rows differ")
}

func TestSpillViewer(t *testing.T) {
	h := openMain(t, 100, 30)
	h.selectCall("call_seq")
	h.key("o")
	require.NotNil(t, h.m.spill)
	out := h.plain()
	require.Contains(t, out, "model saw lines 2,001–3,000 of 3,000 (bash-tail)")
	// it opens at the tail the model saw, marked in the gutter
	require.Contains(t, out, "2001▌│2001")
	checkFrame(t, h.raw(), 100, 30)
	h.key("g")
	require.Contains(t, h.plain(), "   1 │1 ")
	h.key("/", "type:2999", "enter")
	require.Contains(t, h.plain(), "/2999: 1/1")
	// read from the file, a window at a time; y copies it whole
	fl := h.m.spill.tv.file
	require.NotNil(t, fl)
	path := h.m.spill.path
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	h.key("y")
	require.Equal(t, []string{string(want)}, h.clipboard)
	h.key("esc", "esc")
	require.Nil(t, h.m.spill)
	// closed, and never removed: it is the agent's file
	_, err = fl.f.ReadAt(make([]byte, 1), 0)
	require.ErrorIs(t, err, os.ErrClosed)
	_, err = os.Stat(path)
	require.NoError(t, err)
}

func TestSpillGone(t *testing.T) {
	h := openMain(t, 120, 30)
	h.selectCall("call_gone")
	out := h.plain()
	require.Contains(t, out, "spill file is gone (opencode deletes them after 7 days): expected at")
	require.Contains(t, out, "│/nowhere/tool-output/tool_gone")
	h.key("o")
	require.Equal(t, "spill file is gone (opencode deletes them after 7 days): expected at /nowhere/tool-output/tool_gone", h.m.status.text)
	require.Nil(t, h.m.spill)
	require.Equal(t, statusError, h.m.status.kind)
}

func TestSubagentDrill(t *testing.T) {
	h := openMain(t, 100, 30)
	out := h.plain()
	require.Contains(t, out, "task Find text files")
	require.Contains(t, out, "↳ ✓ glob")
	h.selectCall("call_task")
	h.key("enter")
	require.Len(t, h.m.stack, 2)
	require.Contains(t, h.plain(), "Oracle scenario run › Find text files (@explore subagent)")
	h.key("esc")
	require.Len(t, h.m.stack, 1)
	h.key("esc")
	require.Equal(t, pagePicker, h.m.page)
}

func TestSearchPane(t *testing.T) {
	h := openMain(t, 100, 30)
	h.selectCall("call_seq")
	h.key("l", "/", "type:2500", "enter")
	tv := &h.m.current().views[paneSees]
	require.Equal(t, "/2500: 1/1", tv.MatchInfo())
	require.Contains(t, h.plain(), "2500")
	h.key("n")
	require.Equal(t, "/2500: 1/1", tv.MatchInfo())
}

func TestLayoutInvariants(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}, {60, 16}} {
		w, hh := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", w, hh), func(t *testing.T) {
			h := newHarness(t, fakeOpts(t), w, hh)
			checkFrame(t, h.raw(), w, hh)
			h.key("enter")
			for _, id := range []string{"call_hello", "call_ansi", "call_seq", "call_read", "call_task", "call_glob"} {
				h.selectCall(id)
				for p := 1; p <= 6; p++ {
					h.key(fmt.Sprint(p))
					checkFrame(t, h.raw(), w, hh)
				}
			}
			h.key("?")
			checkFrame(t, h.raw(), w, hh)
			h.key("?")
			h.selectCall("call_seq")
			h.key("o")
			checkFrame(t, h.raw(), w, hh)
			// resize while open
			h.send(tea.WindowSizeMsg{Width: w + 7, Height: hh + 3})
			checkFrame(t, h.raw(), w+7, hh+3)
		})
	}
}

func TestHelpFollowsFocus(t *testing.T) {
	h := openMain(t, 120, 30)
	require.Contains(t, h.plain(), "enter open")
	h.selectCall("call_task")
	require.Contains(t, h.plain(), "enter into subagent")
	require.NotContains(t, h.plain(), "y copy")
	h.key("l")
	require.Contains(t, h.plain(), "y copy") // the hint bar's short form of "copy pane"
	h.key("?")
	require.Contains(t, h.plain(), "compare with")
}

func TestQuit(t *testing.T) {
	h := openMain(t, 80, 24)
	h.key("q")
	require.True(t, h.quit)
}

func TestReadHighlightedByLanguage(t *testing.T) {
	h := openMain(t, 120, 30)
	h.selectCall("call_read")
	require.Contains(t, h.plain(), "3: func main() { println(\"hi\") }")
	// "func" is styled as a Go keyword
	require.Contains(t, h.raw(), h.m.st.Keyword.Render("func"))
}

func TestMouse(t *testing.T) {
	h := openMain(t, 120, 30)
	v := h.m.current()
	// click the third row of the list: header (y=0), border (y=1), rows from y=2
	h.send(tea.MouseClickMsg{X: 5, Y: 4, Button: tea.MouseLeft})
	require.Equal(t, 2, v.list.sel)
	require.Equal(t, focusList, v.focus)
	// click the "Call" tab: inside the right box, first inner line (y=2)
	h.send(tea.MouseClickMsg{X: v.listW + 2, Y: 2, Button: tea.MouseLeft})
	require.Equal(t, paneCall, v.pane)
	require.Equal(t, focusPane, v.focus)
	// the wheel over the list moves the selection, over the pane scrolls it
	h.send(tea.MouseWheelMsg{X: 5, Y: 5, Button: tea.MouseWheelDown})
	require.Equal(t, 3, v.list.sel)
	h.key("2")
	h.send(tea.MouseWheelMsg{X: v.listW + 10, Y: 10, Button: tea.MouseWheelDown})
	require.Equal(t, 3, v.views[paneSees].yOff)
}

// A huge output is styled lazily: only the lines on screen are rendered.
func TestLargeOutputIsLazy(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300000; i++ {
		fmt.Fprintf(&b, "line %d \x1b[1m bold?\n", i)
	}
	tv := newTextView(NewStyles(true))
	tv.SetContent(b.String(), nil, nil, false)
	tv.SetSize(80, 20)
	tv.ScrollDown(150000)
	out := tv.View()
	require.Len(t, tv.cache, 20)
	require.Contains(t, ansi.Strip(out), "line 150000 ␛[1m bold?")
	tv.Search("line 299999 ")
	require.Equal(t, "/line 299999 : 1/1", tv.MatchInfo())
	require.Contains(t, ansi.Strip(tv.View()), "line 299999")
}

func BenchmarkScrollLargeOutput(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 300000; i++ {
		fmt.Fprintf(&sb, `{"line": %d, "text": "some \u001b escaped json text here"}`+"\n", i)
	}
	tv := newTextView(NewStyles(true))
	tv.SetContent(sb.String(), lexerByName("json"), nil, false)
	tv.SetSize(100, 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tv.ScrollDown(3)
		_ = tv.View()
	}
}

func TestOpenSessionDirectlyDemoAndWarnings(t *testing.T) {
	opts := fakeOpts(t)
	opts.SessionID = "ses_child"
	opts.Demo = true
	opts.Warnings = []string{"could not open /nope: no such file"}
	h := newHarness(t, opts, 120, 24)
	require.NotNil(t, h.m.current())
	require.Equal(t, "ses_child", h.m.current().data.sess.Info.ID)
	out := h.plain()
	require.Contains(t, out, "DEMO: built-in sample sessions, not your recordings")
	require.Contains(t, out, "⚠ 1 warning: could not open /nope: no such file")
	// esc goes back to the picker, which was listed meanwhile
	h.key("esc")
	require.Equal(t, pagePicker, h.m.page)
	require.Len(t, h.m.picker.all, 2)
}

func TestLightBackground(t *testing.T) {
	h := openMain(t, 100, 30)
	h.send(tea.BackgroundColorMsg{Color: color.White})
	require.False(t, h.m.st.IsDark)
	require.Same(t, h.m.st, h.m.current().st)
	checkFrame(t, h.raw(), 100, 30)
}

func TestUnknownSession(t *testing.T) {
	opts := fakeOpts(t)
	opts.SessionID = "ses_nope"
	h := newHarness(t, opts, 100, 24)
	require.Nil(t, h.m.current())
	require.Equal(t, statusError, h.m.status.kind)
	require.Contains(t, h.plain(), "could not open session")
}

func TestHelpGolden(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h := openMain(t, w, 24)
			h.key("l", "?")
			out := h.plain()
			require.NotContains(t, out, "…")
			checkFrame(t, h.raw(), w, 24)
			golden.RequireEqual(t, out)
		})
	}
}
