package sessions

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type scanned struct {
	lines  []string
	resets int
}

func (s *scanned) scan(t *testing.T, x *LineIndex) bool {
	t.Helper()
	reset, err := x.Scan(context.Background(), func() { s.lines = nil; s.resets++ }, func(l Line, data []byte, last bool) bool {
		again, err := x.Read(l)
		require.NoError(t, err)
		assert.Equal(t, string(data), string(again), "line %d read again by its offset", l.N)
		s.lines = append(s.lines, string(data))
		return true
	}, func(n int, format string, args ...any) { t.Errorf("line %d: "+format, append([]any{n}, args...)...) })
	require.NoError(t, err)
	return reset
}

func TestLineIndexScansOnlyWhatWasAppended(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n\n  {\"b\":2}  \n"), 0o644))
	x, s := NewLineIndex(p), &scanned{}
	assert.False(t, s.scan(t, x))
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`}, s.lines)
	assert.Equal(t, []Line{{N: 1, Off: 0, Len: 7}, {N: 3, Off: 11, Len: 7}}, x.Lines())

	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"c\":3}\n{\"d\":")
	require.NoError(t, err)
	assert.False(t, s.scan(t, x), "an append is scanned on")
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`, `{"d":`}, s.lines)

	_, err = f.WriteString("4}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.True(t, s.scan(t, x), "a scan that ended inside a line starts again")
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`, `{"d":4}`}, s.lines)
	assert.False(t, s.scan(t, x))
	assert.Equal(t, 1, s.resets)

	require.NoError(t, os.WriteFile(p, []byte("{\"A\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\":4}\n"), 0o644))
	assert.True(t, s.scan(t, x), "a rewrite of the same size is seen")
	assert.Equal(t, `{"A":1}`, s.lines[0])
	require.NoError(t, os.WriteFile(p, []byte("{\"z\":1}\n"), 0o644))
	assert.True(t, s.scan(t, x), "a shorter file is scanned again")
	assert.Equal(t, []string{`{"z":1}`}, s.lines)
}

func TestReadLineAtNamesAChangedFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n"), 0o644))
	_, err := ReadLineAt(p, Line{N: 2, Off: 4, Len: 8})
	assert.ErrorContains(t, err, p+":2: the file")
	_, err = ReadLineAt(p, Line{N: 1, Off: 0, Len: maxLineBytes + 1})
	assert.ErrorContains(t, err, p+":1: no such line")
}

func TestLineIndexStopsWhereToldAndGoesOn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("1\n2\n3\n"), 0o644))
	x := NewLineIndex(p)
	var got []string
	scan := func(stopAt string) {
		_, err := x.Scan(context.Background(), nil, func(l Line, data []byte, last bool) bool {
			got = append(got, string(data))
			return string(data) != stopAt
		}, nil)
		require.NoError(t, err)
	}
	scan("1")
	assert.Equal(t, []string{"1"}, got)
	scan("")
	assert.Equal(t, []string{"1", "2", "3"}, got)
	assert.Equal(t, 3, x.Lines()[2].N)
}

// TestLinesAtKeepsItsFileOpen: the lines an index found read back through
// one LinesAt, which opens the file once, says when the file changed
// under it, and reads again after Close.
func TestLinesAtKeepsItsFileOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n  {\"b\":2}\n{\"c\":3}\n"), 0o644))
	x := NewLineIndex(p)
	var lines []Line
	_, err := x.Scan(context.Background(), nil, func(l Line, _ []byte, _ bool) bool {
		lines = append(lines, l)
		return true
	}, func(int, string, ...any) {})
	require.NoError(t, err)
	r := LinesAt{Path: p}
	defer r.Close()
	for i, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		b, err := r.Read(lines[i])
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	f := r.f
	_, err = r.Read(lines[0])
	require.NoError(t, err)
	assert.Same(t, f, r.f, "one open for every read")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n\n"), 0o644))
	_, err = r.Read(lines[2])
	assert.ErrorContains(t, err, p+":3: the file is shorter than when it was read")
	require.NoError(t, r.Close())
	b, err := r.Read(lines[0])
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(b))
}

// TestNextLineReadsLongLinesOnce: lines shorter than, as long as and
// longer than the reader's buffer, the last one without its newline, come
// back as written, each line's bytes allocated about once (a long line
// was held in pieces and again joined); a line over maxLineBytes is read
// through and not kept.
func TestNextLineReadsLongLinesOnce(t *testing.T) {
	const buf = 1 << 10
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 300 << 10
	lines := []string{"short\n", strings.Repeat("a", buf-1) + "\n", strings.Repeat("b", buf) + "\n",
		strings.Repeat("c", 200<<10) + "\n", strings.Repeat("d", 400<<10) + "\n", "\n", strings.Repeat("e", 3*buf+7)}
	path := filepath.Join(t.TempDir(), "l.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := bufio.NewReaderSize(f, buf)
	off := int64(0)
	for i, want := range lines {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, size, err := nextLine(r, f, off)
		runtime.ReadMemStats(&after)
		off += int64(size)
		require.Equal(t, len(want), size, "line %d", i)
		if i == len(lines)-1 {
			require.ErrorIs(t, err, io.EOF)
		} else {
			require.NoError(t, err, "line %d", i)
		}
		if len(want) > maxLineBytes {
			require.Nil(t, got, "line %d is over the limit", i)
			continue
		}
		require.Equal(t, want, string(got), "line %d", i)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(want)+len(want)/4+4<<10), "line %d: bytes allocated", i)
	}
	got, size, err := nextLine(r, f, off)
	require.Empty(t, got)
	require.Zero(t, size)
	require.ErrorIs(t, err, io.EOF)
}
