package tui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// A paste into the picker's filter is taken whole, as one line: line
// breaks become spaces and control characters are dropped.
func TestPickerFilterPaste(t *testing.T) {
	h := newHarness(t, fakeOpts(t), 80, 24)
	h.key("/")
	h.send(tea.PasteMsg{Content: "explore"})
	require.Equal(t, "explore", h.m.picker.filter.Value())
	require.Len(t, h.m.picker.shown, 1)
	h.key("ctrl+u")
	h.send(tea.PasteMsg{Content: "Oracle\x1b[31m\nscenario\r\n"})
	require.Equal(t, "Oracle[31m scenario", h.m.picker.filter.Value())
}

// A paste into a pane's search runs the search.
func TestPaneSearchPaste(t *testing.T) {
	h := openMain(t, 120, 40)
	h.key("l", "/")
	h.send(tea.PasteMsg{Content: "hello"})
	require.Equal(t, "hello", h.m.current().search.Value())
	require.Contains(t, h.m.current().views[h.m.current().pane].MatchInfo(), "/hello: ")
}

// End to end, a real program: a bracketed paste reaches the filter.
func TestEndToEndPaste(t *testing.T) {
	tm := startProgram(t, fakeOpts(t), 100, 30)
	waitFor := tm.wait
	waitFor("Oracle scenario run")
	tm.Type("/")
	tm.Send(tea.PasteMsg{Content: "explore"})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor("Find text files (@explore subagent)") // the only session the filter kept
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := tm.FinalModel(t).(Model)
	require.Equal(t, "explore", final.picker.filter.Value())
	require.Len(t, final.picker.shown, 1)
}

// The picker counts in the singular for one session.
func TestPickerOneSession(t *testing.T) {
	s := newFakeStore(t)
	s.infos = s.infos[:1]
	h := newHarness(t, Options{Stores: []sessions.Store{s}}, 120, 24)
	require.Contains(t, h.plain(), "1 session, newest first")
}

// W (or a click on the status line) opens every warning, scrollable;
// esc closes it.
func TestWarningsView(t *testing.T) {
	opts := fakeOpts(t)
	for i := range 30 {
		opts.Warnings = append(opts.Warnings, "store.db: row "+string(rune('a'+i%26))+": a damaged part")
	}
	h := newHarness(t, opts, 80, 24)
	require.Contains(t, h.plain(), "⚠ 30 warnings")
	h.key("W")
	out := h.plain()
	require.Contains(t, out, "Warnings: 30")
	require.Contains(t, out, "1. store.db: row a: a damaged part")
	require.NotContains(t, out, "30. ")
	h.key("G")
	require.Contains(t, h.plain(), "30. store.db: row d: a damaged part")
	h.key("esc")
	require.NotContains(t, h.plain(), "Warnings: 30")
	h.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: 3, Y: 22})
	require.Contains(t, h.plain(), "Warnings: 30")
}

// The hint bar advertises only keys that apply: L and V are opencode's,
// V only in Compare; o only when the call's full output was spilled.
func TestHintBarKeysThatApply(t *testing.T) {
	h := openStores(t, 200, 30, agentFixtures[0].dir, agentFixtures[2].dir)
	openSession(t, h, "Claude Code")
	hint := h.plain()
	hint = hint[strings.LastIndex(hint, "\n")+1:]
	require.Contains(t, hint, "esc back")
	require.NotContains(t, hint, "L lowering")
	require.NotContains(t, hint, "V v1↔v2")
	h.key("esc")
	openSession(t, h, "opencode v1")
	h.key("5")
	hint = h.plain()
	hint = hint[strings.LastIndex(hint, "\n")+1:]
	require.Contains(t, hint, "L lowering")
	require.Contains(t, hint, "V v1↔v2")
}

// Help ends with the legend; at 80×24 it scrolls into view.
func TestHelpLegendScrolls(t *testing.T) {
	h := openMain(t, 80, 24)
	h.key("?")
	require.NotContains(t, h.plain(), "projection")
	h.key("G")
	require.Contains(t, h.plain(), "gemini-read", "the last truncation kind ends the help")
	legend := ansi.Strip(strings.Join(helpLegend(NewStyles(true), 78), "\n"))
	require.Contains(t, legend, "projection the same step lowered for another provider")
	require.Contains(t, legend, "≠          Compare: the row differs")
}

