package sessions

// The lazy path's reading of JSON Lines session files (Claude Code, Codex
// CLI, Gemini CLI, Copilot CLI, Qwen Code): a file is scanned once, a line
// at a time, remembering where each line starts, and later scans read only
// what the agent appended since. A record is read again by its offset when
// it is shown, so what is held does not grow with the file's outputs.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Line is where one non-blank line of a JSON Lines file is: its number
// (1-based, as warnings name it), its first byte and its length without
// the newline and surrounding blanks.
type Line struct {
	N   int
	Off int64
	Len int
}

// LineIndex is the lines of one JSON Lines file scanned so far. It is safe
// for concurrent use; Scan calls are serialized.
type LineIndex struct {
	path string

	mu      sync.Mutex
	lines   []Line
	end     int64  // the scan's end: after the last complete line
	n       int    // lines (blank ones too) before end
	head    []byte // the file's first bytes at the last scan
	tail    []byte // the bytes just before end at the last scan
	partial bool   // the last scan ended in a line without its newline
	atEnd   bool   // the last ScanTo reached the file's end
	endStat string // StatPrint before it ("" when the file was written just now)
	// where the last Foresee ended (its last complete line) when past end
	foreEnd int64
	foreN   int
	ahead   *readAhead // lines read past end by a scan with a prepare
	long    func(lr *LineRead, last bool) bool
}

// TakeLongLines has the scans without a prepare give take every line
// over LongLineBytes that is a JSON object with strings of LongStringBytes
// or more, read without them (LongLiner.LongLine): fn is then called for
// it with no bytes. A line take refuses is read whole as any other.
func (x *LineIndex) TakeLongLines(take func(lr *LineRead, last bool) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.long = take
}

// NewLineIndex is an index of path with nothing scanned yet.
func NewLineIndex(path string) *LineIndex { return &LineIndex{path: path} }

// ScanTo scans on (Scan) until stable() is at least want (want < 0: to the
// file's end). It reads nothing when the last ScanTo reached the end and
// the file's size and mtime are what they were then (StatPrint), nor when
// a line was scanned and stable() is want already (a call's output read
// in the middle of a walk: else each read opened the file and read a
// line on).
func (x *LineIndex) ScanTo(ctx context.Context, want int, stable func() int, onReset func(), fn func(l Line, data []byte, last bool), warnf func(n int, format string, args ...any)) error {
	return x.ScanToPrepared(ctx, want, stable, onReset, nil, func(l Line, data []byte, _ any, last bool) { fn(l, data, last) }, warnf)
}

// ScanToPrepared is ScanTo with each line given to prepare (when not nil)
// on another goroutine, ahead of fn, which gets what it made: the decoding
// of a line that needs nothing fn built runs beside fn's reading of the
// lines before it (see Scan's prepare).
func (x *LineIndex) ScanToPrepared(ctx context.Context, want int, stable func() int, onReset func(), prepare func(data []byte) any, fn func(l Line, data []byte, prep any, last bool), warnf func(n int, format string, args ...any)) error {
	if want >= 0 && x.scanned() && stable() >= want {
		return nil
	}
	stat, _ := StatPrint(x.path, time.Now(), false)
	if x.AtEnd() && stat != "" && stat == x.stat() {
		return nil // nothing appended
	}
	reached := true
	_, err := x.scan(ctx, onReset, prepare, func(l Line, data []byte, prep any, last bool) bool {
		fn(l, data, prep, last)
		if want >= 0 && stable() >= want {
			reached = false
			return false
		}
		return true
	}, warnf)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.atEnd, x.endStat = reached, stat
	return nil
}

