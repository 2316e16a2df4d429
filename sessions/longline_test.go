package sessions

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/jsonskim"
)

// longStrings is the reference stringSkim follows: the bodies of b's
// strings of at least min bytes, each found with jsonskim.StringEnd;
// whether b ends inside a string; whether one of them is no JSON string
// (jsonskim.ValidStringEnd).
func longStrings(b []byte, min int) (out []StringSpan, open, bad bool) {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end := jsonskim.StringEnd(b, i)
		if end < 0 {
			if _, ok := jsonskim.ValidStringEnd(append(b[i:len(b):len(b)], '"'), 0); !ok {
				bad = true // no string, even ended
			}
			return out, true, bad
		}
		if e, ok := jsonskim.ValidStringEnd(b, i); !ok || e != end {
			bad = true
		}
		if body := end - 1 - (i + 1); body >= min {
			out = append(out, StringSpan{Off: int64(i + 1), Len: body})
		}
		i = end - 1
	}
	return out, false, bad
}

// FuzzStringSkim: the strings stringSkim finds in a line given in pieces
// cut anywhere (in a run of backslashes, inside an escape) are those
// jsonskim finds in the line whole, and a line is offered as long only
// when it ends outside its strings and each is a JSON string.
func FuzzStringSkim(f *testing.F) {
	for _, s := range []string{`{"a":"bcd","e":"f\"g\\","h":"\\\\\"i"}`, `{"x":"\\\\\\\\"}`, `"open \" still`,
		`{"k":["abc","de\\\"f"]}`, `{"u":"\u00e9\u12","v":"\x"}`, "{\"c\":\"a\tb\"}", `{"ok":"\u00E9\/\b"}`} {
		f.Add([]byte(s), uint64(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, seed uint64, min uint8) {
		want, open, bad := longStrings(b, int(min))
		rng := rand.New(rand.NewPCG(seed, seed))
		check := func(s *stringSkim, how string) {
			// a line is offered when it ends outside its strings, all good
			offered := !s.in && !s.bad
			assert.Equal(t, !open && !bad, offered, "%q %s: offered", b, how)
			if offered {
				assert.Equal(t, want, s.long, "%q %s", b, how)
			}
		}
		s := &stringSkim{min: int(min)}
		for rest := b; len(rest) > 0; {
			n := 1 + rng.IntN(len(rest))
			s.feed(rest[:n])
			rest = rest[n:]
		}
		check(s, "in pieces")
		s = &stringSkim{min: int(min)} // a byte at a time: cut everywhere
		for i := range b {
			s.feed(b[i : i+1])
		}
		check(s, "a byte at a time")
	})
}

// TestLongLinesTaken: a line over LongLineBytes with strings of
// LongStringBytes or more is given to the taker read without them; fn
// gets it with no bytes, and its Line is the one a whole read gives. A
// line it refuses comes whole (or, over the line limit, is skipped), and
// a line that is not a JSON object, or has no long string, is never
// offered. Whatever is taken, the next lines are where they were.
func TestLongLinesTaken(t *testing.T) {
	defer func(a, b, c int) { LongLineBytes, LongStringBytes, maxLineBytes = a, b, c }(LongLineBytes, LongStringBytes, maxLineBytes)
	LongLineBytes, LongStringBytes, maxLineBytes = 70<<10, 10<<10, 200<<10
	long := func(n int) string { return strings.Repeat(`ab\"\\`, n/6) } // a body of about n bytes
	lines := []string{
		`{"short":1}`,
		`{"a":"` + long(40<<10) + `","b":"small","c":"` + long(40<<10) + `"}  `, // taken
		`{"refuse":"` + long(80<<10) + `"}`,                                     // refused: read whole
		`["` + long(80<<10) + `"]`,                                              // not an object: whole
		`{"many":"` + strings.Repeat(`x","y":"`, 10<<10) + `"}`,                 // no long string: whole
		`{"huge":"` + long(300<<10) + `","n":2}`,                                // over the limit, taken
		`{"huger":"` + long(300<<10) + `","refuse":1}`,                          // over the limit, refused: skipped
		`{"last":"` + long(80<<10) + `"}`,                                       // taken, no newline
	}
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644))

	var want []Line
	wantN := map[int]Line{}
	var off int64
	for i, l := range lines {
		if i+1 != 7 { // the one skipped
			want = append(want, Line{N: i + 1, Off: off, Len: len(strings.TrimSpace(l))})
			wantN[i+1] = want[len(want)-1]
		}
		off += int64(len(l)) + 1
	}

	x := NewLineIndex(p)
	var took []*LineRead
	x.TakeLongLines(func(lr *LineRead, last bool) bool {
		require.Equal(t, lr.Line.N == len(lines), last)
		if bytes.Contains(lr.Data, []byte(`"refuse"`)) {
			return false
		}
		took = append(took, lr)
		return true
	})
	var got []Line
	data := map[int]string{} // by line number
	var warns []string
	_, err := x.Scan(context.Background(), nil, func(l Line, b []byte, last bool) bool {
		got, data[l.N] = append(got, l), string(b)
		return true
	}, func(n int, format string, args ...any) { warns = append(warns, format) })
	require.NoError(t, err)

	assert.Equal(t, want, got)
	assert.Equal(t, want, x.Lines())
	assert.Equal(t, []string{"skipped a line of more than %s"}, warns)
	require.Len(t, took, 3)
	for i, n := range []int{2, 6, 8} {
		lr := took[i]
		assert.Equal(t, n, lr.Line.N)
		assert.Equal(t, wantN[n], lr.Line)
		assert.True(t, lr.Partial())
		emptied := lines[n-1]
		for _, s := range []string{long(300 << 10), long(80 << 10), long(40 << 10)} {
			emptied = strings.ReplaceAll(emptied, s, "")
		}
		assert.True(t, strings.TrimSpace(emptied) == string(lr.Data), "line %d read without its long strings: %.80q", n, lr.Data)
		assert.Empty(t, data[n], "a taken line's bytes are not given")
	}
	for _, n := range []int{1, 3, 4, 5} {
		assert.True(t, strings.TrimSpace(lines[n-1]) == data[n], "line %d comes whole", n)
	}
}
