package tui

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"correx/sessions"
)

// A session still being written: the store is a copy of a real recording
// without its last step; the test then appends that step, as opencode
// would, and the open view must show the new call, keep the selection and
// say what is new.
func TestLiveSessionGrows(t *testing.T) {
	liveEvery = time.Millisecond
	t.Cleanup(func() { liveEvery = 2 * time.Second })
	t.Run("one page", func(t *testing.T) { liveSessionGrows(t) })
	t.Run("many pages", func(t *testing.T) {
		// the reload reads several outline pages before it is swapped in
		first, rest := firstPageMessages, pageMessages
		firstPageMessages, pageMessages = 3, 4
		t.Cleanup(func() { firstPageMessages, pageMessages = first, rest })
		liveSessionGrows(t)
	})
}

func liveSessionGrows(t *testing.T) {
	src, err := os.ReadFile("../testdata/opencode/anthropic/data/opencode.db")
	require.NoError(t, err)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "opencode.db")
	require.NoError(t, os.WriteFile(dbPath, src, 0o644))

	db, err := sql.Open("sqlite", dbPath)
	require.NoError(t, err)
	defer db.Close()
	// Hold back the root session's last assistant message (its follow-up read).
	var root, last string
	require.NoError(t, db.QueryRow(`SELECT id FROM session WHERE parent_id IS NULL`).Scan(&root))
	require.NoError(t, db.QueryRow(`SELECT m.id FROM message m JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ? AND json_extract(p.data, '$.type') = 'tool'
		ORDER BY m.time_created DESC, m.id DESC LIMIT 1`, root).Scan(&last))
	_, err = db.Exec(`CREATE TABLE held_message AS SELECT * FROM message WHERE id = ?;
		CREATE TABLE held_part AS SELECT * FROM part WHERE message_id = ?;
		DELETE FROM part WHERE message_id = ?; DELETE FROM message WHERE id = ?`, last, last, last, last)
	require.NoError(t, err)

	st, err := sessions.Open(dbPath)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	h := newHarness(t, Options{Stores: []sessions.Store{st}, SessionID: root, Live: true}, 120, 30)
	v := h.m.current()
	require.NotNil(t, v)
	before := len(v.list.rows)
	h.key("j")
	h.key("j")
	selected := v.list.rows[v.list.sel].info().call().CallID

	// Nothing changed: a live check reloads nothing and says nothing.
	h.send(liveTickMsg{})
	require.Len(t, h.m.current().list.rows, before)
	require.Empty(t, h.m.status.text)

	// The writer appends the held step and bumps the session's update time.
	_, err = db.Exec(`INSERT INTO message SELECT * FROM held_message; INSERT INTO part SELECT * FROM held_part;
		UPDATE session SET time_updated = time_updated + 1000 WHERE id = ?`, root)
	require.NoError(t, err)
	h.send(liveTickMsg{})

	v = h.m.current()
	require.Len(t, v.list.rows, before+1)
	require.Equal(t, selected, v.list.rows[v.list.sel].info().call().CallID, "selection kept")
	require.Contains(t, h.m.status.text, "live: 1 new call (read)")
}
