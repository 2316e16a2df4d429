package tui

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Everything read from a transcript is shown inert: no byte of it reaches
// the terminal as a control. C0 controls and DEL become their Control
// Pictures (ESC is ␛, CR is ␍), C1 controls and invisible format characters
// (bidi overrides, zero-width spaces) become ⟨U+XXXX⟩, bytes that are not
// UTF-8 become \xNN, and tabs expand to spaces (tab stops of 8). All of
// them except tabs are drawn in the Inert style.

const tabWidth = 8

// inertGlyph returns how r is shown when it is not printable as itself.
func inertGlyph(r rune) (string, bool) {
	switch {
	case r < 0x20:
		return string(rune(0x2400 + r)), true
	case r == 0x7f:
		return "\u2421", true
	case r >= 0x80 && r < 0xa0:
		return fmt.Sprintf("⟨U+%04X⟩", r), true
	case r == ' ':
		return "", false
	case !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r):
		return fmt.Sprintf("⟨U+%04X⟩", r), true
	}
	return "", false
}

// writeInert appends s to b with style for plain text and inert for the
// glyphs that stand for controls. col is the display column reached so far
// on the line, updated for tab expansion.
func writeInert(b *strings.Builder, s string, style, inert lipgloss.Style, col *int) {
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
			g := fmt.Sprintf(`\x%02x`, s[i])
			*col += len(g)
			b.WriteString(renderStyle(inert, g))
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
		if g, ok := inertGlyph(r); ok {
			flush()
			*col += ansi.StringWidth(g)
			b.WriteString(renderStyle(inert, g))
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
func styleLine(line string, spans []span, base lipgloss.Style, st *Styles) string {
	var b strings.Builder
	col := 0
	if len(spans) == 0 {
		writeInert(&b, line, base, st.Inert, &col)
		return b.String()
	}
	cuts := []int{0, len(line)}
	for _, s := range spans {
		cuts = append(cuts, clampInt(s.start, 0, len(line)), clampInt(s.end, 0, len(line)))
	}
	sort.Ints(cuts)
	prev := -1
	for i := 0; i+1 < len(cuts); i++ {
		a, z := cuts[i], cuts[i+1]
		if a == z || a == prev {
			continue
		}
		prev = a
		style, best := base, 0
		for _, s := range spans {
			if s.start <= a && z <= s.end && s.prio >= best {
				style, best = s.style, s.prio
			}
		}
		writeInert(&b, line[a:z], style, st.Inert.Inherit(style), &col)
	}
	return b.String()
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
