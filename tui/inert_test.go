package tui

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/stretchr/testify/require"
)

// styleLineRef is the original, quadratic styleLine, kept as the reference
// the sweep in styleLine must match byte for byte.
func styleLineRef(line string, spans []span, base lipgloss.Style, st *Styles) string {
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

// randLineText returns n bytes-ish of text mixing ASCII, tabs, controls,
// ESC sequences, C1 and format characters, multi-byte UTF-8 and invalid
// bytes.
func randLineText(r *rand.Rand, n int) string {
	pieces := []string{
		"a", "b", "x", " ", "  ", "\"", "{", "}", ":", ",", "0", "42",
		"\t", "\t\t", "\x1b", "\x1b[31m", "\x1b]0;t\x07", "\r", "\x00", "\x7f",
		"\u0085", "\u009b", "\u200b", "\u202e", "\ufeff",
		"é", "ß", "€", "日本", "😀", "e\u0301",
		"\xff", "\xc3", "\xe2\x82", "\x80",
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randSpans returns n spans over a line of length l: overlapping, empty,
// inverted, negative and past the end, with priorities including 0 and
// negative ones and styles that are distinct or shared.
func randSpans(r *rand.Rand, n, l int, pool []lipgloss.Style) []span {
	pos := func() int {
		switch r.IntN(10) {
		case 0:
			return -r.IntN(5) - 1
		case 1:
			return l + r.IntN(5)
		case 2:
			return 0
		case 3:
			return l
		}
		return r.IntN(l + 1)
	}
	spans := make([]span, n)
	for i := range spans {
		s := span{start: pos()}
		switch r.IntN(6) {
		case 0:
			s.end = s.start // empty
		case 1:
			s.end = pos() // maybe inverted
		default:
			s.end = s.start + r.IntN(max(l/4, 1)+1)
		}
		switch r.IntN(12) {
		case 0:
			s.prio = 0
		case 1:
			s.prio = -r.IntN(3) - 1
		default:
			s.prio = 1 + r.IntN(5)
		}
		if r.IntN(2) == 0 {
			s.style = pool[r.IntN(len(pool))]
		} else {
			// a style of its own, so a wrong tie-break shows
			s.style = lipgloss.NewStyle().Foreground(lipgloss.Color(fmt.Sprintf("#%02x%02x%02x", i%256, (i/256)%256, r.IntN(256))))
		}
		spans[i] = s
	}
	return spans
}

// TestStyleLineMatchesRef compares styleLine with the quadratic reference
// on many random lines and spans.
func TestStyleLineMatchesRef(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dark := range []bool{true, false} {
		st := NewStyles(dark)
		pool := []lipgloss.Style{st.Match, st.CurMatch, st.Marker, st.JSONKey, st.JSONString, st.Punct, plainStyle, st.Match.Inherit(st.DiffLine)}
		bases := []lipgloss.Style{plainStyle, st.DiffLine, st.Muted}
		for iter := range 3000 {
			var line string
			switch iter % 10 {
			case 0:
				line = ""
			case 1:
				line = randLineText(r, 1+r.IntN(4))
			default:
				line = randLineText(r, r.IntN(200))
			}
			var n int
			switch r.IntN(5) {
			case 0:
				n = r.IntN(3)
			case 1:
				n = r.IntN(200)
			default:
				n = r.IntN(30)
			}
			spans := randSpans(r, n, len(line), pool)
			base := bases[r.IntN(len(bases))]
			want := styleLineRef(line, spans, base, st)
			got := styleLine(line, spans, base, st)
			require.Equal(t, want, got, "line %q spans %+v", line, spans)
		}
	}
}

// TestStyleLineTies checks the tie-breaks explicitly: among covering spans
// the highest prio wins, the later one on equal prio, and a negative prio
// never beats the base.
func TestStyleLineTies(t *testing.T) {
	st := NewStyles(true)
	a := lipgloss.NewStyle().Foreground(lipgloss.Color("#010101"))
	b := lipgloss.NewStyle().Foreground(lipgloss.Color("#020202"))
	c := lipgloss.NewStyle().Foreground(lipgloss.Color("#030303"))
	line := "0123456789\x1bé\t"
	for _, spans := range [][]span{
		{{0, 10, a, 1}, {2, 5, b, 1}},
		{{2, 5, b, 1}, {0, 10, a, 1}},
		{{0, 10, a, 2}, {2, 5, b, 1}, {3, 4, c, 2}},
		{{0, 10, a, 0}, {2, 5, b, -1}},
		{{-3, 4, a, -1}, {4, 100, b, 0}, {7, 2, c, 5}},
		{{11, 12, a, 1}, {12, 13, b, 1}, {0, 0, c, 1}, {14, 14, c, 3}},
		{{0, 14, a, 1}, {0, 14, b, 1}, {0, 14, c, 1}},
	} {
		require.Equal(t, styleLineRef(line, spans, plainStyle, st), styleLine(line, spans, plainStyle, st), "%+v", spans)
	}
}

// TestWriteInert pins how controls, invalid bytes and tabs are shown.
func TestWriteInert(t *testing.T) {
	inert := lipgloss.NewStyle()
	for _, c := range []struct{ in, want string }{
		{"abc", "abc"},
		{"a\tb", "a       b"},
		{"\x1b[31m", "␛[31m"},
		{"\r\n\x00\x7f", "␍␊␀␡"},
		{"\u0085\u200b\u202e", "⟨U+0085⟩⟨U+200B⟩⟨U+202E⟩"},
		{"\xff\xc3", `\xff\xc3`},
		{"日\tx", "日      x"},
	} {
		var b strings.Builder
		col := 0
		writeInert(&b, c.in, plainStyle, inert, &col)
		require.Equal(t, c.want, b.String(), "%q", c.in)
	}
	col := 3
	var b strings.Builder
	writeInert(&b, "\t", plainStyle, inert, &col)
	require.Equal(t, "     ", b.String())
	require.Equal(t, 8, col)
	require.Equal(t, "a↵␛b", inertString("a\n\x1bb", inert))
}

// manySpansLine is a 40 KB JSON-ish line with 10,000 search-match spans
// (every '"'), as a search for `"` gives.
func manySpansLine(st *Styles) (string, []span) {
	var b strings.Builder
	for b.Len() < 40_000 {
		b.WriteString(`"k":"v",`)
	}
	line := b.String()
	var spans []span
	n := 0
	for i := 0; i < len(line) && n < 10_000; i++ {
		if line[i] == '"' {
			p, s := prioMatch, st.Match
			if n == 5000 {
				p, s = prioCurMatch, st.CurMatch
			}
			spans = append(spans, span{start: i, end: i + 1, style: s, prio: p})
			n++
		}
	}
	return line, spans
}

// TestStyleLineManySpans compares with the reference on the benchmark's
// line (the reference takes seconds on it).
func TestStyleLineManySpans(t *testing.T) {
	if testing.Short() {
		t.Skip("the quadratic reference is slow")
	}
	st := NewStyles(true)
	line, spans := manySpansLine(st)
	require.Len(t, spans, 10_000)
	require.Equal(t, styleLineRef(line, spans, plainStyle, st), styleLine(line, spans, plainStyle, st))
}

func BenchmarkStyleLineManySpans(b *testing.B) {
	st := NewStyles(true)
	line, spans := manySpansLine(st)
	b.ReportAllocs()
	for b.Loop() {
		_ = styleLine(line, spans, plainStyle, st)
	}
}
