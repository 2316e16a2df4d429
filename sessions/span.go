package sessions

// String spans: a JSON string a store's file holds, in the form the wire
// writes it in, left in the file and copied from it when the wire is
// written (a DeferringRequestLoader's large strings), so that no one holds
// it whole on the way.

import (
	"context"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"correx/formatters"
	"correx/internal/jsonskim"
)

// A StringSpan is the body of a JSON string (no quotes) at Off in a file,
// as it was when found: its length and a hash of its bytes, so that a
// later read can tell they are still those.
type StringSpan struct {
	Off int64
	Len int
	Sum uint64 // under this process's seed: a span means nothing outside it
}

// spanSeed keys the spans' hashes (one per process: they are never kept).
var spanSeed = maphash.MakeSeed()

// A LineRead is line Line as read: Data its bytes, less the bodies of the
// strings it was read without (LinesAt.ReadWithout), each an empty string
// in Data, for a Leave to leave in the file or for its reader to drop.
type LineRead struct {
	Line    Line
	Data    []byte
	without []StringSpan // in the file's order
	at      []int        // where each lies in Data: its closing quote or bracket
	drop    []bool       // each is one the reader drops, not one to leave
	done    []bool       // each was left by a Leave, or dropped
}

// Partial tells whether lr was read without some strings.
func (lr *LineRead) Partial() bool { return len(lr.without) > 0 }

// Whole tells whether raw, a part of Data, is whole: every string lr was
// read without that lies in it was left by a Leave or dropped (Drop). A
// raw that does not lie in Data is whole only when nothing was left out.
func (lr *LineRead) Whole(raw []byte) bool {
	from, in := jsonskim.Within(lr.Data, raw)
	for k, at := range lr.at {
		if !lr.done[k] && (!in || at > from && at < from+len(raw)) {
			return false
		}
	}
	return true
}

// Drop tells lr its reader drops str, a value of Data: false when str is
// not one of the values to drop it was read without.
func (lr *LineRead) Drop(str []byte) bool {
	k := lr.hole(str)
	if k < 0 || !lr.drop[k] {
		return false
	}
	lr.done[k] = true
	unread.Add(1)
	return true
}

// hole is the value lr was read without that str (an empty string, object
// or array lying in Data) is, -1 for none.
func (lr *LineRead) hole(str []byte) int {
	at, in := jsonskim.Within(lr.Data, str)
	if !in || len(str) != 2 {
		return -1
	}
	if k, found := slices.BinarySearch(lr.at, at+1); found {
		return k
	}
	return -1
}

// spanOf is the span of str, a JSON string (quotes included) that lies in
// lr.Data, and the string lr was read without that it is (-1 for none): ok
// false when str does not lie in Data, or is neither one of those to
// leave nor LeaveBytes long and in the form formatters.Stringify writes
// (jsonskim.Canonical), which is what a SpanFile copies to the wire.
func (lr *LineRead) spanOf(str []byte) (sp StringSpan, without int, ok bool) {
	at, in := jsonskim.Within(lr.Data, str)
	if !in || len(str) < 2 {
		return StringSpan{}, -1, false
	}
	if k := lr.hole(str); k >= 0 {
		return lr.without[k], k, !lr.drop[k]
	}
	body := str[1 : len(str)-1]
	if len(str) < max(LeaveBytes, 2) || !jsonskim.Canonical(unsafe.String(unsafe.SliceData(body), len(body))) {
		return StringSpan{}, -1, false
	}
	return StringSpan{Off: lr.fileOff(at + 1), Len: len(body), Sum: maphash.Bytes(spanSeed, body)}, -1, true
}

// DroppedSpans are the spans of the bodies of the values vals gives
// (strings, objects or arrays, each whole, lying in data, the bytes of
// line l as read, in order) at least LeaveBytes long: values the line's
// reader drops, which a later LinesAt.ReadWithout of the line can leave
// unread (they carry no hash: they are never written).
func DroppedSpans(l Line, data []byte, vals func(each func(val []byte))) []StringSpan {
	return (&LineRead{Line: l, Data: data}).DroppedSpans(vals)
}

// DroppedSpans is DroppedSpans of lr's line as lr holds it: a value it
// was read without is the span it was.
func (lr *LineRead) DroppedSpans(vals func(each func(val []byte))) []StringSpan {
	var out []StringSpan
	vals(func(val []byte) {
		var sp StringSpan
		if k := lr.hole(val); k >= 0 {
			sp = StringSpan{Off: lr.without[k].Off, Len: lr.without[k].Len}
		} else if at, in := jsonskim.Within(lr.Data, val); in && len(val) >= max(LeaveBytes, 2) && enclosed(val) {
			sp = StringSpan{Off: lr.fileOff(at + 1), Len: len(val) - 2}
		} else {
			return
		}
		if len(out) == 0 || sp.Off > out[len(out)-1].Off+int64(out[len(out)-1].Len) {
			out = append(out, sp)
		}
	})
	return out
}

// fileOff is where byte at of Data lies in the file.
func (lr *LineRead) fileOff(at int) int64 {
	off := lr.Line.Off + int64(at)
	for k, a := range lr.at {
		if a <= at {
			off += int64(lr.without[k].Len)
		}
	}
	return off
}