// TestLegendNamesEveryKind: the help's legend lists every truncation kind
// model declares (read from its source, so a new kind cannot be left out).
func TestLegendNamesEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../model/result.go", nil, 0)
	require.NoError(t, err)
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "TruncationKind" {
				for _, v := range vs.Values {
					declared = append(declared, strings.Trim(v.(*ast.BasicLit).Value, `"`))
				}
			}
		}
		return true
	})
	require.NotEmpty(t, declared)
	var listed []string
	for _, k := range model.TruncationKinds {
		listed = append(listed, string(k.Kind))
		require.NotEmpty(t, k.What, "legend line of %s", k.Kind)
	}
	require.Subset(t, listed, declared, "model.TruncationKinds lists every kind model declares")
	legend := ansi.Strip(strings.Join(helpLegend(NewStyles(true), 100), "\n"))
	for _, k := range listed { // the declared ones and the drivers' (formatters.RegisterMarkers)
		require.Contains(t, legend, k)
	}
}

// runFlow runs a real program on the fake store at w×h, sends keys (text
// typed as is, or tea key codes), waits for want after each step, quits,
// and returns the final model.
func runFlow(t *testing.T, w, h int, steps ...any) Model {
	t.Helper()
	return runFlowOn(t, fakeOpts(t), w, h, steps...)
}

// runFlowOn is runFlow on the stores of opts; a step may also be a mouse
// message, sent as is.
func runFlowOn(t *testing.T, opts Options, w, h int, steps ...any) Model {
	t.Helper()
	tm := startProgram(t, opts, w, h)
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			if want, ok := strings.CutPrefix(s, "wait:"); ok {
				tm.wait(want)
				tm.seen.Reset()
				continue
			}
			tm.Type(s)
		case rune:
			tm.Send(tea.KeyPressMsg{Code: s})
		case tea.MouseClickMsg, tea.MouseWheelMsg:
			tm.Send(s)
		}
	}
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	return tm.FinalModel(t).(Model)
}

// End to end: zoom a pane and back.
func TestFlowZoom(t *testing.T) {
	final := runFlow(t, 80, 24, "wait:Oracle scenario run", tea.KeyEnter, "wait:Calls 8",
		"l", "+", "wait:zoomed: + back")
	v := final.current()
	require.True(t, v.zoomed)
	require.Equal(t, 0, v.listW)
	require.Equal(t, focusPane, v.focus)
}

// End to end: Compare scrolls sideways and wraps.
func TestFlowCompareScroll(t *testing.T) {
	final := runFlow(t, 80, 24, "wait:Oracle scenario run", tea.KeyEnter, "wait:Calls 8",
		"5", "wait:rows differ", "l", tea.KeyRight, tea.KeyRight, tea.KeyRight, "wait:…")
	c := final.current().cmp
	require.Equal(t, 3*sideStep, c.xOff)
	final = runFlow(t, 80, 24, "wait:Oracle scenario run", tea.KeyEnter, "wait:Calls 8",
		"5", "wait:rows differ", "l", "w", "wait:call\",")
	require.True(t, final.current().cmp.wrap)
}

// End to end on a Claude Code transcript with broken records: the status
// line says how many, W opens them, j scrolls, esc closes, a click on the
// status line opens them again and the wheel scrolls.
func TestFlowWarnings(t *testing.T) {
	dir := "../testdata/claude-code/anthropic"
	needDir(t, dir)
	broken := 0
	src := fixtures.ClaudeCopy(t, dir, func(file string, lines []string) []string {
		if strings.Contains(file, "subagents") {
			return lines
		}
		for i := 4; i < min(len(lines), 70); i += 2 {
			lines[i] = lines[i][:min(len(lines[i]), 20)]
			broken++
		}
		return lines
	})
	s, err := sessions.Open(src)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	const w, h = 80, 24
	final := runFlowOn(t, Options{Stores: []sessions.Store{s}}, w, h,
		"wait:Claude Code", tea.KeyEnter, "wait:warnings:",
		"W", "wait:Warnings: ", "j", "j", "j", tea.KeyEscape, "wait:Calls ",
		tea.MouseClickMsg{Button: tea.MouseLeft, X: 3, Y: h - 2}, "wait:Warnings: ",
		tea.MouseWheelMsg{Button: tea.MouseWheelDown, X: 10, Y: 5})
	bad := 0
	for _, w := range final.warnings {
		if strings.Contains(w, ".jsonl:") && strings.Contains(w, "bad JSON, skipped") {
			bad++
		}
	}
	require.Equal(t, broken, bad, "one warning per broken record")
	wv, ok := final.overlay.(*warningsView)
	require.True(t, ok, "the click reopened the warnings view")
	require.Equal(t, 3, wv.off, "the wheel scrolled three lines")
}

