package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"correx/model"
	"correx/sessions"
)

// The session view as a component: its keys (the call list's and the
// focused pane's), the mouse, its help, and the messages of its commands.

func (v *sessionView) typing() bool { return v.searching }

// Close cancels what the view's commands still do: it is left for good.
func (v *sessionView) Close() {
	v.cancel()
	for p := range v.views {
		v.views[p].cancelSearch()
	}
}

func (v *sessionView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if v.searching {
			return v.searchKey(msg)
		}
		return v.key(msg)
	case tea.PasteMsg:
		if v.searching {
			return v.paste(msg.Content)
		}
	case tea.MouseWheelMsg:
		v.wheel(msg.Mouse())
	case tea.MouseClickMsg:
		v.click(msg.Mouse())
	case otherMsg:
		v.setOther(msg)
	}
	return nil
}

func (v *sessionView) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	if v.focus != focusList {
		return searchInput(msg, &v.searching, &v.search, &v.views[v.pane], v.layoutPane)
	}
	switch v.search.Update(msg) {
	case inputDone:
		v.searching = false
	case inputCancel:
		v.searching = false
		v.search.Clear()
		v.listQuery = ""
	case inputEdited:
		v.listQuery = v.search.Value()
		if i := v.list.search(v.listQuery, 1, v.list.sel-1); i >= 0 && v.listQuery != "" {
			v.list.Select(i)
		}
	}
	return nil
}

// paste adds pasted text to the search being typed, which runs at once.
func (v *sessionView) paste(text string) tea.Cmd {
	v.search.Paste(text)
	if v.focus == focusList {
		v.listQuery = v.search.Value()
		if i := v.list.search(v.listQuery, 1, v.list.sel-1); i >= 0 && v.listQuery != "" {
			v.list.Select(i)
		}
		return nil
	}
	cmd := v.views[v.pane].Search(v.search.Value())
	v.layoutPane()
	return cmd
}

func (v *sessionView) key(msg tea.KeyPressMsg) tea.Cmd {
	a, k := v.a, &v.a.keys
	tv := &v.views[v.pane]
	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Back):
		switch {
		case v.focus == focusPane:
			v.focusList()
		case v.listQuery != "":
			v.listQuery = ""
			v.search.Clear()
		default:
			return send(backMsg{})
		}
		return nil
	case key.Matches(msg, k.NextPane):
		v.pane = (v.pane + 1) % paneCount
		return nil
	case key.Matches(msg, k.PrevPane):
		v.pane = (v.pane + paneCount - 1) % paneCount
		return nil
	case key.Matches(msg, k.JumpPane):
		v.pane = paneKind(msg.String()[0] - '1')
		return nil
	case key.Matches(msg, k.Provider):
		v.provider = nextProvider(v.provider, 1)
		if v.compare == v.provider {
			v.compare = nextProvider(v.provider, 1)
		}
		a.info("provider: " + v.provider.Label())
		return nil
	case key.Matches(msg, k.Provider2):
		v.compare = nextProvider(v.compare, 1)
		if v.compare == v.provider {
			v.compare = nextProvider(v.compare, 1)
		}
		a.info("compare with: " + v.compare.Label())
		return nil
	case key.Matches(msg, k.Lowering):
		v.toggleLowering()
		return nil
	case key.Matches(msg, k.Inputs):
		v.toggleInputs()
		return nil
	case key.Matches(msg, k.OtherPipe):
		return v.otherPipeline()
	case key.Matches(msg, k.Copy):
		var fl *fileLines // Compare shows two texts, raw holds the first
		if v.pane != paneCompare {
			fl = tv.file
		}
		return a.copyPane(fl, panes[v.pane].name, v.raw[v.pane])
	case key.Matches(msg, k.Spill):
		return v.openSpill(false)
	case key.Matches(msg, k.Pager):
		if fl := tv.file; fl != nil && v.pane != paneCompare {
			return pagerCmd(fl.f.Name())
		}
		return v.openSpill(true)
	case key.Matches(msg, k.Zoom):
		v.toggleZoom()
		return nil
	case v.pane == panePipeline && v.focus == focusPane && tv.HasFolds() && key.Matches(msg, k.Open):
		tv.ToggleFolds()
		return nil
	case v.pane == panePipeline && key.Matches(msg, k.NextStage, k.PrevStage):
		v.jumpStage(key.Matches(msg, k.NextStage))
		return nil
	case key.Matches(msg, k.Search):
		v.searching = true
		v.search.Clear()
		var cmd tea.Cmd
		if v.focus == focusPane {
			cmd = tv.Search("")
		}
		v.layoutPane()
		return cmd
	}
	if v.focus == focusList {
		return v.listKey(msg)
	}
	if v.pane == paneCompare {
		v.compareKey(msg)
		return nil
	}
	if tv.scrollKey(k, msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Left):
		if tv.xOff == 0 {
			v.focusList()
		} else {
			tv.Left()
		}
	case key.Matches(msg, k.Right):
		tv.Right()
	}
	return nil
}

