package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"correx/model"
)

// textView shows a text exactly, line by line, with line numbers, inert
// control characters, marked byte spans (truncation markers), optional
// per-line syntax highlighting, search and scrolling. It never wraps: the
// text's lines are the screen's lines, scrolled sideways when long.
//
// Rendering is lazy: only the lines on screen are styled, and each styled
// line is cached until the content, the search or the styles change, so a
// huge output scrolls as fast as a small one.
type textView struct {
	st            *Styles
	width, height int

	text   string
	lines  []string
	starts []int // byte offset of each line in text
	trail  bool  // text ends with a newline
	// syntax styles one line (chroma, one line at a time); nil for none.
	syntax func(line string) []span
	marks  []model.Span
	// seen marks lines in the gutter (the lines of a spill file the model saw).
	seen func(i int) bool
	// lineStyle, when set, gives a line's base style (diff rows).
	lineStyle func(i int) (lipgloss.Style, bool)
	numbers   bool
	empty     string // shown when the text is empty

	yOff, xOff int
	cache      map[int]string

	query   string
	matches []match
	cur     int
}

type match struct{ line, start, end int }

// maxLineBytes caps how much of one line is styled; the rest is counted.
const maxLineBytes = 32 << 10

func newTextView(st *Styles) textView {
	return textView{st: st, numbers: true, cache: map[int]string{}}
}

// SetContent replaces the text. Scroll position and search are kept when
// keep is set (the same content re-rendered), else reset.
func (v *textView) SetContent(text string, lex chroma.Lexer, marks []model.Span, keep bool) {
	var syntax func(string) []span
	if lex != nil {
		syntax = func(line string) []span { return syntaxSpans(lex, line, 0, v.st) }
	}
	v.SetContentSyntax(text, syntax, marks, keep)
}

// SetContentSyntax is SetContent with a line styler of the caller's.
func (v *textView) SetContentSyntax(text string, syntax func(string) []span, marks []model.Span, keep bool) {
	v.text, v.syntax, v.marks = text, syntax, marks
	v.trail = strings.HasSuffix(text, "\n")
	v.lines, v.starts = splitLines(text)
	v.cache = map[int]string{}
	if !keep {
		v.yOff, v.xOff = 0, 0
		v.query, v.matches, v.cur = "", nil, 0
	} else {
		v.search(v.query, false)
	}
	v.clamp()
}

// splitLines splits text at \n; a final newline does not start a line.
func splitLines(text string) ([]string, []int) {
	if text == "" {
		return nil, nil
	}
	body := strings.TrimSuffix(text, "\n")
	lines := strings.Split(body, "\n")
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	return lines, starts
}

func (v *textView) SetStyles(st *Styles) { v.st = st; v.cache = map[int]string{} }

func (v *textView) SetSize(w, h int) {
	v.width, v.height = max(w, 1), max(h, 1)
	v.clamp()
}

func (v *textView) Lines() int { return len(v.lines) }

func (v *textView) gutterWidth() int {
	if !v.numbers {
		return 0
	}
	w := len(fmt.Sprint(max(len(v.lines), 1))) + 1 // number, then │
	if v.seen != nil {
		w++
	}
	return w
}

func (v *textView) contentWidth() int { return max(v.width-v.gutterWidth(), 1) }

func (v *textView) maxY() int { return max(len(v.lines)-v.height, 0) }

func (v *textView) clamp() {
	v.yOff = clampInt(v.yOff, 0, v.maxY())
	if v.xOff < 0 {
		v.xOff = 0
	}
}

func (v *textView) ScrollDown(n int) { v.yOff += n; v.clamp() }
func (v *textView) ScrollUp(n int)   { v.yOff -= n; v.clamp() }
func (v *textView) PageDown()        { v.ScrollDown(max(v.height-1, 1)) }
func (v *textView) PageUp()          { v.ScrollUp(max(v.height-1, 1)) }
func (v *textView) HalfDown()        { v.ScrollDown(max(v.height/2, 1)) }
func (v *textView) HalfUp()          { v.ScrollUp(max(v.height/2, 1)) }
func (v *textView) Top()             { v.yOff = 0 }
func (v *textView) Bottom()          { v.yOff = v.maxY() }
func (v *textView) Left()            { v.xOff = max(v.xOff-max(v.contentWidth()/2, 4), 0) }
func (v *textView) Right()           { v.xOff += max(v.contentWidth()/2, 4) }

// GotoLine scrolls so line i (0-based) is in view, a third from the top.
func (v *textView) GotoLine(i int) {
	if i < v.yOff || i >= v.yOff+v.height {
		v.yOff = i - v.height/3
	}
	v.clamp()
}

// Search sets the query and jumps to the first match at or after the top
// line. Smart case: a query with an upper-case letter matches case.
func (v *textView) Search(q string) { v.search(q, true) }

