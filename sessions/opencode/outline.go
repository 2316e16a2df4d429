package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"database/sql/driver"

	"correx/model"
	"correx/sessions"

	sqlite "modernc.org/sqlite"
)

// The lazy path of the SQLite store (sessions.Lazy): a session read as an
// outline, in pages of messages, with the large tool outputs left in the
// store, and a call's full output read when it is shown.

// OutlineElideBytes is the stored size (bytes of a part's JSON) above
// which an outline leaves a tool part's output out.
const OutlineElideBytes = 1024

// wholePageBytes bounds the outputs read with blob I/O that a page of
// LoadOutlineWhole holds whole; past it they are elided, for LoadOutput.
const wholePageBytes = 2 << 20

// elideBytes is OutlineElideBytes; tests lower it.
var elideBytes = OutlineElideBytes

// elideSQL is correx_part_elide(data), or when that function cannot
// decide the same computed by SQLite's JSON functions (json_valid's parse
// is reused by the others); a malformed part comes whole after a W.
var elideSQL = `coalesce(correx_part_elide(data),
                   CASE WHEN json_valid(data)
                        THEN CASE WHEN json_array_length(data, '$.state.attachments') > 0 THEN 'A' ELSE 'E' END || json_remove(data, ` + elidedPaths + `)
                        ELSE 'W' || data END)`

// outlinePartsSQL reads a page's parts; a part whose JSON is valid and
// longer than ?1 bytes comes without elidedPaths (partscan.go), with its stored size,
// and with a first byte before its JSON: A when it had attachments, else E
// (W for one that comes whole). octet_length and typeof read a row's size
// and type without its overflow pages, so a small part costs one read; a
// large one is elided by elideSQL, except that one over ?3 bytes comes as
// NULL with its rowid, for the caller to read with blob I/O (blob.go).
// The next column is, for LoadOutlineWhole, the whole JSON of a part that
// would be elided, up to ?4 bytes and not read with blob I/O (its elided
// form then comes as NULL, read only when needed: elidedRow). The + keeps SQLite off
// the session_id index, which made every page visit every part of the
// session (50,000 calls: 65 pages of 89,000 rows each), onto the index of
// message_id. The last is the row's time_updated (or NULL: the column is
// missing), which with its size says whether a kept elided form is current.
var outlinePartsSQL = `
SELECT id, message_id, octet_length(data),
       CASE WHEN octet_length(data) > ?3 AND typeof(data) IN ('text', 'blob') THEN NULL
            WHEN octet_length(data) > ?1 AND octet_length(data) <= ?4 AND typeof(data) IN ('text', 'blob') THEN NULL
            WHEN octet_length(data) > ?1 THEN ` + elideSQL + `
            ELSE data END,
       octet_length(data) > ?1, rowid,
       CASE WHEN octet_length(data) > ?1 AND octet_length(data) <= min(?3, ?4) AND typeof(data) IN ('text', 'blob') THEN data END,
       %s
FROM part
WHERE +session_id = ?2 AND %s
ORDER BY message_id, id`

// elidedRow elides a large part row read with blob I/O into dst, as
// elideSQL does; buf is scratch space. It falls back to elideSQL in tx.
// A row that cutScan reads is never held.
func (s *sqliteStore) elidedRow(ctx context.Context, tx *sql.Tx, rowid int64, buf, dst []byte) (out, scratch []byte, err error) {
	if s.c().blobs != nil && !partScanOff {
		// a row past rowStreamMin is cut as it is read: an output of many
		// MB was read whole into buf to be elided
		if r, ok := cutScan(s.c().blobs, rowid, false); ok {
			return append(dst[:0], r.p.out...), buf, nil
		}
		if buf, err = s.c().blobs.read(rowid, buf[:0]); err == nil {
			if out, ok := partElide(unsafe.String(unsafe.SliceData(buf), len(buf)), dst[:0]); ok {
				return out, buf, nil
			}
		}
	}
	err = tx.QueryRowContext(ctx, `SELECT `+elideSQL+` FROM part WHERE rowid = ?`, rowid).Scan(&dst)
	return dst, buf, err
}

