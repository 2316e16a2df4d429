// Package inert is the one rule by which correx shows text read from a
// transcript, so that no byte of it reaches a terminal as a control: C0
// controls and DEL become their Control Pictures (ESC is ␛, CR is ␍), C1
// controls and invisible format characters (bidi overrides, zero-width
// spaces) become ⟨U+XXXX⟩, and bytes that are not UTF-8 become \xNN. The
// TUI's panes style the glyphs (tui/inert.go); the command line writes
// them as they are.
package inert

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Glyph returns how r is shown when it is not printable as itself.
func Glyph(r rune) (string, bool) {
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

// Byte is how a byte that is not UTF-8 is shown.
func Byte(b byte) string { return fmt.Sprintf(`\x%02x`, b) }

// Cell returns s on one line, for a table cell: newlines and tabs (which
// would forge rows and columns) are written \n and \t, the rest by Glyph.
func Cell(s string) string {
	var b strings.Builder
	write(&b, s, false)
	return b.String()
}

// Text returns s inert with its newlines and tabs kept, for text of many
// lines (a model-visible result, a transcript).
func Text(s string) string {
	var b strings.Builder
	write(&b, s, true)
	return b.String()
}

// WriteText writes Text(s) to w without building it: the runs of s that
// need no change are written as they are.
func WriteText(w io.Writer, s string) error { return write(w, s, true) }

func write(w io.Writer, s string, layout bool) error {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= ' ' && c < 0x7f || layout && (c == '\n' || c == '\t') {
			i++ // printable ASCII, the most of any output: kept, without decoding
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var sub string
		switch {
		case r == utf8.RuneError && size == 1:
			sub = Byte(s[i])
		case r == '\n' || r == '\t':
			if layout {
				i += size
				continue
			}
			sub = `\n`
			if r == '\t' {
				sub = `\t`
			}
		default:
			g, ok := Glyph(r)
			if !ok {
				i += size
				continue
			}
			sub = g
		}
		if _, err := io.WriteString(w, s[start:i]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, sub); err != nil {
			return err
		}
		i += size
		start = i
	}
	_, err := io.WriteString(w, s[start:])
	return err
}
