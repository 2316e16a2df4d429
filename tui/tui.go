// Package tui is correx's terminal inspector: pick a recorded session, pick
// a tool call, and see exactly what the model saw when it ran — the call,
// the model-visible result byte for byte with its truncation, and the wire
// JSON each provider would have received.
//
// Every view is a component (app.go): picker, session view (call list and
// panes, the panes registered in panes.go), spill viewer, help and
// warnings, each with its own Update, View, keys and SetSize, sharing one
// *app (context, config, styles, keys, status). The root Model only routes
// messages (window size to every component, keys and the mouse to the one
// on top) and lays the screen out. All IO (listing, loading, rendering
// conversations, reading spill files) runs in tea.Cmds under the app's
// context, and View only composes cached renders.
package tui

import (
	"context"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"correx/model"
	"correx/sessions"
	"correx/sessions/opencode"
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
	// not catch). Every command runs under it.
	Context context.Context
	// Machine is where opencode's config is read (zero: this machine).
	Machine opencode.Machine
	// Config is the tunables (nil: DefaultConfig).
	Config *Config
}

// frameRate is how many frames a second the TUI draws at most.
const frameRate = 30

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
	m := New(opts)
	defer m.cancel()
	// Bubble Tea's renderer wakes at every frame, idle or not: at its
	// default 60 a TUI left open used 1.5% of a core doing nothing, at 30
	// under 1% (a frame then waits at most 33 ms for its tick)
	popts = append(popts, tea.WithFPS(frameRate))
	_, err := tea.NewProgram(m, popts...).Run()
	return err
}

type page int

const (
	pagePicker page = iota
	pageSession
)

// Model is the root model: it owns the navigation (picker, the stack of
// session views, the spill viewer, an overlay) and routes messages.
type Model struct {
	*app
	opts Options
	help help.Model
	spin spinner.Model

	width, height int

	page    page
	picker  picker
	stack   []*sessionView
	spill   *spillView
	overlay component // help or warnings, over everything else

	convs    convCache
	checking bool         // a live check is running (live.go)
	liveNext *sessionData // a live reload still reading its pages
	listedFP string       // the fingerprint of a full list, for a live check that has none
}

// New returns the root model. The theme is dark until the terminal
// answers the background colour query.
func New(opts Options) Model {
	st := NewStyles(true)
	a := &app{cfg: DefaultConfig(), st: st, keys: DefaultKeyMap(), now: time.Now,
		lowering: model.LoweringAISDK, machine: opts.Machine,
		warnings: append([]string(nil), opts.Warnings...)}
	if opts.Config != nil {
		a.cfg = *opts.Config
	}
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	a.ctx, a.cancel = context.WithCancel(parent)
	if a.machine.Env == nil && a.machine.Root == "" {
		a.machine = opencode.ThisMachine()
	}
	m := Model{app: a, opts: opts, help: help.New(), width: 80, height: 24, convs: newConvCache()}
	m.help.Styles = st.Help
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Spinner))
	switch len(opts.Stores) {
	case 0:
	case 1:
		a.store = opts.Stores[0]
	default:
		a.store = sessions.Combine(opts.Stores...)
	}
	for _, s := range opts.Stores {
		a.addWarnings(sessions.Warnings(s)...)
	}
	m.picker = newPicker(a)
	if opts.SessionID != "" {
		a.loading++
	}
	m.layout()
	return m
}

// Init asks for the background colour, lists the sessions and opens the
// session named in the options.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.spin.Tick}
	if m.opts.Live {
		cmds = append(cmds, liveTick(m.cfg.LiveEvery))
	}
	if m.opts.SessionID != "" && m.store != nil {
		// the counted list once the session is in: counting every
		// session's calls reads every part row, and the picker is not
		// on screen
		m.listAfterLoad = true
		cmds = append(cmds, loadCmd(m.ctx, m.cfg, m.store, m.opts.SessionID))
	} else {
		cmds = append(cmds, quickListCmd(m.ctx, m.store))
	}
	return tea.Batch(cmds...)
}

func (m *Model) busy() bool { return m.loading > 0 || m.convs.busy() }

func (m *Model) current() *sessionView {
	if m.page != pageSession || len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

// active is the component that takes keys and the mouse: the one on top.
func (m *Model) active() component {
	switch {
	case m.overlay != nil:
		return m.overlay
	case m.spill != nil:
		return m.spill
	case m.current() != nil:
		return m.current()
	}
	return &m.picker
}

func (m *Model) bodyHeight() int { return max(m.height-3, 3) }

// layout gives every component its size: the header, status line and hint
// bar take a line each, the body the rest.
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
	if m.overlay != nil {
		m.overlay.SetSize(m.width, bh)
	}
}