// jumpStage puts the Pipeline's next (or previous) stage at the top.
func (v *sessionView) jumpStage(next bool) {
	tv := &v.views[panePipeline]
	to := -1
	for _, l := range v.stages {
		l = tv.lineRow(l)
		if next && l > tv.yOff && to < 0 {
			to = l
		}
		if !next && l < tv.yOff {
			to = l
		}
	}
	if to >= 0 {
		tv.yOff = to
		tv.clamp()
	}
}

// focusList moves the focus to the call list, showing it again when the
// pane was zoomed.
func (v *sessionView) focusList() {
	v.focus, v.list.focused = focusList, true
	if v.zoomed {
		v.zoomed = false
		v.SetSize(v.width, v.height)
	}
}

// toggleZoom gives the focused pane the whole width (the call list
// hidden), or gives the list back: lazygit's +.
func (v *sessionView) toggleZoom() {
	v.zoomed = !v.zoomed
	v.focus, v.list.focused = focusPane, false
	v.SetSize(v.width, v.height)
}

func (v *sessionView) listKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.a.keys
	l := &v.list
	switch {
	case key.Matches(msg, k.Up):
		l.Move(-1)
	case key.Matches(msg, k.Down):
		l.Move(1)
	case key.Matches(msg, k.PageUp):
		l.Move(-l.height)
	case key.Matches(msg, k.PageDown):
		l.Move(l.height)
	case key.Matches(msg, k.Top):
		l.Select(0)
	case key.Matches(msg, k.Bottom):
		l.Select(len(l.rows))
	case key.Matches(msg, k.Next):
		if i := l.search(v.listQuery, 1, l.sel); v.listQuery != "" && i >= 0 {
			l.Select(i)
		}
	case key.Matches(msg, k.Prev):
		if i := l.search(v.listQuery, -1, l.sel); v.listQuery != "" && i >= 0 {
			l.Select(i)
		}
	case key.Matches(msg, k.Open):
		if r, ok := l.Selected(); ok && r.child() != nil {
			child := newSessionView(v.a, r.child())
			child.provider, child.compare, child.pane = v.provider, v.compare, v.pane
			return send(pushMsg{child})
		}
		v.focus, v.list.focused = focusPane, false
	case key.Matches(msg, k.FocusPane):
		v.focus, v.list.focused = focusPane, false
	}
	return nil
}

func (v *sessionView) compareKey(msg tea.KeyPressMsg) {
	k := &v.a.keys
	c := &v.cmp
	switch {
	case key.Matches(msg, k.Up):
		c.ScrollUp(1)
	case key.Matches(msg, k.Down):
		c.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		c.ScrollUp(c.height - 1)
	case key.Matches(msg, k.PageDown):
		c.ScrollDown(c.height - 1)
	case key.Matches(msg, k.HalfUp):
		c.ScrollUp(c.height / 2)
	case key.Matches(msg, k.HalfDown):
		c.ScrollDown(c.height / 2)
	case key.Matches(msg, k.Top):
		c.yOff = 0
	case key.Matches(msg, k.Bottom):
		c.ScrollDown(len(c.rows))
	case key.Matches(msg, k.Next):
		c.NextDiff(1)
	case key.Matches(msg, k.Prev):
		c.NextDiff(-1)
	case key.Matches(msg, k.Wrap):
		c.SetWrap(!c.wrap)
	case key.Matches(msg, k.Right):
		c.ScrollRight(sideStep)
	case key.Matches(msg, k.Left):
		if c.xOff == 0 {
			v.focusList()
		} else {
			c.ScrollRight(-sideStep)
		}
	}
}

