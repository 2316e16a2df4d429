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
	"unsafe"

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

// SpanOf is the span of body, the body of a JSON string that lies in
// data, the bytes of line l as read: ok false when body does not lie in
// data or is not in the form formatters.Stringify writes (jsonskim.Canonical),
// which is what a SpanFile copies to the wire.
func SpanOf(l Line, data, body []byte) (StringSpan, bool) {
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
