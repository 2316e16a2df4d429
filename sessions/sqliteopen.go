package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// OpenSQLite opens an agent's SQLite database read-only for one reader:
// mode=ro and query_only, so no statement can write; immutable=1 when it
// is a WAL database without its -wal and -shm files (SQLite would create
// both beside it, in the agent's folder) or when the read-only open fails
// (a read-only folder). notes say what such an open does not see (writer
// names the agent); tables are the database's table names.
func OpenSQLite(path, writer string) (db *sql.DB, tables map[string]bool, notes []string, err error) {
	immutable := false
	if head, err := ReadHead(path, 20); err == nil && len(head) == 20 && (head[18] == 2 || head[19] == 2) {
		// bytes 18 and 19 of the header: the write and read versions, 2 for WAL
		wal, walErr := os.Lstat(path + "-wal")
		_, shmErr := os.Lstat(path + "-shm")
		immutable = walErr != nil || shmErr != nil
		if immutable && walErr == nil && wal.Size() > 0 {
			notes = append(notes, fmt.Sprintf("%s: WAL database without its -shm file: opened with immutable=1 so that SQLite creates nothing beside it; the %d bytes of commits in its -wal file are not read, nor what %s writes while correx runs", path, wal.Size(), writer))
		}
	}
	db, tables, err = connectRO(path, immutable)
	var se *sqlite.Error
	if err != nil && !immutable && errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM:
			first := err
			if db, tables, err = connectRO(path, true); err == nil {
				notes = append(notes, fmt.Sprintf("%s: read-only open failed (%v); opened with immutable=1: what %s writes while correx runs is not seen", path, first, writer))
			}
		}
	}
	return db, tables, notes, err
}

// connectRO opens path read-only and reads its table names, which proves
// it can be read.
func connectRO(path string, immutable bool) (*sql.DB, map[string]bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x -> file:///C:/x
	}
	q := "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	if immutable {
		q += "&immutable=1"
	}
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: p}).String()+"?"+q)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			db.Close()
			return nil, nil, err
		}
		tables[name] = true
	}
	if err := rows.Err(); err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, tables, nil
}