func (s *sqliteStore) LoadOutline(ctx context.Context, id string, from, limit int) (*sessions.OutlinePage, error) {
	return s.loadOutline(ctx, id, from, limit, partsElided)
}

// LoadOutlineWhole is LoadOutline with the outputs of the part rows that
// are not read with blob I/O in place, each decoded as LoadOutput decodes
// it (sessions.WholeOutliner).
func (s *sqliteStore) LoadOutlineWhole(ctx context.Context, id string, from, limit int) (*sessions.OutlinePage, error) {
	return s.loadOutline(ctx, id, from, limit, partsWhole)
}

// LoadMessages reads the messages of session id without their parts
// (sessions.MessageLister); a v2 session, never paged, gives none.
func (s *sqliteStore) LoadMessages(ctx context.Context, id string) (*model.Session, error) {
	p, err := s.loadOutline(ctx, id, 0, 0, partsNone)
	if err != nil {
		return nil, err
	}
	return p.Session, nil
}

// The parts an outline page is read with.
const (
	partsElided = iota // the large outputs left out (LoadOutline)
	partsWhole         // those read best one at a time left out (LoadOutlineWhole)
	partsNone          // none (LoadMessages)
)

// loadOutline reads an outline page with parts (partsElided...).
func (s *sqliteStore) loadOutline(ctx context.Context, id string, from, limit, parts int) (*sessions.OutlinePage, error) {
	return stable(s, func() (*sessions.OutlinePage, error) { return s.readOutline(ctx, id, from, limit, parts) })
}

func (s *sqliteStore) readOutline(ctx context.Context, id string, from, limit, parts int) (*sessions.OutlinePage, error) {
	tx, err := s.c().db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("load %s from %s: %w", id, s.path, err)
	}
	defer tx.Rollback()
	p, err := s.outline(ctx, tx, id, max(from, 0), limit, parts)
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("load %s from %s: %w", id, s.path, err)
	}
	return p, nil
}

