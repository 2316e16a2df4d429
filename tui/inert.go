package tui

import (
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"correx/internal/inert"
)

// Everything read from a transcript is shown inert by correx/internal/inert's
// rule (no byte of it reaches the terminal as a control); in the panes tabs
// expand to spaces (tab stops of 8), and the glyphs are drawn in the Inert
// style.

const tabWidth = 8

// writeInert appends s to b with style for plain text and glyph for the
// glyphs that stand for controls. col is the display column reached so far
// on the line, updated for tab expansion.
func writeInert(b *strings.Builder, s string, style, glyph lipgloss.Style, col *int) {
	var run strings.Builder
	flush := func() {
		if run.Len() == 0 {
			return
		}
		t := run.String()
		*col += ansi.StringWidth(t)
		b.WriteString(renderStyle(style, t))
		run.Reset()
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			flush()
			g := inert.Byte(s[i])
			*col += len(g)
			b.WriteString(renderStyle(glyph, g))
			i++
			continue
		}
		if r == '\t' {
			flush()
			n := tabWidth - *col%tabWidth
			*col += n
			b.WriteString(renderStyle(style, strings.Repeat(" ", n)))
			i += size
			continue
		}
		if g, ok := inert.Glyph(r); ok {
			flush()
			*col += ansi.StringWidth(g)
			b.WriteString(renderStyle(glyph, g))
			i += size
			continue
		}
		run.WriteString(s[i : i+size])
		i += size
	}
	flush()
}

// renderStyle renders t with style (tabs are already expanded).
func renderStyle(style lipgloss.Style, t string) string { return style.Render(t) }

var plainStyle = lipgloss.NewStyle()

// inertString returns s shown inert on one line, unstyled except for the
// inert glyphs; newlines are shown as ↵. For titles, paths and summaries.
func inertString(s string, inert lipgloss.Style) string {
	var b strings.Builder
	col := 0
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteString(renderStyle(inert, "↵"))
			col++
		}
		writeInert(&b, l, plainStyle, inert, &col)
	}
	return b.String()
}

// span styles the bytes [start, end) of a line; the span of highest prio
// wins where spans overlap.
type span struct {
	start, end int
	style      lipgloss.Style
	prio       int
}

// Span priorities.
const (
	prioSyntax = iota + 1
	prioMarker
	prioDiff
	prioMatch
	prioCurMatch
)

// styleLine renders one raw line with its spans, inert. base styles the
// bytes no span covers.
//
// The line is cut at 0, len(line) and every span edge (clamped to the
// line); each piece between two distinct cuts is written on its own, in
// the style of the span that covers it with the highest prio, the last
// such span in spans on equal prio, and base when no span of prio >= 0
// covers it. The pieces are found by one sweep over the sorted edges, the
// covering spans kept in a heap: O(n log n) in the number of spans.
func styleLine(line string, spans []span, base lipgloss.Style, st *Styles) string {
	var b strings.Builder
	col := 0
	if len(spans) == 0 {
		writeInert(&b, line, base, st.Inert, &col)
		return b.String()
	}
	n := len(line)
	cuts := make([]int, 0, 2*len(spans)+2)
	cuts = append(cuts, 0, n)
	// the spans that can win somewhere: non-empty once clamped (clamping
	// keeps start <= end order, so inverted spans drop out too) and of
	// prio >= 0, ordered by clamped start
	order := make([]int, 0, len(spans))
	for k := range spans {
		s := &spans[k]
		a, z := clampInt(s.start, 0, n), clampInt(s.end, 0, n)
		cuts = append(cuts, a, z)
		if a < z && s.prio >= 0 {
			order = append(order, k)
		}
	}
	sort.Ints(cuts)
	sort.Slice(order, func(i, j int) bool {
		return clampInt(spans[order[i]].start, 0, n) < clampInt(spans[order[j]].start, 0, n)
	})
	h := spanHeap{spans: spans, idx: make([]int, 0, 16)}
	next := 0
	for i := 0; i+1 < len(cuts); i++ {
		a, z := cuts[i], cuts[i+1]
		if a == z {
			continue
		}
		for next < len(order) && clampInt(spans[order[next]].start, 0, n) <= a {
			h.push(order[next])
			next++
		}
		// drop the spans that ended at or before a (lazily: only once on top)
		for len(h.idx) > 0 && clampInt(spans[h.idx[0]].end, 0, n) <= a {
			h.pop()
		}
		style := base
		if len(h.idx) > 0 {
			style = spans[h.idx[0]].style
		}
		inert := st.Inert
		if !printableASCII(line[a:z]) {
			inert = inert.Inherit(style)
		}
		writeInert(&b, line[a:z], style, inert, &col)
	}
	return b.String()
}

// printableASCII reports whether s is only printable ASCII and tabs, which
// writeInert shows without the inert style (so it need not be built).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// spanHeap is a max-heap of indices into spans, by prio and then by index
// (the later span wins a tie).
type spanHeap struct {
	spans []span
	idx   []int
}

func (h *spanHeap) above(i, j int) bool {
	a, b := h.idx[i], h.idx[j]
	pa, pb := h.spans[a].prio, h.spans[b].prio
	return pa > pb || pa == pb && a > b
}

func (h *spanHeap) push(k int) {
	h.idx = append(h.idx, k)
	i := len(h.idx) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.above(i, p) {
			break
		}
		h.idx[i], h.idx[p] = h.idx[p], h.idx[i]
		i = p
	}
}

func (h *spanHeap) pop() {
	last := len(h.idx) - 1
	h.idx[0] = h.idx[last]
	h.idx = h.idx[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.above(l, m) {
			m = l
		}
		if r < last && h.above(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.idx[i], h.idx[m] = h.idx[m], h.idx[i]
		i = m
	}
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
