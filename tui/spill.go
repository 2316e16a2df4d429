package tui

import (
	"correx/formatters"
	"fmt"
	"strings"

	"correx/model"
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