func (s *sqliteStore) outline(ctx context.Context, tx *sql.Tx, id string, from, limit, parts int) (*sessions.OutlinePage, error) {
	whole := parts == partsWhole
	keep := int64(0) // the size up to which the query gives a part whole
	if whole {
		keep = blobBytes
	}
	sess, err := s.sessionRow(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM message WHERE session_id = ?`, id).Scan(&sess.Info.Messages); err != nil {
		return nil, err
	}
	page := &sessions.OutlinePage{Session: sess, From: from}
	var d decoder
	if sess.Info.Messages == 0 && s.v2Table {
		// a v2 session is never paged: it comes whole, but to
		// LoadMessages, which gives none of it (it is read whole after)
		if from == 0 && parts != partsNone {
			if err := s.loadV2(ctx, tx, sess, &d); err != nil {
				return nil, err
			}
			sessions.CountCalls(&sess.Info, sess.Messages)
			sess.Warnings = append(s.openNotes(), d.warnings...)
		}
		return page, nil
	}

	// a page that follows the last one read starts after its last message
	// (a key of the index on session_id, time_created, id), so reading
	// every page costs one pass; another start counts its way there
	q := `SELECT id, time_created, data FROM message WHERE session_id = ?`
	args := []any{id}
	after, keyed := s.pageCursor(id, from)
	if keyed {
		q += ` AND (time_created, id) > (?, ?)`
		args = append(args, after.created, after.id)
	}
	q += ` ORDER BY time_created, id`
	switch {
	case limit > 0 && (keyed || from == 0):
		q += ` LIMIT ?`
		args = append(args, limit+1)
	case limit > 0:
		q += ` LIMIT ? OFFSET ?`
		args = append(args, limit+1, from)
	case from > 0 && !keyed:
		q += ` LIMIT -1 OFFSET ?`
		args = append(args, from)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	index := map[string]int{} // message id -> index in sess.Messages
	var ids []any
	var last pageKey // of the last message read
	for rows.Next() {
		if limit > 0 && len(ids) == limit {
			page.More = true
			break
		}
		var (
			mid     string
			created sql.NullInt64
			data    sql.RawBytes
		)
		if err := rows.Scan(&mid, &created, &data); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, mid)
		last = pageKey{from + len(ids), created.Int64, mid, created.Valid}
		m, ok := d.message(mid, data, created.Int64, "table message, row "+mid)
		if !ok {
			continue
		}
		index[mid] = len(sess.Messages)
		sess.Messages = append(sess.Messages, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if page.More {
		s.setPageCursor(id, last)
	}

	if parts == partsNone {
		sess.Warnings = append(sess.Warnings, d.warnings...)
		return page, nil
	}
	orphans := map[string]int{}
	if len(ids) > 0 {
		scratch := getScratch()
		buf, elided := *scratch, []byte(nil) // reused for the rows read with blob I/O
		defer func() { putScratch(scratch, buf) }()
		wholeLeft := wholePageBytes
		// add puts a row of outlinePartsSQL into its message
		add := func(rows *sql.Rows) (rowid int64, err error) {
			var (
				pid, mid string
				size     int
				data     sql.RawBytes
				big      bool
				wholeRow sql.RawBytes
				updated  sql.NullInt64
			)
			if err := rows.Scan(&pid, &mid, &size, &data, &big, &rowid, &wholeRow, &updated); err != nil {
				return 0, err
			}
			var full model.Part // LoadOutlineWhole's
			fullOK := false
			if mi, ok := index[mid]; ok && wholeRow != nil {
				var clean bool
				if full, fullOK, clean = wholePart(pid, wholeRow); clean {
					sess.Messages[mi].Parts = append(sess.Messages[mi].Parts, full)
					return rowid, nil
				}
			}
			if mi, ok := index[mid]; ok && big && data == nil && wholeRow == nil && whole && size <= wholeLeft && s.c().blobs != nil && !partScanOff {
				// LoadOutlineWhole: a row read with blob I/O is read once,
				// whole, not elided now and read again by LoadOutput
				if row, rerr := s.c().blobs.read(rowid, buf[:0]); rerr == nil {
					buf = row
					var clean bool
					if full, fullOK, clean = wholePart(pid, row); clean {
						wholeLeft -= size
						sess.Messages[mi].Parts = append(sess.Messages[mi].Parts, full)
						return rowid, nil
					}
				}
			}
			if big && data == nil {
				key := elidedKey{rowid, size, updated.Int64}
				if data = s.elided.get(key, updated.Valid); data == nil {
					if elided, buf, err = s.elidedRow(ctx, tx, rowid, buf, elided); err != nil {
						return rowid, err
					}
					data = elided
					s.elided.put(key, updated.Valid, elided)
				}
			}
			elided, files := false, false
			if big && len(data) > 0 {
				elided, files, data = data[0] != 'W', data[0] == 'A', data[1:]
			}
			mi, ok := index[mid]
			if !ok {
				orphans[mid]++
				return rowid, nil
			}
			p, ok := d.part(pid, data, "table part, row "+pid)
			if !ok {
				return rowid, nil
			}
			if tc := p.Tool; tc != nil {
				if elided {
					tc.Elided, tc.ElidedFiles, tc.OutputBytes = true, files, size-len(data)
					if fullOK {
						p.Tool = full.Tool
					}
				} else {
					tc.OutputBytes = len(tc.Output)
				}
			}
			sess.Messages[mi].Parts = append(sess.Messages[mi].Parts, p)
			return rowid, nil
		}
		mids := make([]string, len(ids))
		for i, v := range ids {
			mids[i] = v.(string)
		}
		// the page's message ids as one JSON array: SQLite allows 32,766
		// variables, and a page may hold more messages
		idList, err := json.Marshal(mids)
		if err != nil {
			return nil, err
		}
		updatedCol := "NULL"
		if s.partUpdated {
			updatedCol = "CASE WHEN typeof(time_updated) = 'integer' THEN time_updated END"
		}
		q := fmt.Sprintf(outlinePartsSQL, updatedCol, "message_id IN (SELECT value FROM json_each(?5))")
		w, _, err := readParts(ctx, tx, q, []any{elideBytes, id, s.blobMin(), keep, string(idList)},
			fmt.Sprintf(outlinePartsSQL, updatedCol, "rowid = ?5"), []any{elideBytes, id, s.blobMin(), keep}, mids, add)
		d.warnings = append(d.warnings, w...)
		if err != nil {
			return nil, err
		}
	}
	if !page.More {
		// parts whose message is not in the table at all, as Load reports them
		err := countOrphans(ctx, tx, id, orphans)
		if isDamage(err) {
			err = orphansFromIndexes(ctx, tx, id, d.warnf)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, mid := range sortedKeys(orphans) {
		d.warnf("table part: %d part(s) of message %s skipped: the message was not loaded", orphans[mid], mid)
	}
	if from == 0 {
		sess.Warnings = append(sess.Warnings, s.openNotes()...)
	}
	sess.Warnings = append(sess.Warnings, d.warnings...)
	return page, nil
}

// pageKey is where an outline page ended: message index next follows the
// message of key (created, id); valid is false when its time_created is
// NULL, which a key cannot compare.
type pageKey struct {
	next    int
	created int64
	id      string
	valid   bool
}

// maxCursors bounds the page ends kept per session (a page of 256
// messages each: sessions of 4M messages).
const maxCursors = 1 << 14

// pageCursor is the key after which message index from of session id
// starts, when a page read before ended there: every page of a session
// read once (a viewer reads them in order, then again any it dropped)
// starts from its key.
func (s *sqliteStore) pageCursor(id string, from int) (pageKey, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.cursors[id][from]
	return k, ok && from > 0 && k.valid
}

// setPageCursor records where a page of session id ended (for the 64
// sessions read last).
func (s *sqliteStore) setPageCursor(id string, k pageKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cursors == nil || len(s.cursors) >= 64 && s.cursors[id] == nil {
		s.cursors = map[string]map[int]pageKey{}
	}
	ends := s.cursors[id]
	if ends == nil || len(ends) >= maxCursors {
		ends = map[int]pageKey{}
		s.cursors[id] = ends
	}
	ends[k.next] = k
}

// countOrphans adds to orphans, per message id, the part rows of session
// id whose message is not in the message table.
func countOrphans(ctx context.Context, tx *sql.Tx, id string, orphans map[string]int) error {
	rows, err := tx.QueryContext(ctx, `
SELECT message_id, count(*) FROM part
WHERE session_id = ?1 AND message_id NOT IN (SELECT id FROM message WHERE session_id = ?1)
GROUP BY message_id`, id)
	if err != nil {
		return err
	}
	return eachRow(rows, func(rows *sql.Rows) error {
		var mid string
		var n int
		if err := rows.Scan(&mid, &n); err != nil {
			return err
		}
		orphans[mid] += n
		return nil
	})
}

// eachRow calls fn for every row of rows, then closes them.
func eachRow(rows *sql.Rows, fn func(*sql.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ReadsSideBySide implements sessions.SideBySide: the queries of pages and
// outputs run on the pool's connections side by side.
func (s *sqliteStore) ReadsSideBySide() {}

func (s *sqliteStore) LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error) {
	slot := &partSlot{id: partID}
	if err := s.decodePart(ctx, sessionID, slot); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%w: part %s of session %s in %s", sessions.ErrNotFound, partID, sessionID, s.path)
		}
		return nil, fmt.Errorf("load part %s from %s: %w", partID, s.path, err)
	}
	p := slot.p
	if !slot.ok || p.Tool == nil {
		return nil, fmt.Errorf("load part %s from %s: not a readable tool part: %s", partID, s.path, strings.Join(slot.d.warnings, "; "))
	}
	p.Tool.OutputBytes = len(p.Tool.Output)
	return p.Tool, nil
}

// partRowSQL reads part ?2 of session ?1 in one query: its rowid, whether
// it is read with blob I/O (over ?3 bytes, TEXT or BLOB), and for a row
// that is not, correx_part_decode(data, ?4) (NULL: neither TEXT nor BLOB).
const partRowSQL = `
SELECT rowid, big, CASE WHEN big THEN NULL ELSE correx_part_decode(data, ?4) END
FROM (SELECT rowid, data, coalesce(octet_length(data), 0) > ?3 AND typeof(data) IN ('text', 'blob') AS big
      FROM part WHERE id = ?2 AND session_id = ?1)`

// readPart decodes part row slot.id of a session into slot, unless it is
// large (big: read it with blob I/O, by rowid); decoded tells that
// correx_part_decode decoded it (false for a value neither TEXT nor BLOB).
func (s *sqliteStore) readPart(ctx context.Context, sessionID string, slot *partSlot) (rowid int64, big, decoded bool, err error) {
	key := partSlotSeq.Add(1)
	partSlots.Store(key, slot)
	defer partSlots.Delete(key)
	var one sql.NullInt64
	err = s.c().queryRow(ctx, partRowSQL, sessionID, slot.id, s.blobMin(), key).Scan(&rowid, &big, &one)
	return rowid, big, one.Valid, err
}

// decodePart decodes a part row into slot: a large one read with blob I/O,
// else by correx_part_decode inside the query, from SQLite's own copy of
// it (its JSON is not copied into Go before being decoded, only what the
// decoder keeps is).
func (s *sqliteStore) decodePart(ctx context.Context, sessionID string, slot *partSlot) error {
	rowid, big, decoded, err := s.readPart(ctx, sessionID, slot)
	if err != nil || decoded {
		return err
	}
	if big && slot.decodeRow(s.c().blobs, rowid) {
		return nil
	}
	if big {
		buf := getScratch()
		data, err := s.c().blobs.read(rowid, (*buf)[:0])
		if err == nil {
			slot.decodeBig(data) // keeps none of data
		}
		putScratch(buf, data)
		if err == nil {
			return nil
		}
		// gone or changed since: the query below says which
		key := partSlotSeq.Add(1)
		partSlots.Store(key, slot)
		defer partSlots.Delete(key)
		var one sql.NullInt64
		if err := s.c().db.QueryRowContext(ctx, `SELECT correx_part_decode(data, ?) FROM part WHERE id = ? AND session_id = ?`, key, slot.id, sessionID).Scan(&one); err != nil || one.Valid {
			return err
		}
	}
	// not TEXT nor BLOB: read it as database/sql converts it
	var data []byte
	if err := s.c().db.QueryRowContext(ctx, `SELECT data FROM part WHERE id = ? AND session_id = ?`, slot.id, sessionID).Scan(&data); err != nil {
		return err
	}
	slot.decode(data)
	return nil
}

// wholePart decodes part row data as LoadOutput does: ok when it is a
// readable tool part, clean when it also decoded without a warning (the
// outline's elided form of it then decodes as cleanly, to the same part
// but for its tool call).
func wholePart(id string, data []byte) (p model.Part, ok, clean bool) {
	slot := partSlot{id: id}
	if slot.decodeBig(data); !slot.ok || slot.p.Tool == nil {
		return model.Part{}, false, false
	}
	slot.p.Tool.OutputBytes = len(slot.p.Tool.Output)
	return slot.p, true, len(slot.d.warnings) == 0
}

// partSlot receives what correx_part_decode decoded for one LoadOutput.
type partSlot struct {
	id string
	d  decoder
	p  model.Part
	ok bool
	// stream has correx_part_decode decode the row for loadStreamed
	// (decodeStreamed), textOnly as scanElided takes it; row is then the
	// row with where its output and error lie, unless it was decoded whole
	stream, textOnly bool
	row              *scannedRow
}

func (t *partSlot) decode(data []byte) {
	t.p, t.ok = t.d.part(t.id, data, "table part, row "+t.id)
}

// elidedCache keeps the elided forms of the large rows read with blob I/O,
// each the row without its output: a page read again (the inspector holds
// a few, and a pane's conversation reads them all) then reads none of its
// large rows again, where eliding one means reading it whole. A form is
// current while its row keeps its rowid, size and time_updated (opencode
// rewrites a part in place, in an upsert that keeps the rowid). It holds at
// most elidedCacheBytes, and starts over when full.
type elidedCache struct {
	mu    sync.Mutex
	m     map[elidedKey][]byte
	bytes int
}

type elidedKey struct {
	rowid         int64
	size          int
	timeUpdatedMS int64
}

const elidedCacheBytes = 1 << 20

// get is the kept form of key, nil when there is none (or !ok: the row's
// time_updated is unknown).
func (c *elidedCache) get(key elidedKey, ok bool) []byte {
	if !ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *elidedCache) put(key elidedKey, ok bool, form []byte) {
	if !ok || len(form) > elidedCacheBytes/64 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(form) > elidedCacheBytes {
		c.m, c.bytes = map[elidedKey][]byte{}, 0
	}
	c.m[key] = slices.Clone(form)
	c.bytes += len(form)
}

// blobScratch holds a buffer large part rows are read into, reused: a
// fresh one per row is memory the kernel zeroes and the GC sweeps, for
// every output a command walks. It holds one, weakly: rows are read one
// at a time, so one buffer serves a walk between two collections, and a
// collection lets it go. (A sync.Pool kept one per P over two
// collections: the inspector held two buffers of the largest outputs it
// had shown, some 10 MB of its peak.)
var blobScratch struct {
	sync.Mutex
	buf weak.Pointer[[]byte]
}

// blobScratchMax is the largest buffer given back to blobScratch: the
// inspector reads the row of the output on screen and, for a request,
// each of its rows in turn, and keeping a buffer of the largest of them
// was 3 to 4 MB of its peak (opencode, 5,000 calls, outputs up to
// 5.7 MB: 65-66 MB with 4 MiB, 61-62 MB with 1 MiB). Commands pay for it
// in the rows above it, allocated afresh: `correx calls` on that session
// 1.05 -> 1.3 s.
const blobScratchMax = 1 << 20

// getScratch takes blobScratch's buffer, or a new one when another read
// has it or a collection took it.
func getScratch() *[]byte {
	blobScratch.Lock()
	defer blobScratch.Unlock()
	if buf := blobScratch.buf.Value(); buf != nil {
		blobScratch.buf = weak.Pointer[[]byte]{}
		return buf
	}
	return new([]byte)
}

// putScratch gives buf back to blobScratch, grown to data.
func putScratch(buf *[]byte, data []byte) {
	if cap(data) <= blobScratchMax {
		*buf = data[:0]
		blobScratch.Lock()
		blobScratch.buf = weak.Make(buf)
		blobScratch.Unlock()
	}
}

var (
	partSlots   sync.Map // int64 -> *partSlot
	partSlotSeq atomic.Int64
)

func init() {
	// correx_part_decode(data, slot) decodes a part row into partSlots[slot]
	// and gives 1; NULL for a value that is neither TEXT nor BLOB. data is
	// a view into SQLite's memory: the decoder copies what it keeps
	// (encoding/json's strings and RawMessages are copies).
	sqlite.MustRegisterFunction("correx_part_decode", &sqlite.FunctionImpl{
		NArgs: 2, VolatileArgs: true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			key, _ := args[1].(int64)
			v, ok := partSlots.Load(key)
			if !ok {
				return nil, fmt.Errorf("correx_part_decode: no slot %d", key)
			}
			slot := v.(*partSlot)
			decode := slot.decode
			if slot.stream {
				decode = slot.decodeStreamed
			}
			switch x := args[0].(type) {
			case string:
				decode(unsafe.Slice(unsafe.StringData(x), len(x)))
			case []byte:
				decode(x)
			default:
				return nil, nil
			}
			return int64(1), nil
		},
	})
}
