package opencode

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"correx/model"
	"correx/sessions"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteStore reads opencode.db (opencode ≥ 1.2).
//
// The database is opened with mode=ro and PRAGMA query_only, so no statement
// can write. opencode keeps it in WAL mode: a reader never blocks its writer
// and sees a consistent snapshot per transaction. Every List is one
// statement and every Load one short read transaction; between them the pool
// holds at most one idle connection (no transaction open), closed after
// connIdle. A WAL database without its -wal and -shm files is opened
// immutable (walFilesMissing). Queries that meet a damaged page are done
// again a row at a time (damage.go).
type sqliteStore struct {
	path    string
	opts    Options // whose database it is (Agent and DataDir set)
	v2Table bool    // the session_message table (v2 loop) exists
	pathCol bool    // session.path exists (older stores lack it)
	// partUpdated: part.time_updated exists, so the elided form of a
	// large row can be kept (elided) and known to be current
	partUpdated bool
	elided      elidedCache
	conn        atomic.Pointer[sqlConn]

	mu           sync.Mutex
	openWarnings []string                   // from the open: an immutable fallback
	waitingWAL   bool                       // opened immutable for want of -wal/-shm
	walNote      string                     // while waitingWAL: what that open does not see, if anything
	listWarnings []string                   // from the last List: rows it could not read
	retired      []*sqlConn                 // pools replaced by a reopen, closed by Close
	cursors      map[string]map[int]pageKey // where the outline pages of a session ended, by next index
}

// sqlConn is one open of the database: the pool and the blob reader.
type sqlConn struct {
	db        *sql.DB
	blobs     *blobReader // nil when it could not open: queries read every row
	immutable bool        // opened with immutable=1: its reads take no locks

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // queryRow's, prepared once
}

// queryRow runs q, a query run once per call read (LoadOutput), prepared
// the first time: parsing it again each time cost as much as running it.
func (c *sqlConn) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	c.mu.Lock()
	st := c.stmts[q]
	if st == nil {
		if p, err := c.db.PrepareContext(ctx, q); err == nil {
			if c.stmts == nil {
				c.stmts = map[string]*sql.Stmt{}
			}
			st, c.stmts[q] = p, p
		}
	}
	c.mu.Unlock()
	if st == nil {
		return c.db.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (s *sqliteStore) c() *sqlConn { return s.conn.Load() }

// blobMin is the size above which a part row is read with blob I/O.
func (s *sqliteStore) blobMin() int64 {
	if s.c().blobs == nil {
		return math.MaxInt64
	}
	return blobBytes
}

const (
	busyTimeoutMS = 5000
	connIdle      = 30 * time.Second
)

// sqliteDSN builds the read-only DSN for path.
func sqliteDSN(path string, immutable bool) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x -> file:///C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	q := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)&_pragma=cache_size(-128)", busyTimeoutMS)
	if immutable {
		q += "&immutable=1"
	}
	return u.String() + "?" + q
}

func openSQLite(path string, o Options) (*sqliteStore, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	o.Agent = cmp.Or(o.Agent, model.AgentOpencode)
	o.DataDir = cmp.Or(o.DataDir, filepath.Dir(abs))
	s := &sqliteStore{path: abs, opts: o}
	immutable, note := walFilesMissing(abs)
	s.waitingWAL, s.walNote = immutable, note
	db, tables, err := connect(abs, immutable)
	if err != nil && !immutable && canRetryImmutable(err) {
		first := err
		if db, tables, err = connect(abs, true); err == nil {
			immutable = true
			s.openWarnings = append(s.openWarnings, fmt.Sprintf(
				"%s: read-only open failed (%v); opened with immutable=1: what is still in its -wal file and what opencode writes while correx runs are not seen, and a database being written may read inconsistently", abs, first))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", abs, err)
	}
	for _, t := range []string{"session", "message", "part"} {
		if !tables[t] {
			db.Close()
			return nil, fmt.Errorf("%s is not an opencode database (no %s table)", abs, t)
		}
	}
	s.v2Table = tables["session_message"]
	_ = db.QueryRow(`SELECT count(*) FROM pragma_table_info('session') WHERE name = 'path'`).Scan(&s.pathCol)
	_ = db.QueryRow(`SELECT count(*) FROM pragma_table_info('part') WHERE name = 'time_updated'`).Scan(&s.partUpdated)
	blobs, _ := openBlobReader(abs, immutable)
	s.conn.Store(&sqlConn{db: db, blobs: blobs, immutable: immutable})
	return s, nil
}

// reopenIfWAL reopens a store opened immutable for want of its -wal and
// -shm files once both exist (opencode has started): from then on opencode
// may checkpoint into the database, which an immutable reader would read
// inconsistently. The entry points call it first (stable).
func (s *sqliteStore) reopenIfWAL() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.waitingWAL {
		return
	}
	if _, err := os.Lstat(s.path + "-wal"); err != nil {
		return
	}
	if _, err := os.Lstat(s.path + "-shm"); err != nil {
		return
	}
	db, _, err := connect(s.path, false)
	if err != nil {
		return // stays immutable; tried again next time
	}
	blobs, _ := openBlobReader(s.path, false)
	s.retired = append(s.retired, s.conn.Swap(&sqlConn{db: db, blobs: blobs}))
	s.waitingWAL, s.walNote = false, ""
}

