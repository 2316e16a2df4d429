// Package tui is correx's terminal inspector: pick a recorded session, pick
// a tool call, and see exactly what the model saw when it ran — the call,
// the model-visible result byte for byte with its truncation, and the wire
// JSON each provider would have received.
//
// One root Model routes messages: window size to every component, keys to
// the focused one. Components are plain structs with SetSize and View;
// all IO (listing, loading, rendering conversations, reading spill files)
// runs in tea.Cmds, and View only composes cached renders.
package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"correx/model"
	"correx/render"
	"correx/sessions"
)

// Options configure the TUI.
type Options struct {
	Stores    []sessions.Store // already opened
	SessionID string           // open this session directly when set
	Demo      bool             // the stores hold the built-in demo
	Warnings  []string         // problems found while opening
	// Live re-reads the store every couple of seconds, so a session that
	// is still being written updates on screen (live.go).
	Live bool
	// Context, when done, ends the TUI as quitting does (the caller's
	// signals: the terminal closing sends SIGHUP, which Bubble Tea does
	// not catch).
	Context context.Context
	// Machine is where opencode's config is read (zero: this machine).
	Machine sessions.Machine
}

// Run runs the TUI on the terminal until the user quits or opts.Context
// is done. NO_COLOR (any non-empty value) turns colour off. However it
// ends, it removes its spool files and gives the terminal its window
// title back (pushed before, popped after: Bubble Tea only clears it).
func Run(opts Options) error {
	var popts []tea.ProgramOption
	if os.Getenv("NO_COLOR") != "" {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	if opts.Context != nil {
		popts = append(popts, tea.WithContext(opts.Context))
	}
	defer closeSpools()
	os.Stdout.WriteString(ansi.WindowOp(22, 0)) // push the window and icon titles
	defer os.Stdout.WriteString(ansi.WindowOp(23, 0))
	_, err := tea.NewProgram(New(opts), popts...).Run()
	return err
}

type page int

const (
	pagePicker page = iota
	pageSession
)

type statusKind int

const (
	statusInfo statusKind = iota
	statusWarn
	statusError
)

type status struct {
	text string
	kind statusKind
}

// Model is the root model.
type Model struct {
	opts  Options
	store sessions.Store
	st    *Styles
	keys  KeyMap
	help  help.Model
	spin  spinner.Model
	now   func() time.Time

	width, height int

	page     page
	picker   picker
	stack    []*sessionView
	spill    *spillView
	showHelp bool
	// spillAsked is the spill outside its agent's spill folder the user
	// was asked about: o (or O) again opens it.
	spillAsked string

	// lowering is the lowering shown for opencode v1 sessions (L); v2
	// sessions are always native, other agents have none.
	lowering model.Lowering
	// inputs overrides the declared inputs of opencode models (I); machine
	// is where their config is read
	inputs      model.CapsOverride
	machine     sessions.Machine
	capsPending map[*sessionData]bool

	convs    map[convKey]convResult
	convAge  []convKey // convs' keys, oldest first (maxConvs are kept)
	pending  map[convKey]bool
	details  map[detailKey]bool // visible results being computed (lazy.go)
	loading  int
	checking bool         // a live check is running (live.go)
	liveNext *sessionData // a live reload still reading its pages

	status   status
	warnings []string
}

// New returns the root model. The theme is dark until the terminal
// answers the background colour query.
func New(opts Options) Model {
	st := NewStyles(true)
	m := Model{
		opts:        opts,
		st:          st,
		keys:        DefaultKeyMap(),
		help:        help.New(),
		now:         time.Now,
		convs:       map[convKey]convResult{},
		pending:     map[convKey]bool{},
		details:     map[detailKey]bool{},
		warnings:    append([]string(nil), opts.Warnings...),
		width:       80,
		height:      24,
		lowering:    model.LoweringAISDK,
		machine:     opts.Machine,
		capsPending: map[*sessionData]bool{},
	}
	if m.machine.Env == nil && m.machine.Root == "" {
		m.machine = sessions.ThisMachine()
	}
	m.help.Styles = st.Help
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Spinner))
	switch len(opts.Stores) {
	case 0:
	case 1:
		m.store = opts.Stores[0]
	default:
		m.store = sessions.Combine(opts.Stores...)
	}
	for _, s := range opts.Stores {
		m.addWarnings(sessions.Warnings(s)...)
	}
	m.picker = newPicker(st, time.Now)
	if opts.SessionID != "" {
		m.loading++
	}
	m.layout()
	return m
}