// sideStep is how far ← and → scroll Compare sideways.
const sideStep = 8

func (v *sessionView) wheel(ms tea.Mouse) {
	d := 0
	switch ms.Button {
	case tea.MouseWheelUp:
		d = -1
	case tea.MouseWheelDown:
		d = 1
	default:
		return
	}
	switch {
	case ms.X < v.listW:
		v.list.Move(d)
	case v.pane == paneCompare:
		v.cmp.ScrollDown(3 * d)
	default:
		v.views[v.pane].ScrollDown(3 * d)
	}
}

// click focuses the list or the pane, selects a row, switches tabs; y is
// relative to the view's top.
func (v *sessionView) click(ms tea.Mouse) {
	if ms.Button != tea.MouseLeft {
		return
	}
	if ms.X < v.listW {
		v.focusList()
		if i := v.list.rowAt(ms.Y - 1); i >= 0 {
			v.list.Select(i)
		}
		return
	}
	v.focus, v.list.focused = focusPane, false
	if ms.Y == 1 {
		w, _ := v.paneInner()
		_, ranges := v.tabs(w)
		x := ms.X - v.listW - 1
		for i, r := range ranges {
			if x >= r[0] && x < r[1] {
				v.pane = paneKind(i)
			}
		}
	}
}

// ShortHelp is the hint bar: the keys that matter where the focus is,
// most important first (a narrow bar is cut at the right), and only the
// keys that apply: o when the call's full output was spilled, L and V for
// opencode sessions, V in Compare.
func (v *sessionView) ShortHelp() []key.Binding {
	k := v.a.keys
	keys := []key.Binding{k.Down}
	r, ok := v.list.Selected()
	if v.focus == focusList {
		open := k.Open
		if ok && r.child() != nil {
			open = hint(k.Open, "into subagent")
		}
		keys = append(keys, open)
	}
	keys = append(keys, hint(k.NextPane, "pane"))
	opencode := v.data.sess.Info.Agent.UsesOpencode()
	if opencode && v.pane == paneCompare {
		keys = append(keys, k.OtherPipe) // what Compare is for, in opencode
	}
	if ok && r.info().ready {
		if t := r.info().vis.Truncation; t != nil && t.SpillFound != "" {
			keys = append(keys, k.Spill)
		}
	}
	keys = append(keys, k.Search)
	if v.focus == focusPane {
		keys = append(keys, hint(k.Zoom, "zoom"), hint(k.Copy, "copy"))
	}
	keys = append(keys, k.Back, k.Help)
	switch {
	case v.focus != focusPane:
	case v.pane == paneCompare:
		keys = append(keys, hint(k.Wrap, "wrap"))
	case v.pane == panePipeline:
		keys = append(keys, hint(k.NextStage, "stage"))
	}
	keys = append(keys, k.Provider)
	if opencode {
		keys = append(keys, k.Lowering)
	}
	return keys
}

