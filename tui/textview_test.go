package tui

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/stretchr/testify/require"
)

// TestFileTextView checks that a file-backed text view shows, measures and
// searches a text as the in-memory one does: the file's search runs in a
// Cmd whose message Update gives back to the view.
func TestFileTextView(t *testing.T) {
	// many short JSON lines, one long line scrolled sideways, and one
	// longer than maxLineBytes (styled only up to it), with and without
	// a final newline
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  {\n    \"Role\": \"user\",\n    \"content\": \"%d ab\\\"cAB ab\"\n  },\n", i)
	}
	b.WriteString("  \"" + strings.Repeat("ab\\\"cAB ", 300) + "\"\n]")
	text := b.String()
	// (few matches on the long line keep the view tests fast)
	long := "x\n" + strings.Repeat(strings.Repeat("0123456789", 400)+" ab\\\"cAB ", 10) + "\nab"
	st := NewStyles(true)
	for _, c := range []struct {
		body string
		lex  chroma.Lexer
	}{{text, lexerByName("json")}, {text + "\n", lexerByName("json")}, {"x", lexerByName("json")}, {long, nil}} {
		fl := writeFileLines(t, c.body)
		mem := newTextView(st)
		s := &spillView{tv: newTextView(st)}
		fv := &s.tv
		m := Model{app: &app{}, spill: s}
		mem.SetSize(60, 5)
		fv.SetSize(60, 5)
		mem.SetContent(c.body, c.lex, nil, false)
		fv.SetFile(fl, c.lex, false)
		require.Equal(t, mem.Lines(), fv.Lines())
		require.Equal(t, mem.View(), fv.View())
		for _, q := range []string{"ab", "AB", "cab", "role", "\"", "299 ab", "zz"} {
			require.Nil(t, mem.Search(q))
			cmd := fv.Search(q)
			require.NotNil(t, cmd, q)
			require.Equal(t, "/"+q+": searching…", fv.MatchInfo())
			msg, ok := cmd().(fileSearchMsg)
			require.True(t, ok, q)
			_, _ = m.Update(msg)
			require.Equal(t, mem.MatchInfo(), fv.MatchInfo(), q)
			require.Equal(t, mem.matches, fv.matches, q)
			require.Equal(t, mem.View(), fv.View(), q)
			for range 3 {
				mem.NextMatch()
				fv.NextMatch()
				require.Equal(t, mem.View(), fv.View(), q)
			}
			mem.PrevMatch()
			fv.PrevMatch()
			require.Equal(t, mem.View(), fv.View(), q)
		}
		fl.Close()
	}
}

// writeFileLines writes body to a spool-like file and indexes its lines.
func writeFileLines(t *testing.T, body string) *fileLines {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "tv-*.json")
	require.NoError(t, err)
	_, err = f.WriteString(body)
	require.NoError(t, err)
	lw := &lineIndexWriter{w: io.Discard, starts: linesFrom(0)}
	_, _ = lw.Write([]byte(body))
	starts, trail := lw.lines()
	return newFileLines(f, starts, lw.n, trail)
}