// Init asks for the background colour, lists the sessions and opens the
// session named in the options.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, listCmd(m.store), m.spin.Tick}
	if m.opts.Live {
		cmds = append(cmds, liveTick())
	}
	if m.opts.SessionID != "" && m.store != nil {
		cmds = append(cmds, loadCmd(m.store, m.opts.SessionID))
	}
	return tea.Batch(cmds...)
}

// addWarnings adds the warnings not listed yet: a store's notices come
// again with every session and page it loads.
func (m *Model) addWarnings(ws ...string) {
	for _, w := range ws {
		if !slices.Contains(m.warnings, w) {
			m.warnings = append(m.warnings, w)
		}
	}
}

func (m *Model) busy() bool { return m.loading > 0 || len(m.pending) > 0 || len(m.details) > 0 }

func (m *Model) current() *sessionView {
	if m.page != pageSession || len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

func (m *Model) bodyHeight() int { return max(m.height-3, 3) }

// layout gives every component its size.
func (m *Model) layout() {
	m.help.SetWidth(m.width)
	bh := m.bodyHeight()
	m.picker.SetSize(m.width, bh)
	for _, v := range m.stack {
		v.SetSize(m.width, bh)
	}
	if m.spill != nil {
		m.spill.SetSize(m.width, bh)
	}
}

func (m *Model) setStyles(st *Styles) {
	m.st = st
	m.help.Styles = st.Help
	m.spin.Style = st.Spinner
	m.picker.st = st
	for _, v := range m.stack {
		v.SetStyles(st)
	}
	if m.spill != nil {
		m.spill.SetStyles(st)
	}
}

func (m *Model) info(s string)    { m.status = status{s, statusInfo} }
func (m *Model) warn(s string)    { m.status = status{s, statusWarn} }
func (m *Model) fail(s string)    { m.status = status{s, statusError} }
func (m *Model) clearStatus()     { m.status = status{} }
func (m *Model) quit() tea.Cmd    { return tea.Quit }
func (m *Model) spinCmd() tea.Cmd { return m.spin.Tick }

// Update routes a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	// later are Cmds that start after the ones the screen waits for
	// (reading a lazy session's further pages)
	var later []tea.Cmd
	wasBusy := m.busy()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		m.layout()
	case tea.BackgroundColorMsg:
		m.setStyles(NewStyles(msg.IsDark()))
	case spinner.TickMsg:
		if m.busy() {
			var cmd tea.Cmd
			m.spin, cmd = m.spin.Update(msg)
			cmds = append(cmds, cmd)
		}
		wasBusy = true
	case listedMsg:
		m.picker.SetSessions(msg.infos, msg.err)
		if msg.err != nil {
			m.warnings = append(m.warnings, "listing sessions: "+msg.err.Error())
		}
		m.addWarnings(msg.warns...)
	case loadedMsg:
		m.loading = max(m.loading-1, 0)
		if msg.err != nil {
			m.fail("could not open session: " + msg.err.Error())
			break
		}
		m.addWarnings(msg.warns...)
		m.addWarnings(msg.data.sess.Warnings...)
		v := newSessionView(m.st, msg.data)
		v.SetSize(m.width, m.bodyHeight())
		m.stack = []*sessionView{v}
		m.page = pageSession
		m.clearStatus()
		if msg.data.loading {
			later = append(later, pageCmd(m.store, msg.data))
		}
	case pageMsg:
		later = append(later, m.addPage(msg))
	case detailMsg:
		delete(m.details, msg.key)
		msg.key.data.setDetail(msg)
		if msg.err != nil {
			m.warn("could not read the call's output: " + msg.err.Error())
		}
	case capsMsg:
		delete(m.capsPending, msg.data)
		msg.data.caps = msg.state
		m.warnings = append(m.warnings, msg.state.warns...)
	case convMsg:
		delete(m.pending, msg.key)
		if _, ok := m.convs[msg.key]; !ok {
			m.convAge = append(m.convAge, msg.key)
		}
		m.convs[msg.key] = msg.res
		m.evictConvs()
	case otherMsg:
		m.loading = max(m.loading-1, 0)
		v := m.current()
		switch {
		case msg.err != nil:
			m.fail("could not open the other pipeline's session: " + msg.err.Error())
		case msg.data == nil:
			m.warn("no session of the other pipeline could be opened")
		case v != nil:
			v.other = msg.data
			v.pane = paneCompare
			in := msg.data.sess.Info
			m.info(fmt.Sprintf("Compare: beside the first %s call of %s session %s (V: back)", msg.tool, pipelineName(in), firstNonEmpty(in.Title, in.ID)))
		}
	case fileSearchMsg:
		m.applySearch(msg)
	case spillMsg:
		m.spillOpened(msg)
	case liveTickMsg, liveMsg:
		cmds = append(cmds, m.live(msg))
	case pagerDoneMsg:
		if msg.err != nil {
			m.fail("pager: " + msg.err.Error())
		}
	case copyFailedMsg:
		m.fail("copy: " + msg.err.Error())
	case tea.KeyPressMsg:
		cmds = append(cmds, m.handleKey(msg))
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	case tea.MouseClickMsg:
		m.handleClick(msg.Mouse())
	}
	cmds = append(cmds, m.sync()...)
	if !wasBusy && m.busy() {
		cmds = append(cmds, m.spinCmd())
	}
	cmds = append(cmds, later...)
	return m, tea.Batch(cmds...)
}