// stable runs read after reopenIfWAL, and again (twice at most) when the
// store is open immutable and its files changed meanwhile (fileState): an
// immutable open reads pages without locks, so opencode starting and
// checkpointing into the database during a read could show a session half
// written (its messages without their parts). By the next try both -wal
// and -shm exist, and the store reopens with locks.
func stable[T any](s *sqliteStore, read func() (T, error)) (T, error) {
	for try := 1; ; try++ {
		s.reopenIfWAL()
		watch := s.c().immutable
		var before fileState
		if watch {
			before = s.fileState()
		}
		v, err := read()
		if !watch || try == 3 || s.fileState() == before {
			return v, err
		}
	}
}

// fileState is what an immutable open relies on not changing: the
// database's size and modification time (a checkpoint writes into it),
// and whether its -wal and -shm files exist (opencode running).
type fileState struct {
	size     int64
	mod      time.Time
	wal, shm bool
}

func (s *sqliteStore) fileState() fileState {
	var f fileState
	if fi, err := os.Stat(s.path); err == nil {
		f.size, f.mod = fi.Size(), fi.ModTime()
	}
	_, err := os.Lstat(s.path + "-wal")
	f.wal = err == nil
	_, err = os.Lstat(s.path + "-shm")
	f.shm = err == nil
	return f
}

// walFilesMissing tells whether path is a WAL-mode database whose -wal or
// -shm file is missing (as opencode leaves them when it is not running):
// opening it even read-only would make SQLite create both in the agent's
// folder and leave them there, so it is opened with immutable=1 instead.
// note says what that hides: nothing when there is no -wal content (opencode
// checkpointed and removed it on exit, so the file is complete, and the
// store reopens normally once opencode starts again), the -wal's commits
// when only the -shm is missing.
func walFilesMissing(path string) (immutable bool, note string) {
	head, err := sessions.ReadHead(path, 20)
	// bytes 18 and 19 of the header: the write and read versions, 2 for WAL
	if err != nil || len(head) < 20 || (head[18] != 2 && head[19] != 2) {
		return false, ""
	}
	wal, walErr := os.Lstat(path + "-wal")
	_, shmErr := os.Lstat(path + "-shm")
	switch {
	case walErr == nil && shmErr == nil:
		return false, ""
	case walErr == nil && wal.Size() > 0:
		return true, fmt.Sprintf("%s: WAL database without its -shm file: opened with immutable=1 so that SQLite creates nothing beside it; the %d bytes of commits in its -wal file are not read (sessions show as of the last checkpoint), nor what opencode writes while correx runs", path, wal.Size())
	}
	return true, ""
}

// connect opens the pool and reads the table names, which proves the
// database can be read.
func connect(path string, immutable bool) (*sql.DB, map[string]bool, error) {
	db, err := sql.Open("sqlite", sqliteDSN(path, immutable))
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(connIdle)
	tables, err := tableNames(db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, tables, nil
}

func tableNames(db *sql.DB) (map[string]bool, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		tables[name] = true
	}
	return tables, rows.Err()
}

// canRetryImmutable tells whether a failed read-only open may work with
// immutable=1: the file is there but its -wal/-shm cannot be opened or
// created (a read-only directory or mount).
func canRetryImmutable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM:
		return true
	}
	return false
}

func (s *sqliteStore) Path() string { return s.path }

// Warnings are the open's (an immutable open says so while it lasts) and
// those of the last List.
func (s *sqliteStore) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(s.sessionWarnings(), s.listWarnings...)
}