// The constants other code uses name the registry's panes; every pane has
// a tab, a jump key and a load.
func TestPaneRegistry(t *testing.T) {
	for k, name := range map[paneKind]string{paneCall: "Call", paneSees: "Model sees", paneWire: "Wire",
		paneRequest: "Request", paneCompare: "Compare", panePipeline: "Pipeline"} {
		require.Equal(t, name, panes[k].name)
	}
	require.Len(t, DefaultKeyMap().JumpPane.Keys(), int(paneCount))
	h := openMain(t, 120, 40)
	for i, p := range panes {
		require.NotNil(t, p.load, p.name)
		require.NotEmpty(t, p.short, p.name)
		h.key(fmt.Sprint(i + 1))
		require.Equal(t, paneKind(i), h.m.current().pane)
		require.Contains(t, h.plain(), "[→] "+p.name)
	}
}

// esc from a session opened with --session goes to the picker, on that
// session's row.
func TestEscFromSessionLaunch(t *testing.T) {
	o := fakeOpts(t)
	o.SessionID = "ses_child"
	h := newHarness(t, o, 80, 24)
	require.NotNil(t, h.m.current())
	h.key("esc")
	require.Equal(t, pagePicker, h.m.page)
	in, ok := h.m.picker.Selected()
	require.True(t, ok)
	require.Equal(t, "ses_child", in.ID)
	require.Contains(t, h.plain(), "Oracle scenario run")
}

// Compare aligns texts of any size: equal lines side by side, a changed
// line beside its replacement, inserted lines alone; past the 4M cells
// the old table gave up at, still aligned.
func TestDiffLinesAligns(t *testing.T) {
	rows := diffLines([]string{"a", "b", "c", "d"}, []string{"a", "B", "c", "x", "d"})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s|%s|%t", r.left, r.right, r.same))
	}
	require.Equal(t, []string{"a|a|true", "b|B|false", "c|c|true", "|x|false", "d|d|true"}, got)
	var a, b []string
	for i := range 3000 {
		a = append(a, fmt.Sprint(i))
		if i != 1500 {
			b = append(b, fmt.Sprint(i))
		}
	}
	rows = diffLines(a, b)
	require.Len(t, rows, 3000)
	require.False(t, rows[1500].same)
	require.True(t, rows[1500].hasL && !rows[1500].hasR)
	require.True(t, rows[2999].same, "the lines after the deletion stay aligned")
}

// ] and [ jump between the Pipeline's stages.
func TestPipelineStageKeys(t *testing.T) {
	h := openMain(t, 80, 24)
	h.selectCall("call_seq")
	h.key("6", "l")
	v := h.m.current()
	require.Len(t, v.stages, 5)
	tv := &v.views[panePipeline]
	require.Equal(t, 0, tv.yOff)
	h.key("]")
	require.Equal(t, tv.lineRow(v.stages[1]), tv.yOff)
	require.Contains(t, h.plain(), "━━ 2 model-visible text ━━")
	h.key("]")
	require.Equal(t, tv.lineRow(v.stages[2]), tv.yOff)
	h.key("[")
	require.Equal(t, tv.lineRow(v.stages[1]), tv.yOff)
}