// sync refreshes the current session view's pane and starts rendering the
// conversations it waits for.
func (m *Model) sync() []tea.Cmd {
	v := m.current()
	if v == nil {
		return nil
	}
	v.lowV1, v.inputs = m.lowering, m.inputs
	v.refresh(func(k convKey) (convResult, bool) {
		r, ok := m.convs[k]
		return r, ok
	})
	var cmds []tea.Cmd
	// a pane given a file again keeps its search, run anew on the file
	for p := range v.views {
		if c := v.views[p].PendingSearch(); c != nil {
			cmds = append(cmds, c)
		}
	}
	if v.needDetail != nil {
		k := *v.needDetail
		if !m.details[k] {
			m.details[k] = true
			cmds = append(cmds, detailCmd(k.data, k.idx))
		}
	}
	for _, k := range v.need {
		if k.data != nil && needsCaps(k.data) {
			// rendered once the models' capabilities are read
			if !m.capsPending[k.data] {
				m.capsPending[k.data] = true
				cmds = append(cmds, capsCmd(m.machine, k.data, k.sess.Info, sessions.SessionModels(k.sess)))
			}
			continue
		}
		if !m.pending[k] {
			m.pending[k] = true
			var l sessions.Lazy
			if v.data.sess == k.sess {
				l = v.data.lazy
			}
			cmds = append(cmds, convCmd(k, *k.sess, l, capsFor(k.data, k.inputs)))
		}
	}
	return cmds
}

// applySearch gives the result of a file search to the text view that
// waits for it; a stale one (a newer search started, or the view shows
// something else now) is dropped.
func (m *Model) applySearch(msg fileSearchMsg) {
	for _, v := range m.stack {
		for p := range v.views {
			v.views[p].applySearch(msg)
		}
	}
	if m.spill != nil {
		m.spill.tv.applySearch(msg)
	}
}

