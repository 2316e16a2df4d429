package opencode

// Reading past damaged pages of opencode's database. A query over many
// part rows fails as a whole when one of its pages is corrupt ("database
// disk image is malformed"). The rows are then read one at a time:
// enumerated from the part_message_id_id index alone (message_id, id and
// rowid: no page of the table is read), each read by its rowid; the rows
// that cannot be read are named in warnings, a run of consecutive ones in
// one, and the rest of the session still shows.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isDamage tells whether err is SQLite finding the file damaged, which
// reading less of it at a time may get past.
func isDamage(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// unreadable collects the rows that could not be read into warnings, one
// per run of consecutive rows.
type unreadable struct {
	table       string
	first, last string
	run         int
	err         error
	rows        int // the rows that could not be read
	lists       int // the messages whose parts could not be listed
	warnings    []string
}

// summary says what was left out; "" when nothing was.
func (u *unreadable) summary() string {
	switch {
	case u.rows > 0 && u.lists > 0:
		return fmt.Sprintf("%d %s row(s) unreadable, and the rows of %d message(s)", u.rows, u.table, u.lists)
	case u.lists > 0:
		return fmt.Sprintf("the %s rows of %d message(s) unreadable", u.table, u.lists)
	case u.rows > 0:
		return fmt.Sprintf("%d %s row(s) unreadable", u.rows, u.table)
	}
	return ""
}

// add notes a row that could not be read.
func (u *unreadable) add(id string, err error) {
	if u.run == 0 {
		u.first = id
		u.err = err
	}
	u.last = id
	u.run++
	u.rows++
}

// read notes a row that could be read: a run ends.
func (u *unreadable) read() {
	switch u.run {
	case 0:
		return
	case 1:
		u.warnings = append(u.warnings, fmt.Sprintf("table %s, row %s: unreadable (%v): left out", u.table, u.first, u.err))
	default:
		u.warnings = append(u.warnings, fmt.Sprintf("table %s, rows %s to %s (%d rows): unreadable (%v): left out", u.table, u.first, u.last, u.run, u.err))
	}
	u.run = 0
}

// warnf adds a warning of its own, ending a run first.
func (u *unreadable) warnf(format string, args ...any) {
	u.read()
	u.warnings = append(u.warnings, fmt.Sprintf(format, args...))
}

// partsOneByOne calls read for every part row of messages mids (in
// message order, then by id) whose rowid is not in done, enumerated from
// the part_message_id_id index only. read reads the row by its rowid: an
// error that is damage (or a row that is gone, sql.ErrNoRows) leaves the
// row out, named in u; any other error ends the walk.
func partsOneByOne(ctx context.Context, q queryer, mids []string, done map[int64]bool, u *unreadable, read func(rowid int64) error) error {
	type ref struct {
		id    string
		rowid int64
	}
	for _, mid := range mids {
		var refs []ref
		rows, err := q.QueryContext(ctx, `SELECT id, rowid FROM part WHERE message_id = ? ORDER BY id`, mid)
		if err == nil {
			for rows.Next() {
				var r ref
				if err = rows.Scan(&r.id, &r.rowid); err != nil {
					break
				}
				refs = append(refs, r)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		if isDamage(err) {
			u.warnf("table part: the parts of message %s could not be listed (%v): left out", mid, err)
			u.lists++
			continue
		}
		if err != nil {
			return err
		}
		for _, r := range refs {
			if done[r.rowid] {
				continue
			}
			err := read(r.rowid)
			switch {
			case err == nil, errors.Is(err, sql.ErrNoRows):
				u.read()
			case isDamage(err):
				u.add(r.id, err)
			default:
				return err
			}
		}
	}
	u.read()
	return nil
}

// orphansFromIndexes counts, from the indexes alone, the part rows of
// session id whose message is not in the message table, when the query
// that names their messages met a damaged page; warnf reports them.
func orphansFromIndexes(ctx context.Context, q queryer, id string, warnf func(string, ...any)) error {
	var n int
	err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM part WHERE session_id = ?1)
     - (SELECT count(*) FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?1))`, id).Scan(&n)
	if isDamage(err) {
		warnf("table part: the part rows of session %s without a message could not be looked for (%v)", id, err)
		return nil
	}
	if err == nil && n > 0 {
		warnf("table part: %d part(s) of session %s skipped: their message is not in the table", n, id)
	}
	return err
}

// readParts runs query over part rows, giving each row to add, which
// returns its rowid. When the query meets a damaged page, the rows of
// messages mids that add has not taken are read one at a time with one
// (its arguments oneArgs, then the rowid), and those that cannot be read
// are named in warnings; damaged tells that this happened.
func readParts(ctx context.Context, tx *sql.Tx, query string, args []any, one string, oneArgs []any, mids []string, add func(*sql.Rows) (int64, error)) (warnings []string, damaged bool, err error) {
	done := map[int64]bool{}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err == nil {
		err = eachRow(rows, func(rows *sql.Rows) error {
			rowid, err := add(rows)
			done[rowid] = err == nil
			return err
		})
	}
	if !isDamage(err) {
		return nil, false, err
	}
	u := unreadable{table: "part"}
	err = partsOneByOne(ctx, tx, mids, done, &u, func(rowid int64) error {
		rows, err := tx.QueryContext(ctx, one, append(oneArgs, rowid)...)
		if err != nil {
			return err
		}
		return eachRow(rows, func(rows *sql.Rows) error {
			_, err := add(rows)
			return err
		})
	})
	return u.warnings, true, err
}
