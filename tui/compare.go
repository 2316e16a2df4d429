package tui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// compareView shows two texts side by side, aligned, with the rows that
// differ marked ≠ in the middle column and tinted.
type compareView struct {
	st            *Styles
	width, height int
	rows          []diffRow
	differ        int
	yOff          int // the top row
	xOff          int // cells scrolled sideways, both sides alike
	wrap          bool
	cache         map[int]string
	cacheW        int
	// sides are drawn sides of rows by what they are drawn from, kept
	// across contents: a provider switched on one side leaves the other
	// side's rows as they were, and a long JSON line takes milliseconds
	// to highlight; sideBytes is what they hold
	sides     map[sideKey]string
	sideBytes int
}

// sideKey is all one side of a row is drawn from (with the styles).
type sideKey struct {
	text        string
	has, diff   bool
	width, xOff int
	wrap        bool
}

// maxSideBytes bounds what compareView.sides holds, keys and drawn sides:
// a few screens of rows. A key holds a copy of its text, not the content
// it was cut from, so that no content outlives its pane.
const maxSideBytes = 2 << 20

// ScrollRight scrolls both sides n cells sideways (left when negative).
func (c *compareView) ScrollRight(n int) {
	c.xOff = max(c.xOff+n, 0)
	if c.wrap {
		c.xOff = 0
	}
	c.cache = nil
}

// SetWrap wraps long lines instead of cutting them; a row then takes as
// many lines as its longer side needs.
func (c *compareView) SetWrap(on bool) { c.wrap, c.xOff, c.cache = on, 0, nil }

func (c *compareView) SetStyles(st *Styles) { c.st, c.cache, c.sides, c.sideBytes = st, nil, nil, 0 }

func (c *compareView) SetContent(left, right string, keep bool) {
	a, _ := splitLines(left)
	b, _ := splitLines(right)
	c.rows = diffLines(a, b)
	c.differ = 0
	for _, r := range c.rows {
		if !r.same {
			c.differ++
		}
	}
	c.cache = nil
	if !keep {
		c.yOff = 0
	}
	c.clamp()
}

func (c *compareView) SetSize(w, h int) { c.width, c.height = max(w, 3), max(h, 1); c.clamp() }

func (c *compareView) clamp() {
	c.yOff = clampInt(c.yOff, 0, max(len(c.rows)-c.height, 0))
}

func (c *compareView) ScrollDown(n int) { c.yOff += n; c.clamp() }
func (c *compareView) ScrollUp(n int)   { c.yOff -= n; c.clamp() }

// NextDiff scrolls to the next (d=1) or previous (d=-1) differing row.
func (c *compareView) NextDiff(d int) {
	for i := c.yOff + d; i >= 0 && i < len(c.rows); i += d {
		if !c.rows[i].same && (i == 0 || c.rows[i-1].same || d < 0) {
			c.yOff = i
			c.clamp()
			return
		}
	}
}

func (c *compareView) half() (int, int) {
	lw := (c.width - 1) / 2
	return lw, c.width - 1 - lw
}

func (c *compareView) row(i int) string {
	if c.cache == nil || c.cacheW != c.width {
		c.cache, c.cacheW = map[int]string{}, c.width
	}
	if s, ok := c.cache[i]; ok {
		return s
	}
	lw, rw := c.half()
	r := c.rows[i]
	side := func(text string, has bool, w int) string {
		k := sideKey{text: text[:min(len(text), maxLineBytes)], has: has, diff: !r.same, width: w, xOff: c.xOff, wrap: c.wrap}
		if s, ok := c.sides[k]; ok {
			return s
		}
		s := c.drawSide(k)
		if n := len(k.text) + len(s); c.sides == nil || c.sideBytes+n > maxSideBytes {
			c.sides, c.sideBytes = map[sideKey]string{}, 0
		}
		k.text = strings.Clone(k.text)
		c.sides[k] = s
		c.sideBytes += len(k.text) + len(s)
		return s
	}
	mid := c.st.Gutter.Render("│")
	if !r.same {
		mid = c.st.DiffMark.Render("≠")
	}
	l, rt := strings.Split(side(r.left, r.hasL, lw), "\n"), strings.Split(side(r.right, r.hasR, rw), "\n")
	var lines []string
	for k := range max(len(l), len(rt)) {
		a, b := "", ""
		if k < len(l) {
			a = l[k]
		}
		if k < len(rt) {
			b = rt[k]
		}
		lines = append(lines, fit(a, lw)+mid+fit(b, rw))
	}
	s := strings.Join(lines, "\n")
	c.cache[i] = s
	return s
}