// addPage appends a lazy session's outline page and asks for the next.
func (m *Model) addPage(msg pageMsg) tea.Cmd {
	d := msg.data
	if msg.err != nil {
		d.loading = false
		if d == m.liveNext {
			m.liveNext = nil
		}
		m.warn("could not read the rest of the session: " + msg.err.Error())
		return nil
	}
	d.budget -= msg.used
	d.addPage(msg.page, msg.children, msg.pre)
	m.addWarnings(msg.warns...)
	m.addWarnings(msg.page.Session.Warnings...)
	for _, v := range m.stack {
		if v.data == d {
			v.list.SetRows(buildRows(d, 0))
		}
	}
	if d.loading && (d == m.liveNext || len(m.stack) > 0 && m.stack[0].data == d) {
		return pageCmd(m.store, d)
	}
	d.loading = false
	if d == m.liveNext {
		m.swapLive(d)
	}
	return nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	// text inputs take every key
	if m.page == pagePicker && m.picker.filtering {
		switch m.picker.filter.Update(msg) {
		case inputDone:
			m.picker.filtering = false
		case inputCancel:
			m.picker.filtering = false
			m.picker.filter.value = ""
		}
		m.picker.apply()
		return nil
	}
	if m.spill != nil && m.spill.searching {
		return m.searchInput(msg, &m.spill.searching, &m.spill.search, &m.spill.tv, m.spill.layout)
	}
	if v := m.current(); v != nil && v.searching && m.spill == nil {
		if v.focus == focusList {
			r := v.search.Update(msg)
			switch r {
			case inputDone:
				v.searching = false
			case inputCancel:
				v.searching = false
				v.search.value, v.listQuery = "", ""
			case inputEdited:
				v.listQuery = v.search.value
				if i := v.list.search(v.listQuery, 1, v.list.sel-1); i >= 0 && v.listQuery != "" {
					v.list.Select(i)
				}
			}
			return nil
		}
		return m.searchInput(msg, &v.searching, &v.search, &v.views[v.pane], v.layoutPane)
	}
	m.clearStatus()

	if m.showHelp {
		switch {
		case key.Matches(msg, k.Help, k.Back):
			m.showHelp = false
		case key.Matches(msg, k.Quit):
			return m.quit()
		}
		return nil
	}
	if key.Matches(msg, k.Help) {
		m.showHelp = true
		return nil
	}
	if m.spill != nil {
		return m.spillKey(msg)
	}
	switch m.page {
	case pagePicker:
		return m.pickerKey(msg)
	case pageSession:
		return m.sessionKey(msg)
	}
	return nil
}

// searchInput feeds a key to a pane search; the search runs as you type.
func (m *Model) searchInput(msg tea.KeyPressMsg, on *bool, in *lineInput, tv *textView, relayout func()) tea.Cmd {
	var cmd tea.Cmd
	switch in.Update(msg) {
	case inputDone:
		*on = false
	case inputCancel:
		*on = false
		in.value = ""
		cmd = tv.Search("")
	case inputEdited:
		cmd = tv.Search(in.value)
	}
	relayout()
	return cmd
}

func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	p := &m.picker
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Back):
		if p.filter.value != "" {
			p.filter.value = ""
			p.apply()
		} else if len(m.stack) > 0 {
			m.page = pageSession
		}
	case key.Matches(msg, k.Up):
		p.Move(-1)
	case key.Matches(msg, k.Down):
		p.Move(1)
	case key.Matches(msg, k.PageUp):
		p.Move(-p.rowsHeight())
	case key.Matches(msg, k.PageDown):
		p.Move(p.rowsHeight())
	case key.Matches(msg, k.Top):
		p.Move(-len(p.shown))
	case key.Matches(msg, k.Bottom):
		p.Move(len(p.shown))
	case key.Matches(msg, k.Filter):
		p.filtering = true
	case key.Matches(msg, k.Open):
		return m.openSelected()
	}
	return nil
}