// sessionWarnings are the warnings of the open, which every loaded
// session carries; s.mu is held.
func (s *sqliteStore) sessionWarnings() []string {
	w := append([]string(nil), s.openWarnings...)
	if s.walNote != "" {
		w = append(w, s.walNote)
	}
	return w
}

// openNotes is sessionWarnings, for a loaded session.
func (s *sqliteStore) openNotes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionWarnings()
}

func (s *sqliteStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, c := range append(s.retired, s.c()) {
		if c.blobs != nil {
			c.blobs.close()
		}
		errs = append(errs, c.db.Close())
	}
	return errors.Join(errs...)
}

// listSQL lists sessions with their counts, computed in SQL: messages, tool
// parts, tool parts whose state.metadata.truncated is true, tool parts with
// state.status "error", and the ids of part rows with malformed JSON (not
// counted: the CASE keeps json_extract from failing the statement on
// them). A part row over scanBytes is read by correx_part_flags
// (partscan.go), which steps over its big strings instead of parsing it;
// when that function cannot decide, the JSON functions do. A row over ?2
// bytes is left to bigFlags. %[1]s and %[3]s restrict it to session ?3, or
// are empty; %[2]s is the v2 join, or a stand-in without it.
const listSQL = `
SELECT s.id, s.parent_id, s.title, s.directory, s.version, s.time_created, s.time_updated,
       coalesce(m.n, 0), coalesce(p.tools, 0), coalesce(p.truncated, 0), coalesce(p.errors, 0),
       coalesce(p.bad, '[]'), coalesce(v2.n, 0)
FROM session s
LEFT JOIN (SELECT session_id, count(*) AS n FROM message %[1]s GROUP BY session_id) m
       ON m.session_id = s.id
LEFT JOIN (
    SELECT session_id, sum(f & 1) AS tools, sum((f >> 1) & 1) AS truncated, sum((f >> 2) & 1) AS errors,
           json_group_array(id) FILTER (WHERE f & 8) AS bad
    FROM (
        SELECT session_id, id, ` + partFlagsSQL + ` AS f
        FROM part %[1]s
        LIMIT -1 -- not flattened: f is computed once a row
    )
    WHERE f & 9
    GROUP BY session_id
) p ON p.session_id = s.id
%[2]s
%[3]s
ORDER BY s.time_updated DESC, s.id`

// partFlagsSQL is a part row's flags as listSQL computes them; 16 for a
// row over ?2 bytes, left to bigFlags.
const partFlagsSQL = `CASE WHEN octet_length(data) > ?2 AND typeof(data) IN ('text', 'blob') THEN 16
                    WHEN octet_length(data) > ?1 THEN coalesce(correx_part_flags(data), ` + partFlagsJSON + `)
                    ELSE ` + partFlagsJSON + ` END`

// scanBytes is the size of a part row above which List reads it with
// correx_part_flags; tests lower it.
var scanBytes = 1024

// partFlagBad marks a part row whose JSON is malformed (partFlagsJSON).
const partFlagBad = 8

// partFlagsJSON is correx_part_flags computed with SQLite's JSON functions;
// partFlagBad for malformed JSON.
const partFlagsJSON = `CASE WHEN json_valid(data) THEN CASE WHEN json_extract(data, '$.type') = 'tool'
    THEN 1 | (coalesce(json_type(data, '$.state.metadata.truncated') = 'true', 0) << 1)
           | (coalesce(json_extract(data, '$.state.status') = 'error', 0) << 2)
    ELSE 0 END ELSE 8 END`

const (
	v2Join   = `LEFT JOIN (SELECT session_id, count(*) AS n FROM session_message %s GROUP BY session_id) v2 ON v2.session_id = s.id`
	v2NoJoin = `LEFT JOIN (SELECT NULL AS session_id, 0 AS n) v2 ON 0`
)

// partCounts are the counts of a session's part rows.
type partCounts struct {
	tools, truncated, errors int
	bad                      []string // ids of rows with malformed JSON
}

func (c *partCounts) add(id string, flags int) {
	c.tools += flags & partFlagTool
	c.truncated += flags >> 1 & 1
	c.errors += flags >> 2 & 1
	if flags&partFlagBad != 0 {
		c.bad = append(c.bad, id)
	}
}

