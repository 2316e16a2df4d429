package opencode

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// blobReader reads large part rows with SQLite's incremental blob I/O, a
// piece at a time into Go memory, on a read-only connection of its own.
//
// Why: a query that reads a large row has SQLite copy it whole into memory
// from modernc's allocator, which keeps the regions it used for reuse (up
// to 4 MiB per size class, and the largest one): reading a session's
// outputs left some 30 MB resident that no Go GC could return. Blob I/O
// reads the row's pages into a fixed buffer instead.
//
// A blob read is its own read transaction, not the caller's: a row that a
// writer changed in between reads as its newer version.
type blobReader struct {
	mu  sync.Mutex
	tls *libc.TLS
	db  uintptr
	// C memory (modernc's allocator, outside Go's heap: SQLite's code may
	// not be handed Go pointers): the out parameter of open and blob_open,
	// a buffer of blobChunk bytes, the names blob_open takes
	out, buf, main, table, column uintptr
}

// cmem is C memory at p, n bytes long.
func cmem(p uintptr, n int) []byte { return unsafe.Slice((*byte)(unsafe.Add(nil, p)), n) }

// cptr reads the pointer that C code wrote at p.
func cptr(p uintptr) uintptr { return *(*uintptr)(unsafe.Add(nil, p)) }

// blobChunk is how much one blob read copies (SQLite reads a row's pages
// into its page cache on the way).
const blobChunk = 64 << 10

// blobCachePragma bounds the blob connection's page cache. A blob read
// visits each overflow page of its row once, so a cache of SQLite's
// default 2 MB only held the pages of the last rows read, in C memory
// that Go's collector never sees (some 500 pages of 4 KiB held for
// good); the b-tree pages that find a row fit in what is left.
const blobCachePragma = "PRAGMA cache_size=-128"

// blobBytes is the size above which a row is read with blob I/O: SQLite's
// allocations up to it come from modernc's small slabs, which it reuses.
// Tests lower it.
var blobBytes int64 = 16 << 10

// openBlobReader opens path as the store's pool does.
func openBlobReader(path string, immutable bool) (_ *blobReader, err error) {
	tls := libc.NewTLS()
	b := &blobReader{tls: tls}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	for _, n := range []struct {
		p *uintptr
		s string
	}{{&b.main, "main"}, {&b.table, "part"}, {&b.column, "data"}} {
		if *n.p, err = libc.CString(n.s); err != nil {
			return nil, err
		}
	}
	if b.out, b.buf = libc.Xmalloc(tls, 8), libc.Xmalloc(tls, blobChunk); b.out == 0 || b.buf == 0 {
		return nil, fmt.Errorf("blob reader: out of memory")
	}
	// the pool's DSN: SQLite ignores the driver's _pragma parameters
	name, err := libc.CString(sqliteDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(tls, name)
	rc := sqlite3.Xsqlite3_open_v2(tls, name, b.out, sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_URI, 0)
	b.db = cptr(b.out)
	if rc != sqlite3.SQLITE_OK {
		return nil, b.err("open", rc)
	}
	sqlite3.Xsqlite3_busy_timeout(tls, b.db, busyTimeoutMS)
	pragma, err := libc.CString(blobCachePragma)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(tls, pragma)
	if rc := sqlite3.Xsqlite3_exec(tls, b.db, pragma, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return nil, b.err("cache_size", rc)
	}
	return b, nil
}

// err describes a failed call.
func (b *blobReader) err(what string, rc int32) error {
	msg := fmt.Sprintf("code %d", rc)
	if b.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(b.tls, b.db))
	}
	return fmt.Errorf("blob reader: %s: %s", what, msg)
}

// read appends the data of the part row with the given rowid to dst.
func (b *blobReader) read(rowid int64, dst []byte) ([]byte, error) {
	at := len(dst)
	err := b.chunks(rowid, 0, -1, func(n int) error {
		dst = slices.Grow(dst, n)
		return nil
	}, func(chunk []byte) error {
		dst = append(dst, chunk...)
		return nil
	})
	if err != nil {
		return dst[:at], err
	}
	return dst, nil
}

// chunks gives size the size of the part row with the given rowid, then
// fn its bytes from at to end (end < 0: its end) a chunk at a time; a
// chunk is valid during the call only. An error from size or fn stops it.
func (b *blobReader) chunks(rowid int64, at, end int, size func(n int) error, fn func(chunk []byte) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.db == 0 {
		return fmt.Errorf("blob reader: closed")
	}
	if rc := sqlite3.Xsqlite3_blob_open(b.tls, b.db, b.main, b.table, b.column, rowid, 0, b.out); rc != sqlite3.SQLITE_OK {
		return b.err(fmt.Sprintf("row %d", rowid), rc)
	}
	blob := cptr(b.out)
	defer sqlite3.Xsqlite3_blob_close(b.tls, blob)
	n := int(sqlite3.Xsqlite3_blob_bytes(b.tls, blob))
	if err := size(n); err != nil {
		return err
	}
	if end < 0 || end > n {
		end = n
	}
	for off := at; off < end; off += blobChunk {
		k := min(blobChunk, end-off)
		if rc := sqlite3.Xsqlite3_blob_read(b.tls, blob, b.buf, int32(k), int32(off)); rc != sqlite3.SQLITE_OK {
			return b.err(fmt.Sprintf("row %d", rowid), rc)
		}
		if err := fn(cmem(b.buf, k)); err != nil {
			return err
		}
	}
	return nil
}

func (b *blobReader) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.db != 0 {
		sqlite3.Xsqlite3_close_v2(b.tls, b.db)
		b.db = 0
	}
	for _, p := range []uintptr{b.out, b.buf, b.main, b.table, b.column} {
		if p != 0 {
			libc.Xfree(b.tls, p)
		}
	}
	b.out, b.buf, b.main, b.table, b.column = 0, 0, 0, 0, 0
	b.tls.Close()
}