func (m *Model) openSelected() tea.Cmd {
	in, ok := m.picker.Selected()
	if !ok || m.store == nil {
		return nil
	}
	if v := m.current(); v == nil && len(m.stack) > 0 && m.stack[0].data.sess.Info.ID == in.ID {
		m.page = pageSession
		return nil
	}
	m.loading++
	m.info("opening " + inertString(firstNonEmpty(in.Title, in.ID), plainStyle) + "…")
	return loadCmd(m.store, in.ID)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (m *Model) sessionKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	v := m.current()
	tv := &v.views[v.pane]
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Back):
		switch {
		case v.focus == focusPane:
			v.focus, v.list.focused = focusList, true
		case v.listQuery != "":
			v.listQuery, v.search.value = "", ""
		case len(m.stack) > 1:
			for p := range v.views {
				v.views[p].cancelSearch()
			}
			m.stack = m.stack[:len(m.stack)-1]
		default:
			m.page = pagePicker
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
		m.info("provider: " + v.provider.Label())
		return nil
	case key.Matches(msg, k.Provider2):
		v.compare = nextProvider(v.compare, 1)
		if v.compare == v.provider {
			v.compare = nextProvider(v.compare, 1)
		}
		m.info("compare with: " + v.compare.Label())
		return nil
	case key.Matches(msg, k.Lowering):
		m.toggleLowering(v)
		return nil
	case key.Matches(msg, k.Inputs):
		m.toggleInputs(v)
		return nil
	case key.Matches(msg, k.OtherPipe):
		return m.otherPipeline(v)
	case key.Matches(msg, k.Copy):
		var fl *fileLines // Compare shows two texts, raw holds the first
		if v.pane != paneCompare {
			fl = tv.file
		}
		return m.copyPane(fl, paneNames[v.pane], v.raw[v.pane])
	case key.Matches(msg, k.Spill):
		return m.openSpill(false)
	case key.Matches(msg, k.Pager):
		if fl := tv.file; fl != nil && v.pane != paneCompare {
			return pagerCmd(fl.f.Name())
		}
		return m.openSpill(true)
	case key.Matches(msg, k.Search):
		v.searching = true
		v.search.value = ""
		var cmd tea.Cmd
		if v.focus == focusPane {
			cmd = tv.Search("")
		}
		v.layoutPane()
		return cmd
	}
	if v.focus == focusList {
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
			if r, ok := l.Selected(); ok && r.child != nil {
				child := newSessionView(m.st, r.child)
				child.provider, child.compare, child.pane = v.provider, v.compare, v.pane
				child.SetSize(m.width, m.bodyHeight())
				m.stack = append(m.stack, child)
				m.info("subagent session: esc to come back")
			} else {
				v.focus, v.list.focused = focusPane, false
			}
		case key.Matches(msg, k.FocusPane):
			v.focus, v.list.focused = focusPane, false
		}
		return nil
	}
	// pane focus
	if v.pane == paneCompare {
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
		case key.Matches(msg, k.Left):
			v.focus, v.list.focused = focusList, true
		}
		return nil
	}
	if tv.scrollKey(k, msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Left):
		if tv.xOff == 0 {
			v.focus, v.list.focused = focusList, true
		} else {
			tv.Left()
		}
	case key.Matches(msg, k.Right):
		tv.Right()
	}
	return nil
}

func lowSuffix(l model.Lowering) string {
	if l == "" {
		return ""
	}
	return " · " + string(l)
}

// toggleLowering switches the lowering of opencode v1 sessions between
// the AI SDK converters and the native packages/llm.
func (m *Model) toggleLowering(v *sessionView) {
	in := v.data.sess.Info
	switch {
	case in.Agent != "" && in.Agent != model.AgentOpencode:
		m.warn(agentName(in.Agent) + " builds its own requests: there is no opencode lowering to switch")
	case in.Pipeline == model.PipelineV2:
		m.info("v2 sessions are native only: opencode's v2 loop always lowers with packages/llm")
	case m.lowering == model.LoweringNative:
		m.lowering = model.LoweringAISDK
		m.info("lowering: ai-sdk (the AI SDK converters, opencode's default)")
	default:
		m.lowering = model.LoweringNative
		m.info("lowering: native (opencode's packages/llm)")
	}
}

