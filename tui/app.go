package tui

import (
	"context"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"correx/model"
	"correx/sessions"
	"correx/sessions/opencode"
)

// Config holds the TUI's tunables, in place of package-level variables;
// tests shorten them through Options.Config.
type Config struct {
	// LiveEvery is the time between two live checks of the store.
	LiveEvery time.Duration
	// FirstPage and Page are the messages read per outline page of a lazy
	// session: the first page, and each one after.
	FirstPage, Page int
	// OutlineBytes bounds the memory a lazy session's outline takes
	// (about: sessionData.outlineBytes): a row for each of its calls, its
	// messages, and the parts of the most recently used pages, by whole
	// pages (heldBytes), at least one (0 holds every page); the others are
	// read again when one of their calls is shown or a conversation is
	// rendered.
	OutlineBytes int
	// MaxInMemoryJSON is the largest conversation JSON of a lazy session a
	// pane reads back into memory; a larger one is shown from its spool.
	MaxInMemoryJSON int64
	// SpoolTextBytes is the size of a lazy session's output left in the
	// store past which, when the model saw it as it is stored, its text is
	// written to a spool file and shown from there, never held.
	SpoolTextBytes int
	// StatusTTL is how long a status message stays on the status line.
	StatusTTL time.Duration
}

// outlineBytesDefault: at 5,000 calls every agent's rows and messages
// take about 1 MB and their parts 4 to 6 MB, all held, so that a pane's
// first screen (Compare's tails, a request's head) needs no page read
// again: with 2 MB of parts held, opencode's Compare showed its first
// screen in 278 ms, not 9. At 50,000 calls (16,680 messages) the rows
// and messages take 10 MB and the parts 44: one page is held (4,096
// messages held took the inspector to 79 MB). A page dropped costs a
// read when one of its calls is shown, never a key's frame: the
// conversations are copied in their Cmds (lowerFrom).
const outlineBytesDefault = 8 << 20

// DefaultConfig returns the tunables correx runs with.
func DefaultConfig() Config {
	return Config{LiveEvery: 2 * time.Second, FirstPage: 32, Page: 128, OutlineBytes: outlineBytesDefault, MaxInMemoryJSON: 4 << 20, SpoolTextBytes: 8 << 20, StatusTTL: 5 * time.Second}
}

// component is what every view of the TUI is: it takes the messages routed
// to it, draws itself at the size it is given, and names its keys for the
// hint bar and the help.
type component interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// app is what the root and every component share (soft-serve's Common):
// the run's context, the configuration, styles and keys, the store, the
// settings that apply to every session, and the status line.
type app struct {
	ctx    context.Context
	cancel context.CancelFunc
	cfg    Config
	st     *Styles
	keys   KeyMap
	store  sessions.Store
	now    func() time.Time

	// lowering is the lowering shown for opencode v1 sessions (L); v2
	// sessions are always native, other agents have none.
	lowering model.Lowering
	// inputs overrides the declared inputs of opencode models (I); machine
	// is where their config is read
	inputs  model.CapsOverride
	machine opencode.Machine
	// listed is the store's sessions as last listed
	listed []model.SessionInfo
	// spillAsked is the spill outside its agent's spill folder the user
	// was asked about: o (or O) again opens it.
	spillAsked string

	loading int // sessions, pages and files being read
	// listAfterLoad: the counted list waits for the session opened at
	// start (Init)
	listAfterLoad bool
	status        status
	statusN       int // counts status messages, so a clear timer clears only its own
	warnings      []string
}

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

// statusClearMsg clears the status line if it still shows message n.
type statusClearMsg struct{ n int }

func (a *app) setStatus(s string, k statusKind) {
	a.status = status{s, k}
	a.statusN++
}

func (a *app) info(s string) { a.setStatus(s, statusInfo) }
func (a *app) warn(s string) { a.setStatus(s, statusWarn) }
func (a *app) fail(s string) { a.setStatus(s, statusError) }
func (a *app) clearStatus()  { a.status = status{} }

// quit ends the run: every command still running sees the context done.
func (a *app) quit() tea.Cmd {
	a.cancel()
	return tea.Quit
}

// addWarnings adds the warnings not listed yet: a store's notices come
// again with every session and page it loads.
func (a *app) addWarnings(ws ...string) {
	for _, w := range ws {
		if !slices.Contains(a.warnings, w) {
			a.warnings = append(a.warnings, w)
		}
	}
}

// Messages components send the root, which owns the navigation.
type (
	openMsg      struct{ info model.SessionInfo } // open a session from the picker
	backMsg      struct{}                         // leave the current page
	closeMsg     struct{}                         // close the overlay on top
	pushMsg      struct{ v *sessionView }         // show a subagent session
	openSpillMsg struct {                         // view a spilled full output
		tool   string
		trunc  *model.Truncation
		spills sessions.Spills // how it may be opened
	}
)

func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