// drawSide draws one side of a row: its text highlighted as JSON, tinted
// where the sides differ, cut (or wrapped) to the side's width.
func (c *compareView) drawSide(k sideKey) string {
	if !k.has {
		return c.st.Subtle.Render(strings.Repeat("╌", k.width))
	}
	if !k.wrap {
		// a long string value drawn as far as the side shows it: the
		// lexer took milliseconds over each 32 KB line of a new side
		if cut, open, ok := jsonLinePrefix(k.text, 4*(k.xOff+k.width)+64); ok {
			if line := c.drawLine(k, k.text[:cut], jsonStringSpans(k.text[:cut], open, c.st)); ansi.StringWidth(line) > k.xOff+k.width {
				return c.cutLine(k, line)
			}
		}
	}
	line := c.drawLine(k, k.text, syntaxSpans(lexerByName("json"), k.text, 0, c.st)) // text at most maxLineBytes
	if k.wrap {
		return ansi.Hardwrap(line, k.width, true)
	}
	return c.cutLine(k, line)
}

// drawLine styles text with its syntax spans, tinted when the sides
// differ.
func (c *compareView) drawLine(k sideKey, text string, spans []span) string {
	base := plainStyle
	if k.diff {
		base = c.st.DiffLine
		for i := range spans {
			spans[i].style = spans[i].style.Inherit(base)
		}
	}
	return styleLine(text, spans, base, c.st)
}

// jsonStringSpans are the syntax spans of text, a JSON line cut inside the
// string value that ends it, whose opening quote is at open: the spans of
// what comes before the string (short, and memoised), then the string's.
// The JSON lexer matches a string with a regular expression whose stack
// grows with its length: lexing the string itself was most of a key that
// switched a side.
func jsonStringSpans(text string, open int, st *Styles) []span {
	spans := syntaxSpans(lexerByName("json"), text[:open], 0, st)
	for len(spans) > 0 && spans[len(spans)-1].start >= open {
		spans = spans[:len(spans)-1]
	}
	return append(spans, span{start: open, end: len(text), style: st.JSONString, prio: prioSyntax})
}

// cutLine is a drawn line scrolled and cut to the side's width.
func (c *compareView) cutLine(k sideKey, line string) string {
	if k.xOff > 0 {
		line = ansi.TruncateLeft(line, k.xOff, "…")
	}
	return fit(ansi.Truncate(line, k.width, "…"), k.width)
}

// jsonLinePrefix cuts a line of indented JSON longer than n bytes inside
// the string that ends it (a member's or an element's value, a comma at
// most after it), at n or the rune before: text[:cut], and open, where
// the string's opening quote is. A JSON lexer tokenises what comes before
// open as it does in the whole line (no token before the string reaches
// into it, and the string is not followed by a colon), and the string as
// one token. ok is false for a line it cannot cut so.
func jsonLinePrefix(text string, n int) (cut, open int, ok bool) {
	if len(text) <= n {
		return 0, 0, false
	}
	cut = n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	inStr, esc := false, false
	for i := 0; i < len(text); i++ {
		if i == cut && inStr && esc {
			cut-- // not between an escape's backslash and what it escapes
		} else if i == cut && !inStr {
			return 0, 0, false // the cut is not inside a string's text
		}
		b := text[i]
		switch {
		case !inStr:
			if inStr = b == '"'; inStr {
				open = i
			}
		case esc:
			esc = false
		case b == '\\':
			esc = true
		case b == '"':
			inStr = false
			if i > cut {
				if rest := text[i+1:]; rest != "" && rest != "," {
					return 0, 0, false
				}
				return cut, open, true
			}
		}
	}
	return 0, 0, false
}

func (c *compareView) View() string {
	out := make([]string, 0, c.height)
	for i := c.yOff; len(out) < c.height; i++ {
		if i >= len(c.rows) {
			out = append(out, strings.Repeat(" ", c.width))
			continue
		}
		out = append(out, strings.Split(c.row(i), "\n")...)
	}
	return strings.Join(out[:c.height], "\n")
}