// otherPipeline turns the cross-pipeline Compare on (loading, in a
// command, a session of the other opencode pipeline that has a call of the
// selected tool) or off.
func (m *Model) otherPipeline(v *sessionView) tea.Cmd {
	if v.other != nil {
		v.other = nil
		v.pane = paneCompare
		m.info("Compare: providers side by side")
		return nil
	}
	r, ok := v.list.Selected()
	if !ok || m.store == nil {
		return nil
	}
	in := r.data.sess.Info
	if in.Agent != "" && in.Agent != model.AgentOpencode {
		m.warn("V compares opencode's v1 and v2 pipelines; this is a " + agentName(in.Agent) + " session")
		return nil
	}
	want := model.PipelineV2
	if in.Pipeline == model.PipelineV2 {
		want = model.PipelineV1
	}
	var top, sub []model.SessionInfo
	for _, s := range m.picker.all {
		if (s.Agent != "" && s.Agent != model.AgentOpencode) || s.Pipeline != want {
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
		m.warn("no opencode " + string(want) + " session in the loaded stores to compare with")
		return nil
	}
	m.loading++
	m.info("looking for a " + r.info().call().Tool + " call in a " + string(want) + " session…")
	return otherCmd(m.store, cands, r.info().call().Tool)
}

// evictConvs drops the oldest conversations beyond maxConvs, and the
// oldest lazy ones beyond maxLazyConvs (each holds its session's whole
// outline lowered).
func (m *Model) evictConvs() {
	lazy := 0
	for _, k := range m.convAge {
		if m.convs[k].lazy {
			lazy++
		}
	}
	for i := 0; i < len(m.convAge); {
		k := m.convAge[i]
		r := m.convs[k]
		if len(m.convAge) <= maxConvs && (!r.lazy || lazy <= maxLazyConvs) {
			i++
			continue
		}
		if r.lazy {
			lazy--
		}
		if r.file != nil {
			r.file.Close()
		}
		delete(m.convs, k)
		m.convAge = append(m.convAge[:i], m.convAge[i+1:]...)
	}
}

// openSpill opens the selected call's spilled full output in the viewer,
// or in $PAGER.
// maxCopyBytes is the largest pane text y copies to the clipboard.
const maxCopyBytes = 16 << 20

func (m *Model) openSpill(pager bool) tea.Cmd {
	v := m.current()
	r, ok := v.list.Selected()
	if !ok {
		return nil
	}
	ci := r.info()
	t := ci.vis.Truncation
	switch {
	case !ci.ready:
		m.warn("the call's output is still being read")
		return nil
	case t == nil:
		m.warn("this call's output was not truncated: the model saw all of it")
		return nil
	case t.SpillGone():
		m.fail(spillGoneText(t.SpillPath))
		return nil
	case t.SpillFound == "":
		m.warn(fmt.Sprintf("no spill file: a %s truncation keeps no full output", t.Kind))
		return nil
	}
	spills := sessions.SpillsFor(v.data.sess.Info)
	spills.AllowOutside = m.spillAsked == t.SpillFound // asked, and o pressed again
	m.spillAsked = ""
	if pager {
		return spillPagerCmd(spills, t.SpillFound)
	}
	if m.spill != nil {
		m.spill.Close()
	}
	m.spill = newSpillView(m.st, ci.call().Tool, t)
	m.spill.SetSize(m.width, m.bodyHeight())
	m.loading++
	return spillCmd(spills, t.SpillFound)
}

// copyPane copies a pane's text, or its file fl when it has one, to the
// clipboard with OSC 52; a file is read in the command, and one over
// maxCopyBytes is not.
func (m *Model) copyPane(fl *fileLines, what, text string) tea.Cmd {
	if fl == nil {
		m.info(fmt.Sprintf("copied %s of %s to the clipboard (OSC 52)", humanBytes(len(text)), what))
		return tea.SetClipboard(text)
	}
	if fl.size > maxCopyBytes {
		m.warn(fmt.Sprintf("%s is %s, more than the %s copied to the clipboard: O opens it in $PAGER", what, humanBytes(int(fl.size)), humanBytes(maxCopyBytes)))
		return nil
	}
	m.info(fmt.Sprintf("copied %s of %s to the clipboard (OSC 52)", humanBytes(int(fl.size)), what))
	return func() tea.Msg {
		text, err := fl.readAll()
		if err != nil {
			return copyFailedMsg{err}
		}
		return tea.SetClipboard(text)()
	}
}

// copyFailedMsg tells that a file to copy could not be read.
type copyFailedMsg struct{ err error }

func pagerCmd(path string) tea.Cmd {
	pager := strings.Fields(os.Getenv("PAGER"))
	if len(pager) == 0 {
		pager = []string{"less"}
	}
	c := exec.Command(pager[0], append(pager[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return pagerDoneMsg{err} })
}

func (m *Model) spillKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	s := m.spill
	tv := &s.tv
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Back):
		if tv.query != "" {
			cmd := tv.Search("")
			s.search.value = ""
			s.layout()
			return cmd
		}
		s.Close()
		m.spill = nil
	case key.Matches(msg, k.Pager):
		return pagerCmd(s.path)
	case key.Matches(msg, k.Copy):
		return m.copyPane(tv.file, "the full output", "")
	case key.Matches(msg, k.Search):
		s.searching = true
		s.search.value = ""
		cmd := tv.Search("")
		s.layout()
		return cmd
	case tv.scrollKey(k, msg):
	case key.Matches(msg, k.Left):
		tv.Left()
	case key.Matches(msg, k.Right):
		tv.Right()
	}
	return nil
}

