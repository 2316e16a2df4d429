package sessions

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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

// TestScanToReadsNothingWhenStableEnough: once a line is scanned, a
// ScanTo that stable() already satisfies reads no line (a call's output
// read in the middle of a walk asks for 0), and one that it does not
// satisfy reads on to where it is.
func TestScanToReadsNothingWhenStableEnough(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("1\n2\n3\n4\n"), 0o644))
	x := NewLineIndex(p)
	var got []string
	scanTo := func(want int) {
		require.NoError(t, x.ScanTo(context.Background(), want, func() int { return len(got) }, nil,
			func(l Line, data []byte, last bool) { got = append(got, string(data)) }, nil))
	}
	scanTo(0)
	assert.Equal(t, []string{"1"}, got, "nothing scanned yet: a line is read")
	scanTo(0)
	scanTo(1)
	assert.Equal(t, []string{"1"}, got, "stable enough: no line read")
	scanTo(3)
	assert.Equal(t, []string{"1", "2", "3"}, got)
	assert.False(t, x.AtEnd())
	scanTo(-1)
	assert.Equal(t, []string{"1", "2", "3", "4"}, got)
	assert.True(t, x.AtEnd())
}

// TestScanToPreparedGivesEachLineOnce: with a prepare, fn gets every
// line once, in order, with what prepare made of that line, across scans
// that stop short (the lines read ahead of a stop are read again), blank
// lines and a last line without its newline.
func TestScanToPreparedGivesEachLineOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	var want []string
	var b []byte
	for i := range 100 {
		want = append(want, fmt.Sprintf("line %d", i))
		b = append(b, want[i]...)
		if i%7 == 0 {
			b = append(b, "\n  \n"...)
		}
		if i < 99 {
			b = append(b, '\n')
		}
	}
	require.NoError(t, os.WriteFile(p, b, 0o644))
	x := NewLineIndex(p)
	var got []string
	for _, to := range []int{1, 2, 3, 10, 11, 50, -1} {
		require.NoError(t, x.ScanToPrepared(context.Background(), to, func() int { return len(got) }, nil,
			func(data []byte) any { return "prepared " + string(data) },
			func(l Line, data []byte, prep any, last bool) {
				require.Equal(t, "prepared "+string(data), prep)
				assert.Equal(t, string(data) == "line 99", last)
				got = append(got, string(data))
			}, nil))
		if to >= 0 {
			require.Len(t, got, to)
		}
	}
	assert.Equal(t, want, got)
	assert.True(t, x.AtEnd())
}

// TestReadAheadPausesAndSeesChanges: a read-ahead stops reading once it
// holds aheadBytes (its goroutine ends) and reads on as its scans take
// lines; a file appended to since is read as it is then, the lines read
// ahead of the change let go.
func TestReadAheadPausesAndSeesChanges(t *testing.T) {
	defer func(n int) { aheadBytes = n }(aheadBytes)
	aheadBytes = 64
	p := filepath.Join(t.TempDir(), "s.jsonl")
	var b []byte
	for i := range 50 {
		b = fmt.Appendf(b, "line %02d\n", i)
	}
	require.NoError(t, os.WriteFile(p, b, 0o644))
	require.NoError(t, os.Chtimes(p, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))) // not "written just now"
	x := NewLineIndex(p)
	var got []string
	scanTo := func(want int) {
		require.NoError(t, x.ScanToPrepared(context.Background(), want, func() int { return len(got) }, nil,
			func(data []byte) any { return string(data) },
			func(l Line, data []byte, prep any, last bool) {
				require.Equal(t, string(data), prep)
				got = append(got, string(data))
			}, nil))
	}
	scanTo(5)
	a := x.ahead
	require.NotNil(t, a)
	running, held := true, 0
	for end := time.Now().Add(20 * time.Second); running && time.Now().Before(end); time.Sleep(time.Millisecond) {
		a.mu.Lock()
		running, held = a.running, a.held
		a.mu.Unlock()
	}
	require.False(t, running, "paused")
	require.GreaterOrEqual(t, held, 32, "holding at least half its budget (it goes on below that)")
	scanTo(30)
	require.Len(t, got, 30)
	require.Same(t, a, x.ahead, "kept across scans of a file that did not change")
	// a line already read ahead changed in place, and one appended
	b = append(bytes.Replace(b, []byte("line 32"), []byte("LINE 32"), 1), "appended\n"...)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	require.NoError(t, os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)))
	scanTo(-1)
	require.Len(t, got, 51)
	for i := range 50 {
		want := fmt.Sprintf("line %02d", i)
		if i == 32 {
			want = "LINE 32"
		}
		require.Equal(t, want, got[i])
	}
	require.Equal(t, "appended", got[50])
	require.Nil(t, x.ahead, "let go at the end")
}