// enclosed tells whether val is a whole string, or an object or array
// (as a skim gives it: its brackets are taken on trust).
func enclosed(val []byte) bool {
	switch val[0] {
	case '"':
		return jsonskim.StringEnd(val, 0) == len(val)
	case '{', '[':
		return val[len(val)-1] == closer(val[0])
	}
	return false
}

// closer is the byte that closes a string, object or array opened by c;
// 0 for any other.
func closer(c byte) byte {
	switch c {
	case '"':
		return '"'
	case '{':
		return '}'
	case '[':
		return ']'
	}
	return 0
}

// SpansOf are the spans of the strings strs gives (each quotes included,
// lying in data, the bytes of line l as read, in order) that a Leave
// leaves: those a later LinesAt.ReadWithout of the line can leave unread.
func SpansOf(l Line, data []byte, strs func(each func(str []byte))) []StringSpan {
	return (&LineRead{Line: l, Data: data}).SpansOf(strs)
}

// SpansOf is SpansOf of lr's line as lr holds it.
func (lr *LineRead) SpansOf(strs func(each func(str []byte))) []StringSpan {
	var out []StringSpan
	strs(func(str []byte) {
		if len(str) < 2 || str[0] != '"' || jsonskim.StringEnd(str, 0) != len(str) {
			return
		}
		if sp, _, ok := lr.spanOf(str); ok && (len(out) == 0 || sp.Off > out[len(out)-1].Off+int64(out[len(out)-1].Len)) {
			out = append(out, sp)
		}
	})
	return out
}

// spanChunk is how much of a span a SpanFile reads at once.
const spanChunk = 256 << 10

// A SpanFile reads the spans of one regular file again, kept open from
// the first read to Close (it may read again after). Safe for concurrent
// use.
type SpanFile struct {
	Path string
	mu   sync.Mutex
	f    *os.File
	buf  []byte
}

// Write gives write the body of span sp a piece at a time, as the file
// holds it (a piece is valid during its call only). It fails, naming the
// file, when the file no longer holds those bytes there; a write may have
// been given the first pieces then.
func (sf *SpanFile) Write(ctx context.Context, sp StringSpan, write func(body string) error) error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	spanWrites.Add(1)
	if sf.f == nil {
		f, _, err := openRegular(sf.Path)
		if err != nil {
			return err
		}
		sf.f = f
	}
	if sf.buf == nil {
		sf.buf = make([]byte, spanChunk)
	}
	var h maphash.Hash
	h.SetSeed(spanSeed)
	for at, end := sp.Off, sp.Off+int64(sp.Len); at < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := sf.buf[:min(int64(len(sf.buf)), end-at)]
		if _, err := sf.f.ReadAt(b, at); err != nil {
			return fmt.Errorf("%s: reading %d bytes at %d again: %w", sf.Path, sp.Len, sp.Off, fileErr(sf.Path, err))
		}
		h.Write(b)
		if err := write(unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
			return err
		}
		at += int64(len(b))
	}
	if h.Sum64() != sp.Sum {
		return fmt.Errorf("%s: the file changed since it was read (%d bytes at %d)", sf.Path, sp.Len, sp.Off)
	}
	return nil
}

// Close closes the file, if a write opened it.
func (sf *SpanFile) Close() error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if sf.f == nil {
		return nil
	}
	err := sf.f.Close()
	sf.f = nil
	return err
}

// LeaveBytes is the least string, quotes included, a Leaver leaves in
// its file: below it a placeholder saves little. Tests lower it.
var LeaveBytes = 1 << 10

// spanWrites counts the spans written, and unread the strings left or
// dropped that were never read (LinesAt.ReadWithout), for tests.
var spanWrites, unread atomic.Int64

// A Leaver leaves the large strings of JSON texts read from one file in
// it: each is given as the placeholder Place returns (a string, written
// in the text as JSON) for a writer that copies it from the file (Spans)
// when the wire is written.
type Leaver struct {
	Place func(body func(ctx context.Context, write func(body string) error) error) string
	Spans *SpanFile
}

// Leave is raw, lying in lr.Data, with a placeholder in the place of each
// string strs gives (each a span of raw, quotes included, in order) that
// lr was read without, or that is at least LeaveBytes long and lies in the
// file in the form the wire writes (LineRead.spanOf); left says some
// string was left, raw itself is given when none was. A nil Leaver leaves
// none.
func (d *Leaver) Leave(lr *LineRead, raw []byte, strs func(each func(str []byte))) (out []byte, left bool) {
	if d == nil || lr == nil || lr.Data == nil {
		return raw, false
	}
	last := 0
	strs(func(str []byte) {
		if len(str) < 2 || str[0] != '"' || jsonskim.StringEnd(str, 0) != len(str) {
			return
		}
		at, in := jsonskim.Within(raw, str)
		if !in || at < last {
			return
		}
		sp, without, ok := lr.spanOf(str)
		if !ok {
			return
		}
		if without >= 0 {
			lr.done[without] = true
			unread.Add(1)
		}
		if out == nil {
			out = make([]byte, 0, len(raw)/8)
		}
		spans := d.Spans
		placeholder := d.Place(func(ctx context.Context, write func(string) error) error {
			return spans.Write(ctx, sp, write)
		})
		enc, _ := formatters.Stringify(placeholder) // a string always encodes
		out = append(append(out, raw[last:at]...), enc...)
		last = at + len(str)
	})
	if out == nil {
		return raw, false
	}
	return append(out, raw[last:]...), true
}