func (m *Model) handleWheel(ms tea.Mouse) {
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
	case m.showHelp:
	case m.spill != nil:
		m.spill.tv.ScrollDown(3 * d)
	case m.page == pagePicker:
		m.picker.Move(d)
	case m.current() != nil:
		v := m.current()
		if ms.X < v.listW {
			v.list.Move(d)
		} else if v.pane == paneCompare {
			v.cmp.ScrollDown(3 * d)
		} else {
			v.views[v.pane].ScrollDown(3 * d)
		}
	}
}

func (m *Model) handleClick(ms tea.Mouse) {
	if ms.Button != tea.MouseLeft || m.showHelp || m.spill != nil {
		return
	}
	y := ms.Y - 1 // below the header
	switch {
	case m.page == pagePicker:
		if i := m.picker.rowAt(y); i >= 0 {
			m.picker.sel = i
			m.picker.scroll()
		}
	case m.current() != nil:
		v := m.current()
		if ms.X < v.listW {
			v.focus, v.list.focused = focusList, true
			if i := v.list.rowAt(y - 1); i >= 0 {
				v.list.Select(i)
			}
			return
		}
		v.focus, v.list.focused = focusPane, false
		if y == 1 {
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
}

// View composes the screen: header, body, status bar, help.
func (m Model) View() tea.View {
	var body string
	bh := m.bodyHeight()
	switch {
	case m.showHelp:
		body = box(m.st, "Help (? or esc to close)", m.fullHelpLines(m.width-2), m.width, bh, true)
	case m.spill != nil:
		body = m.spill.View()
	case m.current() != nil:
		body = m.current().View()
	default:
		body = m.picker.View()
	}
	lines := []string{m.headerView()}
	lines = append(lines, strings.Split(body, "\n")...)
	lines = append(lines, m.statusView(), fit(m.help.ShortHelpView(m.ShortHelp()), m.width))
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "correx"
	return v
}

func (m Model) headerView() string {
	st := m.st
	left := st.Header.Render("correx")
	crumbs := []string{"sessions"}
	if v := m.current(); v != nil {
		crumbs = crumbs[:0]
		for _, s := range m.stack {
			in := s.data.sess.Info
			crumbs = append(crumbs, inertString(firstNonEmpty(in.Title, in.ID), st.Inert))
		}
	}
	left += st.Muted.Render(" › ") + strings.Join(crumbs, st.Muted.Render(" › "))
	right := ""
	if v := m.current(); v != nil {
		in := v.data.sess.Info
		right = st.HeaderID.Render(inertString(in.ID, st.Inert) + " · " + inertString(agentVersion(in), st.Inert))
	}
	if m.opts.Demo {
		right = st.Demo.Render(" DEMO: built-in sample sessions, not your recordings ") + " " + right
	}
	return spread(left, right, m.width)
}

// spread puts left and right on one line of w cells; left is cut first.
func spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return fit(right, w)
	}
	return fit(left, w-rw-1) + " " + right
}

func (m Model) statusView() string {
	st := m.st
	var left string
	switch {
	case m.status.text != "":
		s := st.StatusInfo
		switch m.status.kind {
		case statusWarn:
			s = st.StatusWarn
		case statusError:
			s = st.StatusErrM
		}
		left = s.Render(inertString(m.status.text, st.Inert))
	case len(m.warnings) > 0:
		w := fmt.Sprintf("⚠ %d warning", len(m.warnings))
		if len(m.warnings) > 1 {
			w += "s"
		}
		left = st.StatusWarn.Render(w+": ") + st.Muted.Render(inertString(m.warnings[0], st.Inert))
	}
	var right string
	if m.busy() {
		right = m.spin.View() + st.Muted.Render(" loading")
	} else if v := m.current(); v != nil {
		if r, ok := v.list.Selected(); ok {
			ci := r.info()
			right = st.Muted.Render(fmt.Sprintf("call %d/%d · step %d · %s", v.list.sel+1, len(v.list.rows), ci.step, v.provider.Label()) +
				lowSuffix(render.SessionLowering(r.data.sess.Info, m.lowering)))
		}
	}
	return spread(left, right, m.width)
}