// Foresee gives fn, in order, the head of every line past the last scan's
// end (numbered as the next Scan numbers them) that no Foresee gave yet
// (but a last line without its newline, given again): its first headBytes
// bytes, whole when that is all of it. It decodes nothing, reading a buffer
// at a time, so that a reader whose Stable needs the lines still to come
// (a Foreseer) learns them at a small part of a scan's cost. A rewrite
// since the last scan goes unseen here: the Scan after it starts afresh,
// with a new reader.
func (x *LineIndex) Foresee(ctx context.Context, headBytes int, fn func(n int, head []byte, whole bool)) error {
	x.mu.Lock()
	from, n := x.end, x.n
	if x.foreEnd > from {
		from, n = x.foreEnd, x.foreN
	}
	x.mu.Unlock()
	done := func(end int64, n int) {
		x.mu.Lock()
		x.foreEnd, x.foreN = end, n
		x.mu.Unlock()
	}
	f, _, err := openRegular(x.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return fileErr(x.path, err)
	}
	buf := make([]byte, 1<<20)
	head := make([]byte, 0, headBytes)
	size := 0 // of the line so far
	off := from
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, rerr := f.Read(buf)
		for b := buf[:k]; len(b) > 0; {
			i := bytes.IndexByte(b, '\n')
			seg := b
			if i >= 0 {
				seg = b[:i]
			}
			head = append(head, seg[:min(len(seg), headBytes-len(head))]...)
			size += len(seg)
			if i < 0 {
				break
			}
			n++
			fn(n, head, size <= headBytes)
			off += int64(size) + 1
			head, size, b = head[:0], 0, b[i+1:]
		}
		if errors.Is(rerr, io.EOF) {
			if size > 0 {
				fn(n+1, head, size <= headBytes)
			}
			done(off, n)
			return nil
		}
		if rerr != nil {
			return fileErr(x.path, rerr)
		}
	}
}

// scanned tells whether a line was scanned.
func (x *LineIndex) scanned() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.lines) > 0
}

// AtEnd tells whether the last ScanTo reached the file's end.
func (x *LineIndex) AtEnd() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.atEnd
}

func (x *LineIndex) stat() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.endStat
}

// Path is the indexed file.
func (x *LineIndex) Path() string { return x.path }

// checkBytes is how much of the file's head and of the bytes before the
// scan's end are compared to tell an append from a rewrite.
const checkBytes = 4096

// Scan reads what the file holds past the last scan and calls fn for each
// new non-blank line (the slice is fn's to keep; last is true for a final
// line without its newline, perhaps still being written) until fn returns
// false: the next Scan goes on after that line. When the file
// no longer starts with what was scanned (rewritten, truncated, or the last
// scan ended inside an unfinished line), it is scanned again from its
// start and reset is true: fn has then been called for every line, and
// the caller must drop what it built from the earlier scans first (it is
// told before the first line through onReset, when not nil). A line over
// 64 MiB is skipped and named through warnf, unless a TakeLongLines took
// it (fn then gets no bytes).
func (x *LineIndex) Scan(ctx context.Context, onReset func(), fn func(l Line, data []byte, last bool) bool, warnf func(n int, format string, args ...any)) (reset bool, err error) {
	return x.scan(ctx, onReset, nil, func(l Line, data []byte, _ any, last bool) bool { return fn(l, data, last) }, warnf)
}

// scan is Scan with prepare, when not nil, given each non-blank line
// (as fn gets it) on another goroutine, read ahead of fn (readAhead); fn
// gets what it made of the line. The lines read ahead of where fn stops
// are kept for the next scan while the file's size and mtime are as they
// were (StatPrint) when they were read.
func (x *LineIndex) scan(ctx context.Context, onReset func(), prepare func(data []byte) any, fn func(l Line, data []byte, prep any, last bool) bool, warnf func(n int, format string, args ...any)) (reset bool, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	f, fi, err := openRegular(x.path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if x.end > 0 && !x.appended(f, fi.Size()) {
		x.lines, x.end, x.n, x.head, x.tail, x.partial = nil, 0, 0, nil, nil, false
		x.foreEnd, x.foreN = 0, 0
		reset = true
		if onReset != nil {
			onReset()
		}
	}
	if fi.Size() == x.end || prepare == nil || reset {
		x.dropAhead()
	}
	if fi.Size() == x.end {
		return reset, nil
	}
	var next func() aheadLine
	if prepare != nil {
		stat, _ := StatPrint(x.path, time.Now(), false)
		if a := x.ahead; a != nil && (a.from != x.end || stat == "" || a.stat != stat) {
			x.dropAhead()
		}
		if x.ahead == nil {
			x.ahead = newReadAhead(x.path, stat, x.end, prepare)
		}
		next = x.ahead.next
	} else {
		if _, err := f.Seek(x.end, io.SeekStart); err != nil {
			return reset, fileErr(x.path, err)
		}
		r, at := bufio.NewReaderSize(f, scanBuffer), x.end
		next = func() aheadLine {
			var al aheadLine
			if x.long != nil { // the line is number x.n+1: the loop counts it after
				al.data, al.long, al.size, al.err = nextLongLine(r, f, x.path, at, x.n+1)
			} else {
				al.data, al.size, al.err = nextLine(r, f, at)
			}
			at += int64(al.size)
			return al
		}
	}
	kept := false // the read-ahead is kept for the next scan
	defer func() {
		if !kept {
			x.dropAhead()
		}
	}()
	off := x.end
	for {
		if err := ctx.Err(); err != nil {
			return reset, err
		}
		al := next()
		data, size, rerr, prep := al.data, al.size, al.err, al.prep
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return reset, fileErr(x.path, rerr)
		}
		if size == 0 {
			break
		}
		eof := rerr != nil
		x.n++
		var l Line
		var t []byte // the line's bytes for fn; nil for a long line taken
		switch {
		case al.long != nil && x.long(al.long, eof):
			l = al.long.Line
			longTaken.Add(1)
		case al.long != nil:
			if data, _, rerr = readBack(f, off, size, nil); rerr != nil {
				return reset, fileErr(x.path, rerr)
			}
			fallthrough
		default:
			if size > maxLineBytes {
				warnf(x.n, "skipped a line of more than %s", sizeText(int64(maxLineBytes)))
			} else if t = bytes.TrimSpace(data); len(t) > 0 {
				l = Line{N: x.n, Off: off + int64(bytes.Index(data, t[:1])), Len: len(t)}
			}
		}
		if l.N > 0 {
			x.lines = append(x.lines, l)
			more := fn(l, t, prep, eof && (data == nil || data[len(data)-1] != '\n'))
			if !more && !eof {
				off += int64(size)
				x.partial = false
				if x.ahead != nil {
					x.ahead.from, kept = off, true
				}
				break
			}
		}
		off += int64(size)
		if eof {
			x.partial = size > 0 && (data == nil || data[len(data)-1] != '\n')
			break
		}
	}
	x.end = off
	x.head = readSpan(f, 0, min(checkBytes, x.end))
	x.tail = readSpan(f, max(0, x.end-checkBytes), x.end)
	return reset, nil
}

