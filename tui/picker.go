package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"correx/model"
)

// picker lists the sessions of all stores, newest first, filtered as you
// type after /.
type picker struct {
	a             *app
	width, height int
	now           func() time.Time

	all     []model.SessionInfo
	shown   []int // indexes into all
	sel     int
	off     int
	loading bool
	// counting: the rows are a quick list (sessions.ListQuick), their
	// counts still being read by the full list
	counting bool
	err      error

	filter    lineInput
	filtering bool
	// agentW is the AGENT column's width: its widest label (at least 11,
	// "opencode v2"; at most 20)
	agentW int
}

func newPicker(a *app) picker {
	return picker{a: a, now: a.now, loading: true}
}

func (p *picker) typing() bool { return p.filtering }

// Update takes a key (every key while the filter is typed) or the mouse.
func (p *picker) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if p.filtering {
			switch p.filter.Update(msg) {
			case inputDone:
				p.filtering = false
			case inputCancel:
				p.filtering = false
				p.filter.Clear()
			}
			p.apply()
			return nil
		}
		return p.key(msg)
	case tea.PasteMsg:
		if p.filtering {
			p.filter.Paste(msg.Content)
			p.apply()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			p.Move(-1)
		case tea.MouseWheelDown:
			p.Move(1)
		}
	case tea.MouseClickMsg:
		if i := p.rowAt(msg.Y); msg.Button == tea.MouseLeft && i >= 0 {
			p.sel = i
			p.scroll()
		}
	}
	return nil
}

func (p *picker) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &p.a.keys
	switch {
	case key.Matches(msg, k.Quit):
		return p.a.quit()
	case key.Matches(msg, k.Back):
		if p.filter.Value() != "" {
			p.filter.Clear()
			p.apply()
			return nil
		}
		return send(backMsg{})
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
		if in, ok := p.Selected(); ok && p.a.store != nil {
			return send(openMsg{in})
		}
	}
	return nil
}

func (p *picker) ShortHelp() []key.Binding {
	k := p.a.keys
	return []key.Binding{k.Down, k.Open, k.Filter, k.Quit, k.Help}
}

func (p *picker) FullHelp() [][]key.Binding {
	k := p.a.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Open, k.Filter}}
}

func (p *picker) SetSize(w, h int) { p.width, p.height = w, h; p.scroll() }

func (p *picker) SetSessions(infos []model.SessionInfo, err error) {
	p.all, p.err, p.loading, p.counting = infos, err, false, false
	p.a.listed = infos
	p.apply()
}

// SetQuick shows a quick list (uncounted) until SetSessions brings the
// counted one; one that arrives after it is dropped.
func (p *picker) SetQuick(infos []model.SessionInfo) {
	if !p.loading {
		return
	}
	p.all, p.loading, p.counting = infos, false, true
	p.apply()
}

func (p *picker) apply() {
	q := asciiLower(p.filter.Value())
	p.shown = p.shown[:0]
	p.agentW = 11
	for i, in := range p.all {
		label := agentLabel(in)
		p.agentW = min(max(p.agentW, utf8.RuneCountInString(label)), 20)
		hay := in.Title + " " + in.Directory + " " + in.ID + " " + label + " " + string(in.Agent)
		if q == "" || strings.Contains(asciiLower(hay), q) {
			p.shown = append(p.shown, i)
		}
	}
	p.sel = clampInt(p.sel, 0, max(len(p.shown)-1, 0))
	p.scroll()
}

// Selected returns the selected session, if any.
func (p *picker) Selected() (model.SessionInfo, bool) {
	if len(p.shown) == 0 {
		return model.SessionInfo{}, false
	}
	return p.all[p.shown[p.sel]], true
}

func (p *picker) Move(d int) {
	p.sel = clampInt(p.sel+d, 0, max(len(p.shown)-1, 0))
	p.scroll()
}

func (p *picker) rowsHeight() int { return max(p.height-2, 1) } // filter line, column header

func (p *picker) scroll() {
	h := p.rowsHeight()
	if p.sel < p.off {
		p.off = p.sel
	}
	if p.sel >= p.off+h {
		p.off = p.sel - h + 1
	}
	p.off = clampInt(p.off, 0, max(len(p.shown)-h, 0))
}

// rowAt returns the index in shown of the row at screen line y (relative
// to the picker's top), or -1.
func (p *picker) rowAt(y int) int {
	i := y - 2 + p.off
	if y < 2 || i >= len(p.shown) {
		return -1
	}
	return i
}

type pickerCols struct{ title, agent, dir, upd, calls, trunc, errs int }

func (p *picker) cols() pickerCols {
	c := pickerCols{agent: max(p.agentW, 11), upd: 10, calls: 5, trunc: 4, errs: 4}
	rest := p.width - 2 - c.agent - c.upd - c.calls - c.trunc - c.errs - 6
	c.dir = max(rest/3, 8)
	c.title = max(rest-c.dir, 10)
	return c
}

