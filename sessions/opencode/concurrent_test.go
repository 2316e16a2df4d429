package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// TestReaderDoesNotBlockWriter runs a writer the way opencode writes (WAL,
// one transaction per session with its messages and parts, plus updates of
// existing sessions) while the store lists and loads in a loop. The writer
// has no busy timeout, so a single moment where the reader held a lock it
// needed fails the test; the reader must always see whole sessions, and
// in the end every commit. It asserts outcomes, not rates: both sides run
// for a second and at least minRounds rounds, however busy the machine.
func TestReaderDoesNotBlockWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a second")
	}
	path := filepath.Join(t.TempDir(), "opencode.db")
	setup := openTestDB(t, path)
	insertSession(t, setup, rootSession())
	require.NoError(t, setup.Close())

	writer, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(0)&_pragma=wal_autocheckpoint(16)")
	require.NoError(t, err)
	writer.SetMaxOpenConns(1)
	defer writer.Close()

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	const minRounds = 3
	var (
		wg              sync.WaitGroup
		written         atomic.Int64
		maxWrite        atomic.Int64
		writerErr       error
		lists, loads    int
		readerProblems  []string
		lastSeen        int
		child           = childSession()
		wantChildCounts = [4]int{2, 1, 0, 0}
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil || i < minRounds; i++ {
			start := time.Now()
			tx, err := writer.Begin()
			if err != nil {
				writerErr = err
				return
			}
			c := child
			c.id = fmt.Sprintf("ses_w%06d", i)
			c.updated = child.updated + int64(i)
			for mi := range c.msgs {
				c.msgs[mi].id = fmt.Sprintf("msg_w%06d_%d", i, mi)
				c.msgs[mi].parts = append([]fxPart(nil), c.msgs[mi].parts...)
				for pi := range c.msgs[mi].parts {
					c.msgs[mi].parts[pi].id = fmt.Sprintf("prt_w%06d_%d_%d", i, mi, pi)
				}
			}
			if err := insertSessionErr(tx, c); err != nil {
				tx.Rollback()
				writerErr = err
				return
			}
			if _, err := tx.Exec(`UPDATE session SET time_updated = time_updated + 1 WHERE id = 'ses_2'`); err != nil {
				tx.Rollback()
				writerErr = err
				return
			}
			if err := tx.Commit(); err != nil {
				writerErr = err
				return
			}
			if d := time.Since(start).Microseconds(); d > maxWrite.Load() {
				maxWrite.Store(d)
			}
			written.Add(1)
		}
	}()

	for ctx.Err() == nil || lists < minRounds {
		infos, err := s.List(context.Background())
		require.NoError(t, err)
		lists++
		if len(infos) < lastSeen {
			readerProblems = append(readerProblems, fmt.Sprintf("list shrank: %d after %d", len(infos), lastSeen))
		}
		lastSeen = len(infos)
		for _, in := range infos {
			if in.ID == "ses_2" {
				continue
			}
			got := [4]int{in.Messages, in.ToolCalls, in.Truncated, in.Errors}
			if got != wantChildCounts {
				readerProblems = append(readerProblems, fmt.Sprintf("%s listed half-written: %v", in.ID, got))
			}
		}
		if len(infos) > 1 {
			sess, err := s.Load(context.Background(), infos[len(infos)/2].ID)
			require.NoError(t, err)
			loads++
			if len(sess.Messages) != 2 || len(sess.Messages[1].Parts) != 2 {
				readerProblems = append(readerProblems, fmt.Sprintf("%s loaded half-written", sess.Info.ID))
			}
		}
	}
	wg.Wait()
	require.NoError(t, writerErr, "the writer must never see SQLITE_BUSY")
	assert.Empty(t, readerProblems)
	infos, err := s.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, infos, int(written.Load())+1, "every commit landed and is listed")
	t.Logf("writes %d (slowest %dµs), lists %d, loads %d, sessions seen %d", written.Load(), maxWrite.Load(), lists, loads, lastSeen)
}

// TestImmutableReadRetriedWhenOpencodeStarts opens a store while opencode
// is not running (a WAL database without -wal and -shm: immutable), and
// starts a writer during its first read, as opencode starting would. That
// read may have seen the database mid-checkpoint, so stable reads again,
// now with locks, and gives the second read's sessions.
func TestImmutableReadRetriedWhenOpencodeStarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	setup := openTestDB(t, path)
	insertSession(t, setup, rootSession())
	require.NoError(t, setup.Close()) // the last close removes -wal and -shm
	st, err := openSQLite(path, Options{})
	require.NoError(t, err)
	defer st.Close()
	require.True(t, st.c().immutable)

	var writer *sql.DB
	defer func() {
		if writer != nil {
			writer.Close()
		}
	}()
	reads := 0
	infos, err := stable(st, func() ([]string, error) {
		reads++
		if reads == 1 {
			writer = openTestDB(t, path)
			insertSession(t, writer, childSession())
			return []string{"what an unlocked read saw"}, nil
		}
		infos, err := st.listAll(context.Background())
		var ids []string
		for _, in := range infos {
			ids = append(ids, in.ID)
		}
		return ids, err
	})
	require.NoError(t, err)
	assert.Equal(t, 2, reads, "read again once the files changed")
	assert.False(t, st.c().immutable, "reopened with locks")
	assert.ElementsMatch(t, []string{"ses_1", "ses_2"}, infos)

	reads = 0
	_, err = stable(st, func() (int, error) { reads++; return 0, nil })
	require.NoError(t, err)
	assert.Equal(t, 1, reads, "a locked read is read once")
}