func (v *textView) search(q string, jump bool) {
	v.query, v.matches, v.cur = q, nil, 0
	v.cache = map[int]string{}
	if q == "" {
		return
	}
	fold := strings.ToLower(q) == q
	if fold {
		q = asciiLower(q)
	}
	for i, l := range v.lines {
		if fold {
			l = asciiLower(l)
		}
		for off := 0; off <= len(l); {
			j := strings.Index(l[off:], q)
			if j < 0 {
				break
			}
			v.matches = append(v.matches, match{i, off + j, off + j + len(q)})
			off += j + len(q)
			if len(v.matches) >= 100000 {
				break
			}
		}
	}
	if jump && len(v.matches) > 0 {
		v.cur = 0
		for k, m := range v.matches {
			if m.line >= v.yOff {
				v.cur = k
				break
			}
		}
		v.showMatch()
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func (v *textView) NextMatch() { v.stepMatch(1) }
func (v *textView) PrevMatch() { v.stepMatch(-1) }

func (v *textView) stepMatch(d int) {
	if len(v.matches) == 0 {
		return
	}
	old := v.matches[v.cur].line
	v.cur = (v.cur + d + len(v.matches)) % len(v.matches)
	delete(v.cache, old)
	v.showMatch()
}

func (v *textView) showMatch() {
	m := v.matches[v.cur]
	delete(v.cache, m.line)
	v.GotoLine(m.line)
	var b strings.Builder
	col := 0
	writeInert(&b, v.lines[m.line][:min(m.start, maxLineBytes)], plainStyle, plainStyle, &col)
	cw := v.contentWidth()
	if col < v.xOff || col >= v.xOff+cw-4 {
		v.xOff = max(col-cw/3, 0)
	}
}

// MatchInfo describes the search state, "" when no search is set.
func (v *textView) MatchInfo() string {
	if v.query == "" {
		return ""
	}
	if len(v.matches) == 0 {
		return fmt.Sprintf("/%s: no match", v.query)
	}
	return fmt.Sprintf("/%s: %d/%d", v.query, v.cur+1, len(v.matches))
}

// styled returns line i fully styled (before the horizontal cut).
func (v *textView) styled(i int) string {
	if s, ok := v.cache[i]; ok {
		return s
	}
	line := v.lines[i]
	more := 0
	if len(line) > maxLineBytes {
		more = len(line) - maxLineBytes
		line = line[:maxLineBytes]
	}
	var spans []span
	if v.syntax != nil {
		spans = v.syntax(line)
	}
	start, end := v.starts[i], v.starts[i]+len(line)
	for _, m := range v.marks {
		if m.End > start && m.Start < end+1 {
			spans = append(spans, span{start: m.Start - start, end: m.End - start, style: v.st.Marker, prio: prioMarker})
		}
	}
	for k, m := range v.matches {
		if m.line != i {
			continue
		}
		st, p := v.st.Match, prioMatch
		if k == v.cur {
			st, p = v.st.CurMatch, prioCurMatch
		}
		spans = append(spans, span{start: m.start, end: m.end, style: st, prio: p})
	}
	base := plainStyle
	if v.lineStyle != nil {
		if s, ok := v.lineStyle(i); ok {
			base = s
			for k := range spans {
				spans[k].style = spans[k].style.Inherit(s)
			}
		}
	}
	s := styleLine(line, spans, base, v.st)
	if more > 0 {
		s += v.st.Inert.Render(fmt.Sprintf(" …+%d bytes", more))
	}
	if len(v.cache) > 4096 {
		v.cache = map[int]string{}
	}
	v.cache[i] = s
	return s
}

// markLineEnds reports whether a marker span covers the newline that ends
// line i (so an empty line inside a marker is still shown marked).
func (v *textView) markedEmpty(i int) bool {
	if len(v.lines[i]) > 0 {
		return false
	}
	p := v.starts[i]
	for _, m := range v.marks {
		if m.Start <= p && p < m.End {
			return true
		}
	}
	return false
}

// View renders exactly height lines of exactly width cells.
func (v *textView) View() string {
	cw := v.contentWidth()
	gw := v.gutterWidth()
	numW := len(fmt.Sprint(max(len(v.lines), 1)))
	out := make([]string, 0, v.height)
	if len(v.lines) == 0 {
		msg := v.empty
		if msg == "" {
			msg = "(empty)"
		}
		out = append(out, padRight(v.st.Muted.Render(ansi.Truncate(msg, v.width, "…")), v.width))
		for len(out) < v.height {
			out = append(out, strings.Repeat(" ", v.width))
		}
		return strings.Join(out, "\n")
	}
	for r := 0; r < v.height; r++ {
		i := v.yOff + r
		if i >= len(v.lines) {
			out = append(out, strings.Repeat(" ", v.width))
			continue
		}
		var g string
		if gw > 0 {
			num := fmt.Sprintf("%*d", numW, i+1)
			seen := v.seen != nil && v.seen(i)
			if seen {
				g = v.st.GutterSeen.Render(num + "▌")
			} else if v.seen != nil {
				g = v.st.Gutter.Render(num + " ")
			} else {
				g = v.st.Gutter.Render(num)
			}
			g += v.st.Gutter.Render("│")
		}
		line := v.styled(i)
		if v.markedEmpty(i) && v.xOff == 0 {
			line = v.st.Marker.Render(" ")
		}
		cut := ansi.Cut(line, v.xOff, v.xOff+cw)
		out = append(out, g+padRight(cut, cw))
	}
	return strings.Join(out, "\n")
}

// padRight pads a styled string with spaces to w cells (never cuts).
func padRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// fit cuts or pads a styled string to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return padRight(s, w)
}

// scrollKey applies a scroll or search-step key and reports whether msg
// was one.
func (tv *textView) scrollKey(k *KeyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		tv.ScrollUp(1)
	case key.Matches(msg, k.Down):
		tv.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		tv.PageUp()
	case key.Matches(msg, k.PageDown):
		tv.PageDown()
	case key.Matches(msg, k.HalfUp):
		tv.HalfUp()
	case key.Matches(msg, k.HalfDown):
		tv.HalfDown()
	case key.Matches(msg, k.Top):
		tv.Top()
	case key.Matches(msg, k.Bottom):
		tv.Bottom()
	case key.Matches(msg, k.Next):
		tv.NextMatch()
	case key.Matches(msg, k.Prev):
		tv.PrevMatch()
	default:
		return false
	}
	return true
}
