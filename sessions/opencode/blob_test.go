package opencode

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestBlobReader checks that blob I/O reads a row's bytes exactly, across
// chunks, after what dst holds, and says when a row is not there.
func TestBlobReader(t *testing.T) {
	big := `{"type":"tool","state":{"output":"` + strings.Repeat("é\\n", blobChunk) + `"}}`
	path := partStore(t, "prt_blob", big, "{}", big[:blobChunk], big[:blobChunk+1])

	b, err := openBlobReader(path, false)
	require.NoError(t, err)
	defer b.close()
	ro, err := sql.Open("sqlite", sqliteDSN(path, false))
	require.NoError(t, err)
	defer ro.Close()
	rows, err := ro.Query(`SELECT rowid, data FROM part`)
	require.NoError(t, err)
	n := 0
	for rows.Next() {
		var rowid int64
		var want string
		require.NoError(t, rows.Scan(&rowid, &want))
		got, err := b.read(rowid, []byte("prefix"))
		require.NoError(t, err)
		require.Equal(t, "prefix"+want, string(got), "row %d", rowid)
		n++
	}
	require.NoError(t, rows.Err())
	require.GreaterOrEqual(t, n, 4)
	_, err = b.read(1<<40, nil)
	require.ErrorContains(t, err, "row 1099511627776")
}

// TestBlobReaderCacheBounded checks that the blob connection's page cache
// stays within blobCachePragma's bound after a row many times larger:
// SQLite's default would keep 2 MB of its pages in C memory for good.
func TestBlobReaderCacheBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, rootSession())
	big := `{"type":"tool","state":{"output":"` + strings.Repeat("x", 4<<20) + `"}}`
	res, err := db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_big', 'msg_02', 'ses_2', 1, 1, ?)`, big)
	require.NoError(t, err)
	rowid, err := res.LastInsertId()
	require.NoError(t, err)
	require.NoError(t, db.Close())

	b, err := openBlobReader(path, false)
	require.NoError(t, err)
	defer b.close()
	got, err := b.read(rowid, nil)
	require.NoError(t, err)
	require.Len(t, got, len(big))

	cur := libc.Xmalloc(b.tls, 8)
	defer libc.Xfree(b.tls, cur)
	hw := libc.Xmalloc(b.tls, 8)
	defer libc.Xfree(b.tls, hw)
	require.Equal(t, int32(sqlite3.SQLITE_OK), sqlite3.Xsqlite3_db_status(b.tls, b.db, sqlite3.SQLITE_DBSTATUS_CACHE_USED, cur, hw, 0))
	used := *(*int32)(unsafe.Add(nil, cur))
	require.Positive(t, used)
	require.LessOrEqual(t, used, int32(160<<10), "the page cache holds %d bytes after a 4 MiB row", used)
}