// List lists the store with whole-store queries; when those meet a damaged
// page, it lists the sessions one at a time (listDamaged). The rows it
// could not count are named in sessions.Warnings.
func (s *sqliteStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	return stable(s, func() ([]model.SessionInfo, error) { return s.listAll(ctx) })
}

func (s *sqliteStore) listAll(ctx context.Context) ([]model.SessionInfo, error) {
	var v2Counts map[string][3]int
	var err error
	if s.v2Table {
		if v2Counts, err = s.v2Counts(ctx); err != nil {
			return nil, fmt.Errorf("list %s: %w", s.path, err)
		}
	}
	infos, warnings, err := s.list(ctx, "", v2Counts)
	if isDamage(err) {
		infos, warnings, err = s.listDamaged(ctx, v2Counts, err)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.path, err)
	}
	s.mu.Lock()
	s.listWarnings = warnings
	s.mu.Unlock()
	return infos, nil
}

// list runs listSQL over the store, or over session id alone.
func (s *sqliteStore) list(ctx context.Context, id string, v2Counts map[string][3]int) ([]model.SessionInfo, []string, error) {
	where, sessionWhere, v2 := "", "", v2NoJoin
	args := []any{scanBytes, s.blobMin()}
	if id != "" {
		where, sessionWhere = "WHERE session_id = ?3", "WHERE s.id = ?3"
		args = append(args, id)
	}
	if s.v2Table {
		v2 = fmt.Sprintf(v2Join, where)
	}
	big, err := s.bigFlags(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.c().db.QueryContext(ctx, fmt.Sprintf(listSQL, where, v2, sessionWhere), args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var infos []model.SessionInfo
	var warnings []string
	for rows.Next() {
		var (
			r     sessionRow
			n, v2 int
			c     partCounts
			bad   string
		)
		if err := rows.Scan(&r.id, &r.parent, &r.title, &r.dir, &r.version, &r.created, &r.updated,
			&n, &c.tools, &c.truncated, &c.errors, &bad, &v2); err != nil {
			return nil, nil, err
		}
		json.Unmarshal([]byte(bad), &c.bad)
		b := big[r.id]
		c.tools, c.truncated, c.errors, c.bad = c.tools+b.tools, c.truncated+b.truncated, c.errors+b.errors, append(c.bad, b.bad...)
		info, w := s.listed(r, n, v2, c, v2Counts)
		infos = append(infos, info)
		warnings = append(warnings, w...)
	}
	return infos, warnings, rows.Err()
}

// listed makes a session's info of its row and counts; the warnings name
// the part rows not counted.
func (s *sqliteStore) listed(r sessionRow, messages, v2 int, c partCounts, v2Counts map[string][3]int) (model.SessionInfo, []string) {
	info := r.info(s.path, s.opts)
	info.Messages, info.ToolCalls, info.Truncated, info.Errors = messages, c.tools, c.truncated, c.errors
	if messages == 0 && v2 > 0 {
		info.Pipeline = model.PipelineV2
		info.Messages = v2
		vc := v2Counts[info.ID]
		info.ToolCalls, info.Truncated, info.Errors = vc[0], vc[1], vc[2]
	}
	var warnings []string
	sort.Strings(c.bad)
	for _, id := range c.bad {
		warnings = append(warnings, fmt.Sprintf("table part, row %s (session %s): bad JSON: not counted", id, info.ID))
	}
	return info, warnings
}

// listDamaged lists the sessions one at a time, after a query over the
// whole store (failed with first) met a damaged page: their ids from the
// session table's primary-key index, each listed by listSQL restricted to
// it, or when that fails too, counted a row at a time (listRowByRow).
func (s *sqliteStore) listDamaged(ctx context.Context, v2Counts map[string][3]int, first error) ([]model.SessionInfo, []string, error) {
	ids, err := queryStrings(ctx, s.c().db, `SELECT id FROM session ORDER BY id`)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; listing the sessions one at a time: %w", first, err)
	}
	var infos []model.SessionInfo
	var warnings []string
	for _, id := range ids {
		got, w, err := s.list(ctx, id, v2Counts)
		if isDamage(err) {
			var info *model.SessionInfo
			info, w, err = s.listRowByRow(ctx, id, v2Counts)
			got = nil
			if info != nil {
				got = []model.SessionInfo{*info}
			}
		}
		if err != nil {
			return nil, nil, err
		}
		infos = append(infos, got...)
		warnings = append(warnings, w...)
	}
	sessions.SortInfos(infos)
	return infos, warnings, nil
}

// listRowByRow lists session id counting its part rows one at a time
// (partsOneByOne); nil when its own row cannot be read. The counts leave
// out the rows that could not be read, and Damaged says so.
func (s *sqliteStore) listRowByRow(ctx context.Context, id string, v2Counts map[string][3]int) (*model.SessionInfo, []string, error) {
	db := s.c().db
	var r sessionRow
	err := db.QueryRowContext(ctx, `SELECT id, parent_id, title, directory, version, time_created, time_updated FROM session WHERE id = ?`, id).
		Scan(&r.id, &r.parent, &r.title, &r.dir, &r.version, &r.created, &r.updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil // deleted since
	}
	if isDamage(err) {
		return nil, []string{fmt.Sprintf("table session, row %s: unreadable (%v): not listed", id, err)}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var messages, v2 int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM message WHERE session_id = ?`, id).Scan(&messages); err != nil {
		return nil, nil, err
	}
	if s.v2Table && messages == 0 {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM session_message WHERE session_id = ?`, id).Scan(&v2); err != nil {
			return nil, nil, err
		}
	}
	mids, err := queryStrings(ctx, db, `SELECT id FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
	if err != nil {
		return nil, nil, err
	}
	u := unreadable{table: "part"}
	var c partCounts
	err = partsOneByOne(ctx, db, mids, nil, &u, func(rowid int64) error {
		var pid string
		var f int
		err := db.QueryRowContext(ctx, `SELECT id, `+partFlagsSQL+` FROM part WHERE rowid = ?3 AND session_id = ?4`, scanBytes, s.blobMin(), rowid, id).Scan(&pid, &f)
		if err == nil && f == 16 {
			f, _, err = s.rowFlags(ctx, rowid, nil)
		}
		if err == nil {
			c.add(pid, f)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	info, w := s.listed(r, messages, v2, c, v2Counts)
	info.Damaged = u.summary()
	return &info, append(u.warnings, w...), nil
}

func queryStrings(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// bigFlags counts per session what listSQL leaves out: the part rows over
// blobMin (of session id alone, unless ""), read with blob I/O and scanned
// in Go (or, when the scanner cannot decide, by the JSON functions).
func (s *sqliteStore) bigFlags(ctx context.Context, id string) (map[string]partCounts, error) {
	counts := map[string]partCounts{}
	if s.c().blobs == nil {
		return counts, nil
	}
	type row struct {
		session, id string
		rowid       int64
	}
	var big []row
	q := `SELECT session_id, id, rowid FROM part WHERE octet_length(data) > ?1 AND typeof(data) IN ('text', 'blob')`
	args := []any{s.blobMin()}
	if id != "" {
		q += ` AND session_id = ?2`
		args = append(args, id)
	}
	rows, err := s.c().db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.session, &r.id, &r.rowid); err != nil {
			rows.Close()
			return nil, err
		}
		big = append(big, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var buf []byte
	for _, r := range big {
		var f int
		f, buf, err = s.rowFlags(ctx, r.rowid, buf)
		if errors.Is(err, sql.ErrNoRows) {
			continue // deleted since
		}
		if err != nil {
			return nil, err
		}
		c := counts[r.session]
		c.add(r.id, f)
		counts[r.session] = c
	}
	return counts, nil
}

// rowFlags gives the flags of a large part row, read with blob I/O a
// chunk at a time with its strings cut (stringCutter) into buf and
// scanned in Go, or when the scanner cannot decide, by the JSON functions.
func (s *sqliteStore) rowFlags(ctx context.Context, rowid int64, buf []byte) (int, []byte, error) {
	if blobs := s.c().blobs; blobs != nil && !partScanOff {
		// fed a chunk at a time, its strings cut: the row is never held
		c := stringCutter{keep: cutKeep, out: buf[:0]}
		err := c.read(blobs, rowid, func(int) error { return nil })
		if buf = c.out; err == nil {
			if f, ok := partFlags(unsafe.String(unsafe.SliceData(buf), len(buf))); ok {
				return f, buf, nil
			}
		}
	}
	var f int
	err := s.c().db.QueryRowContext(ctx, `SELECT `+partFlagsJSON+` FROM part WHERE rowid = ?`, rowid).Scan(&f)
	return f, buf, err
}

type sessionRow struct {
	id                 string
	parent, title, dir sql.NullString
	path               sql.NullString // read by Load only
	version            sql.NullString
	created, updated   sql.NullInt64
}

func (r *sessionRow) info(source string, o Options) model.SessionInfo {
	return model.SessionInfo{
		ID:        r.id,
		Agent:     o.Agent,
		Title:     r.title.String,
		Directory: r.dir.String,
		Path:      r.path.String,
		ParentID:  r.parent.String,
		Version:   r.version.String,
		Created:   msTime(float64(r.created.Int64)),
		Updated:   msTime(float64(r.updated.Int64)),
		Source:    source,
		DataDir:   o.DataDir,
		Pipeline:  model.PipelineV1,
	}
}

func (s *sqliteStore) Load(ctx context.Context, id string) (*model.Session, error) {
	return stable(s, func() (*model.Session, error) { return s.loadWhole(ctx, id) })
}

func (s *sqliteStore) loadWhole(ctx context.Context, id string) (*model.Session, error) {
	// One read transaction: session, messages and parts from one snapshot.
	tx, err := s.c().db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("load %s from %s: %w", id, s.path, err)
	}
	defer tx.Rollback()
	sess, err := s.load(ctx, tx, id)
	if err != nil {
		if errors.Is(err, sessions.ErrNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("load %s from %s: %w", id, s.path, err)
	}
	return sess, nil
}

func (s *sqliteStore) load(ctx context.Context, tx *sql.Tx, id string) (*model.Session, error) {
	sess, err := s.sessionRow(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	var d decoder

	rows, err := tx.QueryContext(ctx,
		`SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id`, id)
	if err != nil {
		return nil, err
	}
	index := map[string]int{} // message id -> index in sess.Messages
	for rows.Next() {
		var (
			mid     string
			created sql.NullInt64
			data    sql.RawBytes
		)
		if err := rows.Scan(&mid, &created, &data); err != nil {
			rows.Close()
			return nil, err
		}
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

	orphans := map[string]int{}
	add := func(rows *sql.Rows) (rowid int64, err error) {
		var (
			pid, mid string
			data     sql.RawBytes
		)
		if err := rows.Scan(&pid, &mid, &data, &rowid); err != nil {
			return 0, err
		}
		mi, ok := index[mid]
		if !ok {
			orphans[mid]++
			return rowid, nil
		}
		if p, ok := d.part(pid, data, "table part, row "+pid); ok {
			sess.Messages[mi].Parts = append(sess.Messages[mi].Parts, p)
		}
		return rowid, nil
	}
	mids := make([]string, len(sess.Messages))
	for i, m := range sess.Messages {
		mids[i] = m.ID
	}
	const partsSQL = `SELECT id, message_id, data, rowid FROM part WHERE session_id = ?1`
	w, damaged, err := readParts(ctx, tx, partsSQL+` ORDER BY message_id, id`, []any{id}, partsSQL+` AND rowid = ?2`, []any{id}, mids, add)
	d.warnings = append(d.warnings, w...)
	if damaged && err == nil {
		// read a row at a time from the messages read: count the others
		err = orphansFromIndexes(ctx, tx, id, d.warnf)
	}
	if err != nil {
		return nil, err
	}
	for _, mid := range sortedKeys(orphans) {
		d.warnf("table part: %d part(s) of message %s skipped: the message was not loaded", orphans[mid], mid)
	}

	if len(sess.Messages) == 0 && s.v2Table {
		if err := s.loadV2(ctx, tx, sess, &d); err != nil {
			return nil, err
		}
	}
	sessions.CountCalls(&sess.Info, sess.Messages)
	sess.Warnings = append(s.openNotes(), d.warnings...)
	return sess, nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sessionRow reads a session's own row into an empty session.
func (s *sqliteStore) sessionRow(ctx context.Context, tx *sql.Tx, id string) (*model.Session, error) {
	var r sessionRow
	path := "NULL"
	if s.pathCol {
		path = "path"
	}
	err := tx.QueryRowContext(ctx,
		`SELECT id, parent_id, title, directory, version, time_created, time_updated, `+path+` FROM session WHERE id = ?`, id).
		Scan(&r.id, &r.parent, &r.title, &r.dir, &r.version, &r.created, &r.updated, &r.path)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sessions.NotFound(id, s.path)
	}
	if err != nil {
		return nil, err
	}
	return &model.Session{Info: r.info(s.path, s.opts)}, nil
}
