package tui

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"correx/model"
	"correx/sessions"
)

// spillView shows a spilled full output and marks in the gutter the lines
// the model saw: ▌ a line it saw whole, ▖ a line it saw part of. The marks
// are formatters' seen ranges placed in the spill file, nothing else.
type spillView struct {
	a             *app
	st            *Styles
	width, height int

	path    string
	trunc   *model.Truncation
	tool    string
	loading bool
	err     error
	cut     int64

	marks    []lineMark // the seen lines, in order
	unplaced int        // seen ranges not found in the spill file
	tv       textView

	searching bool
	search    lineInput
}

// lineMark is a run of lines First..Last (1-based) the model saw whole,
// or one line it saw part of.
type lineMark struct {
	model.LineRange
	part bool
}

func newSpillView(a *app, tool string, t *model.Truncation) *spillView {
	st := a.st
	s := &spillView{a: a, st: st, trunc: t, tool: tool, path: t.SpillFound, loading: true}
	s.tv = newTextView(st)
	s.marks, s.unplaced = seenMarks(t)
	s.tv.seen = func(i int) rune { return markOf(s.marks, i+1) }
	return s
}

// seenMarks turns the seen ranges placed in the spill file into runs of
// whole lines and single part lines, in order: a line one range saw in
// part and another whole is whole; a line two ranges each saw in part (a
// cut inside it) stays part.
func seenMarks(t *model.Truncation) (marks []lineMark, unplaced int) {
	var whole []model.LineRange
	var parts []int
	for _, r := range t.Seen {
		if !r.Placed || r.Lines == nil {
			unplaced++
			continue
		}
		first, last := r.Lines.First, r.Lines.Last
		if r.PartialFirst {
			parts = append(parts, first)
			first++
		}
		if r.PartialLast && last >= first {
			parts = append(parts, last)
			last--
		}
		if first <= last {
			whole = append(whole, model.LineRange{First: first, Last: last})
		}
	}
	sort.Slice(whole, func(i, j int) bool { return whole[i].First < whole[j].First })
	for _, w := range whole {
		if n := len(marks); n > 0 && w.First <= marks[n-1].Last+1 {
			marks[n-1].Last = max(marks[n-1].Last, w.Last)
			continue
		}
		marks = append(marks, lineMark{LineRange: w})
	}
	sort.Ints(parts)
	wholeRuns := len(marks)
	for i, p := range parts {
		if (i == 0 || p != parts[i-1]) && markOf(marks[:wholeRuns], p) == 0 {
			marks = append(marks, lineMark{LineRange: model.LineRange{First: p, Last: p}, part: true})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].First < marks[j].First })
	return marks, unplaced
}

// markOf is the gutter mark of 1-based line n: ▌, ▖ or 0.
func markOf(marks []lineMark, n int) rune {
	i := sort.Search(len(marks), func(i int) bool { return marks[i].Last >= n })
	switch {
	case i == len(marks) || marks[i].First > n:
		return 0
	case marks[i].part:
		return '▖'
	}
	return '▌'
}

// seenText says which lines the model saw: "lines 1–2, part of line 3 and
// lines 4–8".
func seenText(marks []lineMark) string {
	var parts []string
	for _, m := range marks {
		switch {
		case m.part:
			parts = append(parts, "part of line "+commas(m.First))
		case m.First == m.Last:
			parts = append(parts, "line "+commas(m.First))
		default:
			parts = append(parts, fmt.Sprintf("lines %s–%s", commas(m.First), commas(m.Last)))
		}
	}
	if len(parts) == 0 {
		return "no line"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
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
	// start where the model's view starts (the tail of a tail truncation)
	if len(s.marks) > 0 && s.marks[0].First > 1 {
		s.tv.GotoLine(s.marks[0].First - 1)
	}
	s.layout()
}

func (s *spillView) info() []string {
	st := s.st
	n := s.tv.Lines()
	first := st.Label.Render("full output ") + inertString(s.path, st.Inert)
	saw := seenText(s.marks) + " of " + commas(n)
	if len(s.marks) == 0 && s.unplaced == 0 {
		saw = fmt.Sprintf("none of its %s %s", commas(n), plural(n, "line", "lines"))
	}
	second := st.GutterSeen.Render("▌") + st.Muted.Render(fmt.Sprintf(" model saw %s (%s)", saw, s.trunc.Kind))
	if s.unplaced > 0 {
		second += st.BadgeWarn.Render(fmt.Sprintf(" · %d seen %s not found in this file", s.unplaced, plural(s.unplaced, "piece", "pieces")))
	}
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
