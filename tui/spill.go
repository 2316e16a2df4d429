package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// spillView shows a spilled full output and marks (▌ in the gutter) the
// lines the model saw: the head kept before the first marker and the tail
// kept after the last one (a bash tail truncation keeps the last lines, a
// generic one the first, a v2 bound both).
type spillView struct {
	st            *Styles
	width, height int

	path    string
	trunc   *model.Truncation
	tool    string
	loading bool
	err     error
	cut     int64

	head, tail int // lines of the file the model saw at its start and end
	tv         textView

	searching bool
	search    lineInput
}

func newSpillView(st *Styles, tool string, t *model.Truncation, visible string) *spillView {
	s := &spillView{st: st, trunc: t, tool: tool, path: t.SpillFound, loading: true}
	s.tv = newTextView(st)
	if n := len(t.Markers); n > 0 {
		s.head = formatters.CountLines(visible[:t.Markers[0].Start])
		s.tail = formatters.CountLines(visible[t.Markers[n-1].End:])
	} else {
		s.head = formatters.CountLines(visible)
	}
	total := func() int { return s.tv.Lines() }
	s.tv.seen = func(i int) bool { return i < s.head || i >= total()-s.tail }
	return s
}

// Close closes the spill file.
func (s *spillView) Close() {
	s.tv.cancelSearch()
	if s.tv.file != nil {
		s.tv.file.Close()
	}
}

func (s *spillView) SetStyles(st *Styles) { s.st = st; s.tv.SetStyles(st) }

func (s *spillView) SetSize(w, h int) {
	s.width, s.height = w, h
	s.layout()
}

func (s *spillView) layout() {
	extra := 0
	if s.searching || s.tv.query != "" {
		extra = 1
	}
	s.tv.SetSize(max(s.width-2, 1), max(s.height-2-2-extra, 1))
}

// SetFile shows the spill file, indexed by spillCmd.
func (s *spillView) SetFile(fl *fileLines, cut int64, err error) {
	s.loading, s.err, s.cut = false, err, cut
	s.tv.empty = "(the spill file is empty)"
	if fl != nil {
		s.tv.SetFile(fl, nil, false)
	}
	// start where the model's view starts: the tail for a tail truncation
	if s.head == 0 && s.tail > 0 {
		s.tv.GotoLine(max(s.tv.Lines()-s.tail, 0))
	}
	s.layout()
}

func (s *spillView) info() []string {
	st := s.st
	n := s.tv.Lines()
	first := st.Label.Render("full output ") + inertString(s.path, st.Inert)
	var seen []string
	if s.head > 0 {
		seen = append(seen, fmt.Sprintf("lines 1–%s", commas(min(s.head, n))))
	}
	if s.tail > 0 {
		seen = append(seen, fmt.Sprintf("lines %s–%s", commas(max(n-s.tail+1, 1)), commas(n)))
	}
	second := st.GutterSeen.Render("▌") + st.Muted.Render(" model saw "+strings.Join(seen, " and ")+fmt.Sprintf(" of %s (%s)", commas(n), s.trunc.Kind))
	if s.cut > 0 {
		second += st.BadgeWarn.Render(fmt.Sprintf(" · only the first %s shown, %s not read", humanBytes(maxSpillBytes), humanBytes(int(s.cut))))
	}
	return []string{first, second}
}

func (s *spillView) View() string {
	st := s.st
	iw := max(s.width-2, 1)
	var inner []string
	switch {
	case s.loading:
		inner = append(inner, st.Muted.Render("reading "+inertString(s.path, st.Inert)+"…"))
	case s.err != nil:
		inner = append(inner, st.BadgeErr.Render("could not read the spill file: ")+inertString(s.err.Error(), st.Inert))
	default:
		inner = append(inner, s.info()...)
		if s.searching {
			inner = append(inner, st.Prompt.Render("/")+s.search.View()+" "+st.Muted.Render(s.tv.MatchInfo()))
		} else if s.tv.query != "" {
			inner = append(inner, st.Muted.Render(s.tv.MatchInfo()+"  (n/N)"))
		}
		inner = append(inner, strings.Split(s.tv.View(), "\n")...)
	}
	for i := range inner {
		inner[i] = fit(inner[i], iw)
	}
	title := "Full output of " + s.tool
	if n := s.tv.Lines(); n > 0 {
		title += fmt.Sprintf(" %d–%d/%d", s.tv.yOff+1, min(s.tv.yOff+s.tv.height, n), n)
	}
	return box(st, title, inner, s.width, s.height, true)
}

// maxSpillBytes caps how much of a spill file is indexed (8 bytes a line).
const maxSpillBytes = 256 << 20

// spillCmd opens a spill file the way its session's spill finder allows
// (in the agent's spill folder unless asked, a regular file) and indexes
// it by line; the viewer reads the lines on screen from it.
func spillCmd(spills sessions.Spills, path string) tea.Cmd {
	return func() tea.Msg {
		f, _, err := spills.Open(path)
		if err != nil {
			return spillMsg{path: path, err: err}
		}
		fl, cut, err := indexFile(f, maxSpillBytes)
		return spillMsg{path: path, file: fl, cut: cut, err: err}
	}
}

// spillPagerCmd runs $PAGER on a spill file that passes the same checks
// (on the file itself, its symlinks resolved).
func spillPagerCmd(spills sessions.Spills, path string) tea.Cmd {
	return func() tea.Msg {
		f, _, err := spills.Open(path)
		if err != nil {
			return spillMsg{path: path, err: err, pager: true}
		}
		f.Close()
		return pagerCmd(f.Name())()
	}
}

// spillOpened shows what spillCmd or spillPagerCmd found. A spill outside
// its agent's spill folder is not opened: the user is asked first.
func (m *Model) spillOpened(msg spillMsg) {
	var outside *sessions.OutsideSpillError
	if !msg.pager {
		m.loading = max(m.loading-1, 0)
	}
	viewer := m.spill != nil && m.spill.path == msg.path && m.spill.loading
	switch {
	case errors.As(msg.err, &outside):
		if viewer {
			m.spill.Close()
			m.spill = nil
		}
		m.spillAsked = msg.path
		key := "o"
		if msg.pager {
			key = "O"
		}
		m.warn(fmt.Sprintf("outside %s's spill folder: press %s again to open", outside.Agent.Name(), key))
	case msg.pager:
		m.fail("could not read the spill file: " + inertString(msg.err.Error(), plainStyle))
	case viewer:
		m.spill.SetFile(msg.file, msg.cut, msg.err)
	case msg.file != nil:
		msg.file.Close() // the viewer was closed meanwhile
	}
}