// dropAhead lets go of the lines read ahead, if any. Call with x.mu held.
func (x *LineIndex) dropAhead() {
	if x.ahead != nil {
		x.ahead.drop()
		x.ahead = nil
	}
}

// appended tells whether the open file still holds what the last scan
// read, unchanged, so that scanning on from its end is enough.
func (x *LineIndex) appended(f *os.File, size int64) bool {
	if x.partial || size < x.end {
		return false
	}
	return bytes.Equal(readSpan(f, 0, int64(len(x.head))), x.head) &&
		bytes.Equal(readSpan(f, x.end-int64(len(x.tail)), x.end), x.tail)
}

// readSpan reads bytes [from, to) of f; nil when it cannot.
func readSpan(f *os.File, from, to int64) []byte {
	if to <= from {
		return []byte{}
	}
	b := make([]byte, to-from)
	if _, err := f.ReadAt(b, from); err != nil {
		return nil
	}
	return b
}

// Lines is a copy of the lines scanned so far.
func (x *LineIndex) Lines() []Line {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]Line(nil), x.lines...)
}

// Read reads line l of the file again. It fails, naming the file, when the
// file no longer holds a line there.
func (x *LineIndex) Read(l Line) ([]byte, error) { return ReadLineAt(x.path, l) }

// ReadLineAt reads line l of the regular file path: the l.Len bytes at
// l.Off, which must not hold a newline. Lines are at most 64 MiB.
func ReadLineAt(path string, l Line) ([]byte, error) {
	r := LinesAt{Path: path}
	defer r.Close()
	return r.Read(l)
}

// LinesAt reads lines of one file again as ReadLineAt does, the file kept
// open from the first read to Close: the thousands of lines of one
// request cost a read each, not an open, two stats and a close.
type LinesAt struct {
	Path string
	f    *os.File
	// win holds the file's bytes from winOff on, read with the last piece
	// asked for: a request's lines are read mostly in the file's order,
	// in pieces between the strings left in it, a read each otherwise
	// (the agents append to their files: a scan that finds one rewritten
	// starts over, and its reads Close first)
	win     []byte
	winOff  int64
	lastEnd int64 // where the last piece asked for ended
}

// windowBytes is how much a LinesAt reads at once for a piece under
// windowPiece bytes; a larger one (a whole line, most often, whose
// neighbours are not read next) is read on its own.
const windowBytes, windowPiece = 64 << 10, 4 << 10