func (p *picker) View() string {
	st := p.a.st
	var lines []string
	switch {
	case p.filtering:
		lines = append(lines, fit(st.Prompt.Render("/")+p.filter.View(), p.width))
	case p.filter.Value() != "":
		lines = append(lines, fit(st.Muted.Render(fmt.Sprintf("filter: %s  (%d of %d)", inertString(p.filter.Value(), st.Inert), len(p.shown), len(p.all))), p.width))
	default:
		counting := ""
		if p.counting {
			counting = " · counting calls…"
		}
		lines = append(lines, fit(st.Muted.Render(fmt.Sprintf("%d %s, newest first · ✂ truncated calls: f flagged by the agent, d detected%s", len(p.all), plural(len(p.all), "session", "sessions"), counting)), p.width))
	}
	c := p.cols()
	hdr := "  " + fit("TITLE", c.title) + " " + fit("AGENT", c.agent) + " " + fit("DIRECTORY", c.dir) + " " +
		fmt.Sprintf("%*s %*s %*s %*s", c.upd, "UPDATED", c.calls, "CALLS", c.trunc, "✂", c.errs, "ERR")
	lines = append(lines, fit(st.ColumnHeader.Render(hdr), p.width))
	h := p.rowsHeight()
	switch {
	case p.loading:
		lines = append(lines, fit(st.Muted.Render("  loading sessions…"), p.width))
	case p.err != nil && len(p.all) == 0:
		lines = append(lines, fit(st.StatusErrM.Render("  could not list sessions: ")+inertString(p.err.Error(), st.Inert), p.width))
	case len(p.all) == 0:
		lines = append(lines, fit(st.Muted.Render("  no sessions found"), p.width))
	case len(p.shown) == 0:
		lines = append(lines, fit(st.Muted.Render("  no session matches the filter"), p.width))
	}
	for k := 0; k < h && p.off+k < len(p.shown); k++ {
		i := p.off + k
		lines = append(lines, p.row(p.all[p.shown[i]], i == p.sel, c))
	}
	for len(lines) < p.height {
		lines = append(lines, strings.Repeat(" ", p.width))
	}
	return strings.Join(lines[:p.height], "\n")
}

func (p *picker) row(in model.SessionInfo, sel bool, c pickerCols) string {
	st := p.a.st
	title := in.Title
	if title == "" {
		title = in.ID
	}
	mark := "  "
	if in.ParentID != "" {
		mark = "↳ "
		title = "subagent: " + title
	}
	num := func(n, w int, s lipgloss.Style) string {
		if in.Uncounted {
			return st.Subtle.Render(fmt.Sprintf("%*s", w, "…"))
		}
		t := fmt.Sprintf("%*d", w, n)
		if in.Damaged != "" { // rows left unread: at least n (a warning says which)
			t = fmt.Sprintf("%*s", w, fmt.Sprintf("%d+", n))
		}
		if n == 0 && in.Damaged == "" {
			return st.Subtle.Render(t)
		}
		return s.Render(t)
	}
	upd := fmt.Sprintf("%*s", c.upd, relTime(in.Updated, p.now()))
	plain := mark + fit(inertString(title, st.Inert), c.title) + " " +
		fit(st.Value.Render(inertString(agentLabel(in), st.Inert)), c.agent) + " " +
		fit(st.Muted.Render(shortDir(in.Directory, c.dir)), c.dir) + " " +
		st.Muted.Render(upd) + " " + num(in.ToolCalls, c.calls, st.Value) + " " +
		truncCell(st, in, c.trunc) + " " + num(in.Errors, c.errs, st.ErrBadge)
	row := fit(plain, p.width)
	if sel {
		return st.Selected.Render(ansi.Strip(row))
	}
	return row
}

// truncCell is a session's truncated calls in w cells, suffixed with how
// they were counted: "2f" flagged by the agent (opencode's own record, read
// without loading outputs), "2d" detected by correx in the results.
func truncCell(st *Styles, in model.SessionInfo, w int) string {
	if in.Uncounted {
		return st.Subtle.Render(fmt.Sprintf("%*s", w, "…"))
	}
	t := fmt.Sprintf("%*d%s", w-1, in.Truncated, in.TruncatedBy()[:1])
	if in.Truncated == 0 {
		return st.Subtle.Render(t)
	}
	return st.TruncBadge.Render(t)
}

// shortDir shows a directory in w cells: ~ for the home dir, and its tail
// when it is too long.
func shortDir(dir string, w int) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(dir, home) {
		dir = "~" + dir[len(home):]
	}
	dir = inertString(dir, plainStyle)
	if ansi.StringWidth(dir) <= w {
		return dir
	}
	parts := strings.Split(filepath.ToSlash(dir), "/")
	for k := 1; k < len(parts); k++ {
		s := "…/" + strings.Join(parts[k:], "/")
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return ansi.TruncateLeft(dir, ansi.StringWidth(dir)-w+1, "…")
}