// ShortHelp is the footer: the keys of whatever has focus.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.showHelp:
		return []key.Binding{k.Help, k.Quit}
	case m.spill != nil:
		return []key.Binding{k.Down, k.Search, k.Next, k.Pager, k.Copy, k.Back, k.Help}
	case m.current() != nil:
		v := m.current()
		if v.focus == focusList {
			open := k.Open
			if r, ok := v.list.Selected(); ok && r.child != nil {
				open = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "into subagent"))
			}
			keys := []key.Binding{k.Down, open, k.NextPane, k.Provider, k.Lowering}
			if v.pane == paneCompare {
				keys = append(keys, k.OtherPipe)
			}
			return append(keys, k.Help, k.Spill, k.Search, k.Back)
		}
		keys := []key.Binding{k.Down, k.NextPane, k.Provider, k.Lowering}
		if v.pane == paneCompare {
			keys = append(keys, k.OtherPipe)
		}
		// ? early: a narrow footer is cut at the right
		return append(keys, k.Help, k.Search, k.Spill, k.Copy, k.Back)
	}
	return []key.Binding{k.Down, k.Open, k.Filter, k.Quit, k.Help}
}

// FullHelp is the ? screen, following focus like the footer.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	global := []key.Binding{k.Help, k.Back, k.Quit}
	move := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom}
	switch {
	case m.spill != nil:
		return [][]key.Binding{move, {k.Left, k.Search, k.Next, k.Copy, k.Pager}, global}
	case len(m.stack) > 0 && m.page == pageSession:
		return [][]key.Binding{
			move,
			{k.Open, k.FocusPane, k.Left, k.NextPane, k.PrevPane, k.JumpPane},
			{k.Provider, k.Provider2, k.Lowering, k.Inputs, k.OtherPipe},
			{k.Search, k.Next, k.Copy, k.Spill, k.Pager},
			global,
		}
	}
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Open, k.Filter}, global}
}

// fullHelpLines lays the full help's groups out in columns, starting a new
// band of columns when the next group does not fit in w.
func (m Model) fullHelpLines(w int) []string {
	st := m.st.Help
	var blocks [][]string
	for _, group := range m.FullHelp() {
		kw := 0
		for _, b := range group {
			if b.Enabled() && b.Help().Key != "" {
				kw = max(kw, ansi.StringWidth(b.Help().Key))
			}
		}
		var block []string
		for _, b := range group {
			if !b.Enabled() || b.Help().Key == "" {
				continue
			}
			h := b.Help()
			block = append(block, st.FullKey.Render(fmt.Sprintf("%-*s", kw, h.Key))+" "+st.FullDesc.Render(h.Desc))
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	var out []string
	var band [][]string
	bandW := 0
	flush := func() {
		if len(band) == 0 {
			return
		}
		rows := 0
		widths := make([]int, len(band))
		for i, b := range band {
			rows = max(rows, len(b))
			for _, l := range b {
				widths[i] = max(widths[i], ansi.StringWidth(l))
			}
		}
		for r := 0; r < rows; r++ {
			var line strings.Builder
			for i, b := range band {
				cell := ""
				if r < len(b) {
					cell = b[r]
				}
				if i > 0 {
					line.WriteString("   ")
				}
				line.WriteString(padRight(cell, widths[i]))
			}
			out = append(out, line.String())
		}
		out = append(out, "")
		band, bandW = nil, 0
	}
	for _, b := range blocks {
		bw := 0
		for _, l := range b {
			bw = max(bw, ansi.StringWidth(l))
		}
		if len(band) > 0 && bandW+3+bw > w {
			flush()
		}
		if len(band) > 0 {
			bandW += 3
		}
		band = append(band, b)
		bandW += bw
	}
	flush()
	return out
}