// hint is b as the hint bar shows it: its short description.
func hint(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

func (v *sessionView) FullHelp() [][]key.Binding {
	k := v.a.keys
	return [][]key.Binding{
		moveKeys(k),
		{k.Open, k.FocusPane, k.Left, k.NextPane, k.PrevPane, k.JumpPane, k.Zoom, k.Wrap, k.NextStage},
		{k.Provider, k.Provider2, k.Lowering, k.Inputs, k.OtherPipe},
		{k.Search, k.Next, k.Copy, k.Spill, k.Pager},
	}
}

func lowSuffix(l model.Lowering) string {
	if l == "" {
		return ""
	}
	return " · " + string(l)
}

// toggleLowering switches the lowering of opencode v1 sessions between
// the AI SDK converters and the native packages/llm.
func (v *sessionView) toggleLowering() {
	a := v.a
	in := v.data.sess.Info
	switch {
	case !in.Agent.UsesOpencode():
		a.warn(agentName(in.Agent) + " builds its own requests: there is no opencode lowering to switch")
	case in.Pipeline == model.PipelineV2:
		a.info("v2 sessions are native only: opencode's v2 loop always lowers with packages/llm")
	case a.lowering == model.LoweringNative:
		a.lowering = model.LoweringAISDK
		a.info("lowering: ai-sdk (the AI SDK converters, opencode's default)")
	default:
		a.lowering = model.LoweringNative
		a.info("lowering: native (opencode's packages/llm)")
	}
}

// otherPipeline turns the cross-pipeline Compare on (loading, in a
// command, a session of the other opencode pipeline that has a call of the
// selected tool) or off.
func (v *sessionView) otherPipeline() tea.Cmd {
	a := v.a
	if v.other != nil {
		v.other = nil
		v.pane = paneCompare
		a.info("Compare: providers side by side")
		return nil
	}
	r, ok := v.list.Selected()
	if !ok || a.store == nil {
		return nil
	}
	in := r.data.sess.Info
	if !in.Agent.UsesOpencode() {
		a.warn("V compares opencode's v1 and v2 pipelines; this is a " + agentName(in.Agent) + " session")
		return nil
	}
	want := model.PipelineV2
	if in.Pipeline == model.PipelineV2 {
		want = model.PipelineV1
	}
	var top, sub []model.SessionInfo
	for _, s := range a.listed {
		if s.Agent.Name() != in.Agent.Name() || s.Pipeline != want { // the same agent ("" is opencode)
			continue
		}
		if s.ParentID == "" {
			top = append(top, s)
		} else {
			sub = append(sub, s)
		}
	}
	cands := append(top, sub...)
	if len(cands) == 0 {
		a.warn("no opencode " + string(want) + " session in the loaded stores to compare with")
		return nil
	}
	a.loading++
	a.info("looking for a " + r.info().row.kind.tool + " call in a " + string(want) + " session…")
	return otherCmd(v.ctx, a.store, cands, r.info().row.kind.tool)
}

// setOther shows the other pipeline's session a command found in Compare.
func (v *sessionView) setOther(msg otherMsg) {
	a := v.a
	a.loading = max(a.loading-1, 0)
	switch {
	case msg.err != nil:
		a.fail("could not open the other pipeline's session: " + msg.err.Error())
	case msg.data == nil:
		a.warn("no session of the other pipeline could be opened")
	default:
		v.other = msg.data
		v.pane = paneCompare
		in := msg.data.sess.Info
		a.info(fmt.Sprintf("Compare: beside the first %s call of %s session %s (V: back)", msg.tool, pipelineName(in), firstNonEmpty(in.Title, in.ID)))
	}
}

// openSpill asks the root to open the selected call's spilled full output
// in the viewer, or opens it in $PAGER.
func (v *sessionView) openSpill(pager bool) tea.Cmd {
	a := v.a
	r, ok := v.list.Selected()
	if !ok {
		return nil
	}
	ci := r.info()
	t := ci.vis.Truncation
	switch {
	case !ci.ready:
		a.warn("the call's output is still being read")
		return nil
	case t == nil:
		a.warn("this call's output was not truncated: the model saw all of it")
		return nil
	case t.SpillGone():
		a.fail(spillGoneText(t))
		return nil
	case t.SpillFound == "":
		a.warn(fmt.Sprintf("no spill file: a %s truncation keeps no full output", t.Kind))
		return nil
	}
	spills := sessions.SpillsFor(v.data.sess.Info)
	spills.AllowOutside = a.spillAsked == t.SpillFound // asked, and o pressed again
	a.spillAsked = ""
	if pager {
		return spillPagerCmd(spills, t.SpillFound)
	}
	return send(openSpillMsg{ci.call().Tool, t, spills})
}