// After a resize the current search match stays on screen.
func TestResizeKeepsMatch(t *testing.T) {
	h := openMain(t, 120, 40)
	h.selectCall("call_seq")
	h.key("l", "/", "type:2900", "enter")
	tv := &h.m.current().views[paneSees]
	require.NotEmpty(t, tv.matches)
	line := tv.matches[tv.cur].line
	require.True(t, line >= tv.yOff && line < tv.yOff+tv.height)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 12})
	require.True(t, line >= tv.yOff && line < tv.yOff+tv.height, "match line %d, view %d+%d", line, tv.yOff, tv.height)
	require.Contains(t, h.plain(), "2900")
}

// The filter and search inputs are bubbles' textinput: the cursor moves
// and text goes in at it; a typed format character is dropped, not drawn.
func TestLineInputEdits(t *testing.T) {
	var in lineInput
	for _, k := range []string{"a", "b", "c", "left", "X", "space", "\u202e"} {
		in.Update(keyMsg(k))
	}
	require.Equal(t, "abX c", in.Value())
	view := in.View()
	require.Equal(t, view, in.View(), "a static cursor: the same frame every time")
	require.Contains(t, view, "\x1b[7;37mc\x1b[m", "the cursor on the c")
	in.Clear()
	require.Empty(t, in.Value())
}

// The Pipeline folds a long stage body to its first and last lines; enter
// unfolds and folds again. Folding is at display only: y copies every line,
// and the truncation marker is still drawn marked on the lines shown.
func TestPipelineFolds(t *testing.T) {
	h := openMain(t, 120, 40)
	h.selectCall("call_seq")
	h.key("6", "l")
	v := h.m.current()
	tv := &v.views[panePipeline]
	out := h.plain()
	require.Contains(t, out, "… 988 lines folded · enter to unfold")
	require.Contains(t, out, "Pipeline 1–1016/2048")
	checkFrame(t, h.raw(), 120, 40)
	require.NotContains(t, out, "1000│")
	require.Equal(t, tv.text, v.raw[panePipeline], "y copies the text")
	require.Equal(t, 2048, tv.Lines())
	require.Contains(t, v.raw[panePipeline], "\n2500\n", "the folded lines are in the copied text")
	h.key("]")
	require.Contains(t, h.plain(), "━━ 2 model-visible text ━━", "] jumps to a stage past a fold")
	require.Contains(t, h.plain(), "lines folded")
	require.Contains(t, h.raw(), h.m.st.Marker.Render("...output truncated..."), "the marker stays marked")
	h.key("[", "enter")
	out = h.plain()
	require.NotContains(t, out, "lines folded")
	require.Contains(t, out, "  13│2005")
	h.key("enter")
	require.Contains(t, h.plain(), "lines folded", "enter folds again")
	h.key("/")
	h.send(tea.PasteMsg{Content: "2500"})
	require.Contains(t, h.plain(), "│2500", "a match inside a fold unfolds it")
}

// The picker shows a quick list (sessions.ListQuick) with its counts
// pending, asks for the counted list only then, and the counted list
// replaces it; a quick list arriving after the counted one is dropped.
func TestPickerQuickListThenCounts(t *testing.T) {
	s := newFakeStore(t)
	counted := s.infos
	quick := make([]model.SessionInfo, len(counted))
	for i, in := range counted {
		in.ToolCalls, in.Truncated, in.Errors, in.Messages, in.Uncounted = 0, 0, 0, 0, true
		quick[i] = in
	}
	m := New(Options{Stores: []sessions.Store{s}})
	m.now = func() time.Time { return fakeNow }
	m.picker.now = m.now
	h := &harness{t: t, m: m}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 24})
	nm, cmd := h.m.Update(listedMsg{infos: quick, quick: true})
	h.m = nm.(Model)
	out := h.plain()
	require.Contains(t, out, "counting calls…")
	require.Contains(t, out, "…")
	require.Contains(t, out, counted[0].Title)
	require.NotNil(t, cmd, "the quick list asks for the counted one")
	h.run(cmd)
	out = h.plain()
	require.NotContains(t, out, "counting calls…")
	require.NotContains(t, out, " … ")
	h.send(listedMsg{infos: quick, quick: true})
	require.Equal(t, out, h.plain(), "a late quick list is dropped")
}