func (m *Model) setStyles(st *Styles) {
	m.st = st
	m.help.Styles = st.Help
	m.spin.Style = st.Spinner
	for _, v := range m.stack {
		v.SetStyles(st)
	}
	if m.spill != nil {
		m.spill.SetStyles(st)
	}
}

// Update routes a message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	// later are Cmds that start after the ones the screen waits for
	// (reading a lazy session's further pages)
	var later []tea.Cmd
	wasBusy, statusN := m.busy(), m.statusN
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
	case statusClearMsg:
		if msg.n == m.statusN {
			m.clearStatus()
		}
	case listedMsg:
		if msg.quick {
			// the counted list only now: on two cores, counting beside
			// the quick list delays the first screen
			m.picker.SetQuick(msg.infos)
			cmds = append(cmds, listCmd(m.ctx, m.store))
			break
		}
		m.picker.SetSessions(msg.infos, msg.err)
		if msg.err != nil {
			m.warnings = append(m.warnings, "listing sessions: "+msg.err.Error())
		}
		m.addWarnings(msg.warns...)
		if msg.err == nil {
			m.listedFP = msg.fp
		}
	case loadedMsg:
		if m.listAfterLoad {
			m.listAfterLoad = false
			cmds = append(cmds, quickListCmd(m.ctx, m.store))
		}
		later = append(later, m.loaded(msg))
	case pageMsg:
		later = append(later, m.addPage(msg))
	case detailMsg, capsMsg, convMsg:
		m.convs.put(m.app, msg)
		if c, ok := msg.(convMsg); ok && c.next != nil {
			cmds = append(cmds, c.next)
		}
	case warmMsg:
		if v := m.current(); v != nil {
			cmds = append(cmds, m.convs.warm(m.app, v, msg))
		}
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
	case openMsg, backMsg, closeMsg, pushMsg, openSpillMsg, openWarningsMsg:
		cmds = append(cmds, m.navigate(msg))
	case tea.KeyPressMsg:
		cmds = append(cmds, m.handleKey(msg))
	case tea.MouseWheelMsg:
		ms := msg.Mouse()
		ms.Y--
		cmds = append(cmds, m.active().Update(tea.MouseWheelMsg(ms)))
	case tea.MouseClickMsg:
		ms := msg.Mouse()
		if ms.Y == m.height-2 && len(m.warnings) > 0 && m.overlay == nil {
			cmds = append(cmds, m.navigate(openWarningsMsg{}))
			break
		}
		ms.Y--
		cmds = append(cmds, m.active().Update(tea.MouseClickMsg(ms)))
	case fileSearchMsg:
		m.applySearch(msg)
	case otherMsg:
		if v := m.current(); v != nil {
			v.setOther(msg)
		} else {
			m.loading = max(m.loading-1, 0)
		}
	default:
		// a component's own messages (otherMsg, pastes)
		cmds = append(cmds, m.active().Update(msg))
	}
	if v := m.current(); v != nil {
		cmds = append(cmds, m.convs.sync(m.app, v)...)
	}
	if !wasBusy && m.busy() {
		cmds = append(cmds, m.spin.Tick)
	}
	if m.statusN != statusN && m.status.text != "" && m.cfg.StatusTTL > 0 {
		n := m.statusN
		cmds = append(cmds, tea.Tick(m.cfg.StatusTTL, func(time.Time) tea.Msg { return statusClearMsg{n} }))
	}
	cmds = append(cmds, later...)
	return m, tea.Batch(cmds...)
}

// typing reports whether c has a text input taking every key.
func typing(c component) bool {
	t, ok := c.(interface{ typing() bool })
	return ok && t.typing()
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	top := m.active()
	if typing(top) {
		return top.Update(msg)
	}
	m.clearStatus()
	if m.overlay == nil {
		switch {
		case key.Matches(msg, m.keys.Help):
			m.overlay = newHelpView(m.app, top)
			m.overlay.SetSize(m.width, m.bodyHeight())
			return nil
		case key.Matches(msg, m.keys.Warnings) && len(m.warnings) > 0:
			return m.navigate(openWarningsMsg{})
		}
	}
	return top.Update(msg)
}

// applySearch gives the result of a file search to every text view: the
// one that waits for it takes it, the others drop it as stale.
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

// View composes the screen: header, body, status line, hint bar.
func (m Model) View() tea.View {
	lines := []string{m.headerView()}
	lines = append(lines, strings.Split(m.active().View(), "\n")...)
	lines = append(lines, m.statusView(), m.hintView())
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "correx"
	return v
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
