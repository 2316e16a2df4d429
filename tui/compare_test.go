package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestCompareSidesKeptAcrossContents checks that the drawn sides a
// compare view keeps across contents draw what a fresh view draws, that
// the side a new content leaves as it was is not drawn again, and that
// what is kept stays bounded, copies of the texts (no content kept).
func TestCompareSidesKeptAcrossContents(t *testing.T) {
	conv := func(tag string, n int) string {
		var b strings.Builder
		b.WriteString("[\n")
		for i := range n {
			fmt.Fprintf(&b, "  {\"role\": \"tool\", \"content\": \"%s %d %s\"},\n", tag, i, strings.Repeat("x", i%200))
		}
		b.WriteString("]")
		return b.String()
	}
	fresh := func(left, right string, xOff int, wrap bool) string {
		c := compareView{st: NewStyles(true)}
		c.SetSize(100, 30)
		c.SetContent(left, right, false)
		c.SetWrap(wrap)
		c.ScrollRight(xOff)
		return c.View()
	}
	a, b, d := conv("same", 40), conv("other", 40), conv("third", 40)
	c := compareView{st: NewStyles(true)}
	c.SetSize(100, 30)
	c.SetContent(a, b, false)
	require.Equal(t, fresh(a, b, 0, false), c.View())
	// the left side's rows, unchanged, are taken as they were drawn
	for k := range c.sides {
		if strings.Contains(k.text, `"same 3 `) {
			c.sides[k] = "KEPT"
		}
	}
	c.SetContent(a, d, true)
	require.Contains(t, c.View(), "KEPT", "the left side, unchanged, was drawn again")
	c.SetStyles(c.st)
	require.Equal(t, fresh(a, d, 0, false), c.View())
	for k := range c.sides {
		for _, content := range []string{a, d} {
			p, lo := uintptr(unsafe.Pointer(unsafe.StringData(k.text))), uintptr(unsafe.Pointer(unsafe.StringData(content)))
			require.False(t, len(k.text) > 0 && p >= lo && p < lo+uintptr(len(content)), "a kept side's key holds its content")
		}
	}
	c.ScrollRight(7)
	require.Equal(t, fresh(a, d, 7, false), c.View())
	c.SetWrap(true)
	require.Equal(t, fresh(a, d, 0, true), c.View())
	for i := range 200 {
		c.SetContent(conv(fmt.Sprint(i), 40), d, false)
		c.View()
		require.LessOrEqual(t, c.sideBytes, maxSideBytes)
		n := 0
		for k, v := range c.sides {
			n += len(k.text) + len(v)
		}
		require.Equal(t, n, c.sideBytes)
	}
}

// TestCompareLongLinesLexedAsShown: a side drawn from the part of a long
// JSON line it shows (jsonLinePrefix) shows what the side drawn from the
// whole line shows (styledRuns: the whole one keeps the styles of what it
// cut as empty sequences), whatever the string's text at the cut
// (escapes, wide and combining runes, emoji), the width, the scroll and
// the tint; lines it cannot cut (the cut in a key or a number, an object
// after the string) are drawn whole, and long string values are cut.
func TestCompareLongLinesLexedAsShown(t *testing.T) {
	c := compareView{st: NewStyles(true)}
	pieces := []string{"a", "bc", " ", `\"`, `\\`, `\n`, `\u00e9`, `\t`, "é", "日本", "😀", "e\u0301", "👨\u200d👩", ":", ",", "{", "\\\\\\\""}
	r := rand.New(rand.NewPCG(1, 2))
	body := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	cut := 0
	for i := range 3000 {
		var line string
		switch i % 6 {
		case 0, 1, 2:
			line = `      "text": "` + body(r.IntN(3000)) + `"` + []string{"", ","}[i%2]
		case 3:
			line = `    "` + body(r.IntN(600)) + `": "x",`
		case 4:
			line = `    "n": ` + strings.Repeat("1", r.IntN(2000)) + `,`
		default:
			line = `    "a": "` + body(r.IntN(2000)) + `"}`
		}
		k := sideKey{text: line, has: true, diff: i%3 == 0, width: 10 + r.IntN(90), xOff: r.IntN(3) * r.IntN(200)}
		whole := c.cutLine(k, c.drawLine(k, k.text, syntaxSpans(lexerByName("json"), k.text, 0, c.st)))
		require.Equal(t, styledRuns(whole), styledRuns(c.drawSide(k)), "%d: %.100q", i, line)
		if _, _, ok := jsonLinePrefix(k.text, 4*(k.xOff+k.width)+64); ok {
			cut++
		}
	}
	require.Greater(t, cut, 800, "lines drawn from their shown part")
}

// styledRuns is what a drawn line shows: its text in runs of one style
// (the SGR sequence before them, each drawn span opening its own), the
// empty runs left out and runs of the same style joined.
func styledRuns(s string) [][2]string {
	var runs [][2]string
	sgr := ""
	for s != "" {
		if strings.HasPrefix(s, "\x1b[") {
			end := strings.IndexByte(s, 'm')
			sgr, s = s[:end+1], s[end+1:]
			if sgr == "\x1b[m" {
				sgr = ""
			}
			continue
		}
		n := strings.Index(s, "\x1b[")
		if n < 0 {
			n = len(s)
		}
		if len(runs) > 0 && runs[len(runs)-1][0] == sgr {
			runs[len(runs)-1][1] += s[:n]
		} else {
			runs = append(runs, [2]string{sgr, s[:n]})
		}
		s = s[n:]
	}
	return runs
}
