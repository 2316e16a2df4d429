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
	sum uint64
}

// spanSeed keys the spans' hashes (one per process: they are never kept).
var spanSeed = maphash.MakeSeed()

// spanOf is the span of body, the body of a JSON string that lies in
// data, the bytes of line l as read: ok false when body does not lie in
// data or is not in the form formatters.Stringify writes (jsonskim.Canonical),
// which is what a SpanFile copies to the wire.
func spanOf(l Line, data, body []byte) (StringSpan, bool) {
	at, ok := jsonskim.Within(data, body)
	if !ok || !jsonskim.Canonical(unsafe.String(unsafe.SliceData(body), len(body))) {
		return StringSpan{}, false
	}
	return StringSpan{Off: l.Off + int64(at), Len: len(body), sum: maphash.Bytes(spanSeed, body)}, true
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
	if h.Sum64() != sp.sum {
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

// spanWrites counts the spans written, for tests.
var spanWrites atomic.Int64

// A Leaver leaves the large strings of JSON texts read from one file in
// it: each is given as the placeholder Place returns (a string, written
// in the text as JSON) for a writer that copies it from the file (Spans)
// when the wire is written.
type Leaver struct {
	Place func(body func(ctx context.Context, write func(body string) error) error) string
	Spans *SpanFile
}

// Leave is raw, lying in data (the bytes of line l as read), with a
// placeholder in the place of each string strs gives (each a span of raw,
// quotes included, in order) that is at least LeaveBytes long and lies in
// the file in the form the wire writes (spanOf); left says some string
// was left, raw itself is given when none was. A nil Leaver leaves none.
func (d *Leaver) Leave(l Line, data, raw []byte, strs func(each func(str []byte))) (out []byte, left bool) {
	if d == nil || data == nil {
		return raw, false
	}
	last := 0
	strs(func(str []byte) {
		if len(str) < max(LeaveBytes, 2) || str[0] != '"' || jsonskim.StringEnd(str, 0) != len(str) {
			return
		}
		sp, ok := spanOf(l, data, str[1:len(str)-1])
		at, in := jsonskim.Within(raw, str)
		if !ok || !in || at < last {
			return
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
