package opencode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// age sets the mtime of the database and of its -wal (when there is one) an
// hour back, out of sessions.RacyWindow.
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{path, path + "-wal"} {
		if _, err := os.Stat(p); err == nil {
			require.NoError(t, os.Chtimes(p, old, old))
		}
	}
}

// A fingerprint stays equal while nothing is written (reading, listing and
// loading included) and changes with every commit of another connection,
// whether it lands in the -wal or a checkpoint moves it into the database.
func TestFingerprintFollowsWrites(t *testing.T) {
	racy := sessions.RacyWindow
	sessions.RacyWindow = 0
	t.Cleanup(func() { sessions.RacyWindow = racy })
	ctx := context.Background()

	path := filepath.Join(t.TempDir(), "opencode.db")
	writer := openTestDB(t, path) // WAL mode, kept open as opencode keeps it
	defer writer.Close()
	insertSession(t, writer, childSession())

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	fp, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.Contains(t, fp, "opencode.db")

	_, err = s.List(ctx)
	require.NoError(t, err)
	_, err = s.Load(ctx, "ses_1")
	require.NoError(t, err)
	again, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.Equal(t, fp, again, "reading changes nothing")

	insertSession(t, writer, rootSession())
	grown, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, fp, grown, "a commit appends to the -wal")
	infos, err := s.List(ctx)
	require.NoError(t, err)
	assert.Len(t, infos, 2)

	_, err = writer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	require.NoError(t, err)
	checkpointed, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, grown, checkpointed, "a checkpoint rewrites the database and empties the -wal")

	_, err = writer.Exec(`UPDATE session SET time_updated = time_updated + 1 WHERE id = 'ses_2'`)
	require.NoError(t, err)
	updated, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, checkpointed, updated, "a commit after the log was reset")
	stable, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.Equal(t, updated, stable)
}

// A file written within sessions.RacyWindow gives no fingerprint: a second write in
// the same timestamp tick, of the same size, could not be told apart.
func TestFingerprintRacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	writer := openTestDB(t, path)
	defer writer.Close()
	insertSession(t, writer, childSession())
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()

	_, ok := sessions.Fingerprint(s)
	assert.False(t, ok, "just written")
	age(t, path)
	fp, ok := sessions.Fingerprint(s)
	require.True(t, ok)

	insertSession(t, writer, rootSession())
	_, ok = sessions.Fingerprint(s)
	assert.False(t, ok, "just written")
	age(t, path)
	aged, ok := sessions.Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, fp, aged, "the -wal grew")
}

// A database without a -wal (rollback journal, or opencode closed and
// checkpointed it) has a fingerprint; a combined store has one when all its
// stores have; export files and legacy storage have none.
func TestFingerprintStores(t *testing.T) {
	racy := sessions.RacyWindow
	sessions.RacyWindow = 0
	t.Cleanup(func() { sessions.RacyWindow = racy })
	dir := t.TempDir()

	a := filepath.Join(dir, "a", "opencode.db")
	writeDB(t, a, childSession()) // closed: the -wal is checkpointed and removed
	_, err := os.Stat(a + "-wal")
	require.ErrorIs(t, err, os.ErrNotExist)
	sa, err := sessions.Open(a)
	require.NoError(t, err)
	defer sa.Close()
	fa, ok := sessions.Fingerprint(sa)
	require.True(t, ok, "a missing -wal is part of the fingerprint")

	b := filepath.Join(dir, "b", "opencode.db")
	writer := openTestDB(t, b)
	defer writer.Close()
	insertSession(t, writer, rootSession())
	sb, err := sessions.Open(b)
	require.NoError(t, err)
	defer sb.Close()

	both := sessions.Combine(sa, sb)
	fp, ok := sessions.Fingerprint(both)
	require.True(t, ok)
	assert.Contains(t, fp, fa)
	insertSession(t, writer, fxSession{id: "ses_3", title: "t", dir: "/d", version: "1", created: 1, updated: 2})
	changed, ok := sessions.Fingerprint(both)
	require.True(t, ok)
	assert.NotEqual(t, fp, changed, "one store changed")

	exp := filepath.Join(dir, "export.json")
	writeExport(t, exp, rootSession())
	se, err := sessions.Open(exp)
	require.NoError(t, err)
	defer se.Close()
	_, ok = sessions.Fingerprint(se)
	assert.False(t, ok, "an export cannot say")
	_, ok = sessions.Fingerprint(sessions.Combine(sa, se))
	assert.False(t, ok, "one store cannot say")

	legacy := filepath.Join(dir, "storage")
	writeLegacy(t, legacy, rootSession())
	sl, err := sessions.Open(legacy)
	require.NoError(t, err)
	defer sl.Close()
	_, ok = sessions.Fingerprint(sl)
	assert.False(t, ok, "legacy storage cannot say")
}
