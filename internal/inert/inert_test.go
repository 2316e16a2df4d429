package inert

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCellAndText(t *testing.T) {
	for _, tc := range []struct{ in, cell, text string }{
		{"plain ascii ~!", "plain ascii ~!", "plain ascii ~!"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"\x1b[2J\x07", "␛[2J␇", "␛[2J␇"},
		{"del\x7f", "del\u2421", "del\u2421"},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"c1\u0085 zw\u200b bidi\u202e", "c1⟨U+0085⟩ zw⟨U+200B⟩ bidi⟨U+202E⟩", "c1⟨U+0085⟩ zw⟨U+200B⟩ bidi⟨U+202E⟩"},
		{"é 日本 ✓", "é 日本 ✓", "é 日本 ✓"},
		{"\r\n", "␍\\n", "␍\n"},
	} {
		if got := Cell(tc.in); got != tc.cell {
			t.Errorf("Cell(%q) = %q, want %q", tc.in, got, tc.cell)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		var b strings.Builder
		if err := WriteText(&b, tc.in); err != nil || b.String() != tc.text {
			t.Errorf("WriteText(%q) = %q, %v; want %q", tc.in, b.String(), err, tc.text)
		}
	}
}

// Whatever the input, nothing in Text's output can drive a terminal: every
// byte is printable ASCII, a newline or a tab, or part of valid UTF-8 that
// is graphic; Cell's has no newline or tab either.
func FuzzInert(f *testing.F) {
	for _, s := range []string{"a\x1b]52;c;aGk=\x07b", "\xc2\x9b31m", "x\u2066y\u2069", "\xed\xa0\x80", "\t\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, layout := range []bool{false, true} {
			var b strings.Builder
			if err := write(&b, s, layout); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !utf8.ValidString(out) {
				t.Fatalf("write(%q, %v) = %q: not UTF-8", s, layout, out)
			}
			for _, r := range out {
				if (r == '\n' || r == '\t') && layout {
					continue
				}
				if _, bad := Glyph(r); bad || r == '\n' || r == '\t' {
					t.Fatalf("write(%q, %v) = %q: %U left in", s, layout, out, r)
				}
			}
		}
	})
}