// TestLinesAtKeepsItsFileOpen: the lines an index found read back through
// one LinesAt, which opens the file once and reads a window of it at a
// time, says when the file changed under it past what it holds, and
// reads again, the file as it is, after Close.
func TestLinesAtKeepsItsFileOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	pad := strings.Repeat("x", windowBytes)
	want := []string{`{"a":1}`, `{"b":2}`, `{"p":"` + pad + `"}`, `{"c":3}`}
	require.NoError(t, os.WriteFile(p, []byte(want[0]+"\n  "+want[1]+"\n"+want[2]+"\n"+want[3]+"\n"), 0o644))
	x := NewLineIndex(p)
	var lines []Line
	_, err := x.Scan(context.Background(), nil, func(l Line, _ []byte, _ bool) bool {
		lines = append(lines, l)
		return true
	}, func(int, string, ...any) {})
	require.NoError(t, err)
	r := LinesAt{Path: p}
	defer r.Close()
	for i := range want {
		b, err := r.Read(lines[i])
		require.NoError(t, err)
		assert.Equal(t, want[i], string(b))
	}
	f := r.f
	_, err = r.Read(lines[0])
	require.NoError(t, err)
	assert.Same(t, f, r.f, "one open for every read")
	require.NoError(t, os.WriteFile(p, []byte("{\"A\":1}\n\n"), 0o644))
	_, err = r.Read(lines[2])
	assert.ErrorContains(t, err, p+":3: the file is shorter than when it was read")
	require.NoError(t, r.Close())
	b, err := r.Read(lines[0])
	require.NoError(t, err)
	assert.Equal(t, `{"A":1}`, string(b), "no window kept past Close")
}

// TestLinesAtWindow: pieces read through the window, in and out of order,
// across its end and at the file's end, are the file's bytes, with one
// read a window for pieces that follow one another.
func TestLinesAtWindow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w")
	data := make([]byte, 3*windowBytes+123)
	for i := range data {
		data[i] = 'a' + byte(i%26)
	}
	require.NoError(t, os.WriteFile(p, data, 0o644))
	r := LinesAt{Path: p}
	defer r.Close()
	for _, c := range [][2]int{{0, 10}, {10, 100}, {5, 7}, {windowBytes - 3, 10}, {2 * windowBytes, windowBytes}, {100, 2 * windowBytes},
		{len(data) - 50, 50}, {len(data) - 10, 5}, {0, 1}} {
		b := make([]byte, c[1])
		require.NoError(t, r.readAt(Line{N: 1}, b, int64(c[0])), "%v", c)
		require.Equal(t, data[c[0]:c[0]+c[1]], b, "%v", c)
	}
	err := r.readAt(Line{N: 7}, make([]byte, 10), int64(len(data)-5))
	require.ErrorContains(t, err, p+":7: the file is shorter than when it was read")
	require.NoError(t, r.readAt(Line{N: 1}, make([]byte, 3), 0))
	require.NoError(t, r.readAt(Line{N: 1}, make([]byte, 3), 10)) // a run: the window read
	win := r.winOff
	require.Equal(t, int64(10), win)
	require.NoError(t, r.readAt(Line{N: 1}, make([]byte, 3), 3000))
	require.Equal(t, win, r.winOff, "read from the window")
	require.NoError(t, r.readAt(Line{N: 1}, make([]byte, 3), 2*windowBytes+5))
	require.Equal(t, win, r.winOff, "a read on its own is not windowed")
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