// Read reads line l (see ReadLineAt).
func (r *LinesAt) Read(l Line) ([]byte, error) {
	if l.Len < 0 || l.Len > maxLineBytes || l.Off < 0 {
		return nil, fmt.Errorf("%s:%d: no such line", r.Path, l.N)
	}
	b := make([]byte, l.Len)
	if err := r.readAt(l, b, l.Off); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadWithout reads line l without the bodies of the strings leave and
// drop give (each in the file's order, as SpansOf and DroppedSpans found
// them on it): those of leave for a Leave to leave in the file, those of
// drop for the line's reader to drop. Each is an empty string (or object,
// or array, for one of drop) in what is read. It reads them too, and
// leaves out none, when they are few (4 × LeaveBytes in all: fewer are
// cheaper read than skipped) or do not lie in l. A line over the line
// limit is read when what is left of it is not.
func (r *LinesAt) ReadWithout(l Line, leave, drop []StringSpan) (*LineRead, error) {
	lr := &LineRead{Line: l}
	for i, j := 0, 0; i < len(leave) || j < len(drop); {
		if j == len(drop) || i < len(leave) && leave[i].Off < drop[j].Off {
			lr.without, lr.drop = append(lr.without, leave[i]), append(lr.drop, false)
			i++
		} else {
			lr.without, lr.drop = append(lr.without, drop[j]), append(lr.drop, true)
			j++
		}
	}
	total, from := 0, l.Off
	for _, sp := range lr.without {
		if sp.Off <= from || sp.Len < 0 || sp.Off+int64(sp.Len) >= l.Off+int64(l.Len) {
			total = -1
			break
		}
		total += sp.Len
		from = sp.Off + int64(sp.Len)
	}
	if total < 4*LeaveBytes || l.Len < 0 || l.Len-total > maxLineBytes {
		b, err := r.Read(l)
		return &LineRead{Line: l, Data: b}, err
	}
	b := make([]byte, l.Len-total)
	lr.Data, lr.at, lr.done = b, make([]int, len(lr.without)), make([]bool, len(lr.without))
	n, from := 0, l.Off
	for k, sp := range append(lr.without, StringSpan{Off: l.Off + int64(l.Len)}) {
		piece := b[n : n+int(sp.Off-from)]
		if err := r.readAt(l, piece, from); err != nil {
			return nil, err
		}
		n += len(piece)
		if k == len(lr.without) {
			break
		}
		// the value's quotes or brackets, with nothing between them now
		if closer(b[n-1]) == 0 || n >= len(b) {
			return nil, fmt.Errorf("%s:%d: the file changed since it was read", r.Path, l.N)
		}
		lr.at[k] = n
		from = sp.Off + int64(sp.Len)
	}
	for _, at := range lr.at {
		if b[at] != closer(b[at-1]) {
			return nil, fmt.Errorf("%s:%d: the file changed since it was read", r.Path, l.N)
		}
	}
	return lr, nil
}

// readAt reads b at off, a piece of line l that holds no newline.
func (r *LinesAt) readAt(l Line, b []byte, off int64) error {
	if r.f == nil {
		f, _, err := openRegular(r.Path)
		if err != nil {
			return err
		}
		r.f = f
	}
	if err := r.window(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: the file is shorter than when it was read", r.Path, l.N)
		}
		return fileErr(r.Path, err)
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		return fmt.Errorf("%s:%d: the file changed since it was read", r.Path, l.N)
	}
	return nil
}

// window reads b at off through the window: from it when it holds
// them, else, for a piece under windowPiece bytes that starts soon after
// the last one asked for (a run of reads, not one on its own), into it
// from off on.
func (r *LinesAt) window(b []byte, off int64) error {
	near := off >= r.lastEnd && off-r.lastEnd < windowBytes
	r.lastEnd = off + int64(len(b))
	if off >= r.winOff && off+int64(len(b)) <= r.winOff+int64(len(r.win)) {
		copy(b, r.win[off-r.winOff:])
		return nil
	}
	if len(b) >= windowPiece || !near {
		_, err := r.f.ReadAt(b, off)
		return err
	}
	if r.win == nil {
		r.win = make([]byte, windowBytes)
	}
	n, err := r.f.ReadAt(r.win[:windowBytes], off)
	r.win, r.winOff = r.win[:n], off
	if n < len(b) {
		r.win = r.win[:0]
		if err == nil {
			err = io.EOF
		}
		return err
	}
	copy(b, r.win)
	return nil
}

// Close closes the file, if a read opened it; r may read again after,
// what it holds of the file let go.
func (r *LinesAt) Close() error {
	r.win = nil
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
