package tui

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"correx/model"
	"correx/sessions"
)

// A session still being written: the store is a copy of a real recording
// without its last step; the test then appends that step, as opencode
// would, and the open view must show the new call, keep the selection and
// say what is new.
func TestLiveSessionGrows(t *testing.T) {
	cfg := DefaultConfig()
	cfg.LiveEvery = time.Millisecond
	t.Run("one page", func(t *testing.T) { liveSessionGrows(t, cfg) })
	t.Run("many pages", func(t *testing.T) {
		// the reload reads several outline pages before it is swapped in
		cfg := cfg
		cfg.FirstPage, cfg.Page = 3, 4
		liveSessionGrows(t, cfg)
	})
}

func liveSessionGrows(t *testing.T, cfg Config) {
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
	h := newHarness(t, Options{Stores: []sessions.Store{st}, SessionID: root, Live: true, Config: &cfg}, 120, 30)
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

// countingStore counts the Lists of the store it wraps and forwards its
// fingerprint.
type countingStore struct {
	sessions.Store
	lists      int
	beforeList func() // run before each list, when set
}

func (c *countingStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	c.lists++
	if c.beforeList != nil {
		c.beforeList()
	}
	return c.Store.List(ctx)
}

func (c *countingStore) Fingerprint() (string, bool) { return sessions.Fingerprint(c.Store) }

// liveCheck sends tick and runs what follows (the check, then what its
// result asks for) until the next tick, which it returns with the check's
// result.
func liveCheck(t *testing.T, h *harness, tick liveTickMsg) (liveMsg, liveTickMsg) {
	t.Helper()
	var result liveMsg
	var next *liveTickMsg
	var drive func(cmd tea.Cmd)
	update := func(msg tea.Msg) {
		nm, cmd := h.m.Update(msg)
		h.m = nm.(Model)
		drive(cmd)
	}
	drive = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		switch msg := cmd().(type) {
		case liveTickMsg:
			require.Nil(t, next, "one check loop")
			next = &msg
		case liveMsg:
			result = msg
			update(msg)
		case tea.BatchMsg:
			for _, c := range msg {
				drive(c)
			}
		default:
			h.run(func() tea.Msg { return msg })
		}
	}
	update(tick)
	require.NotNil(t, next, "the check schedules the next")
	return result, *next
}

// liveCopy is a copy of a recorded opencode store, open for writing (closed
// with the test), its root session, and a config that checks it every
// millisecond.
func liveCopy(t *testing.T) (cfg Config, dbPath string, db *sql.DB, root string) {
	cfg = DefaultConfig()
	cfg.LiveEvery = time.Millisecond
	src, err := os.ReadFile("../testdata/opencode/anthropic/data/opencode.db")
	require.NoError(t, err)
	dbPath = filepath.Join(t.TempDir(), "opencode.db")
	require.NoError(t, os.WriteFile(dbPath, src, 0o644))
	db, err = sql.Open("sqlite", dbPath)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, db.QueryRow(`SELECT id FROM session WHERE parent_id IS NULL`).Scan(&root))
	return cfg, dbPath, db, root
}

// openStore opens the store at path for the test.
func openStore(t *testing.T, path string) sessions.Store {
	st, err := sessions.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// ageFiles moves the mtime of the database and its -wal an hour back, so
// that its fingerprint can be trusted (see sessions.Fingerprint).
func ageFiles(t *testing.T, dbPath string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{dbPath, dbPath + "-wal"} {
		if _, err := os.Stat(p); err == nil {
			require.NoError(t, os.Chtimes(p, old, old))
		}
	}
}

// A live check of a store whose files did not change since the previous
// list lists nothing (the first check starts from the counted list made
// once the session loaded); a write makes the next check list (and
// reload) again.
func TestLiveUnchangedStoreIsNotListed(t *testing.T) {
	cfg, dbPath, db, root := liveCopy(t)
	ageFiles(t, dbPath)
	st := openStore(t, dbPath)
	cs := &countingStore{Store: st}
	h := newHarness(t, Options{Stores: []sessions.Store{cs}, SessionID: root, Live: true, Config: &cfg}, 120, 30)
	require.NotNil(t, h.m.current())
	lists := cs.lists

	// The first check has no fingerprint of its own: it takes the counted
	// list's, and lists nothing.
	require.NotEmpty(t, h.m.listedFP)
	res, next := liveCheck(t, h, liveTickMsg{})
	require.True(t, res.unchanged)
	require.Equal(t, lists, cs.lists)
	require.NotEmpty(t, next.fp)
	require.Empty(t, h.m.listedFP, "taken once")
	lists-- // as if that check had listed

	// Nothing written since: no list, the next check keeps the fingerprint.
	for range 3 {
		var again liveTickMsg
		res, again = liveCheck(t, h, next)
		require.True(t, res.unchanged)
		require.Equal(t, next.fp, again.fp)
	}
	require.Equal(t, lists+1, cs.lists, "an unchanged store is not listed again")
	updated := h.m.current().data.sess.Info.Updated

	// A write: the files are fresh (no fingerprint to trust), so the store
	// is listed and the open session reloaded.
	_, err := db.Exec(`UPDATE session SET time_updated = time_updated + 1000 WHERE id = ?`, root)
	require.NoError(t, err)
	res, next = liveCheck(t, h, next)
	require.False(t, res.unchanged)
	require.Equal(t, lists+2, cs.lists)
	require.Equal(t, updated.Add(time.Second), h.m.current().data.sess.Info.Updated, "reloaded")

	// Once the files are old enough, one more list records the fingerprint,
	// and the checks after it list nothing.
	ageFiles(t, dbPath)
	res, next = liveCheck(t, h, next)
	require.False(t, res.unchanged)
	require.NotEmpty(t, next.fp)
	res, _ = liveCheck(t, h, next)
	require.True(t, res.unchanged)
	require.Equal(t, lists+3, cs.lists)
}

// A session written between its load and the counted list made after it
// is not taken as listed: the first live check lists, and reloads it.
func TestLiveFirstCheckSeesAWriteBeforeTheList(t *testing.T) {
	cfg, dbPath, db, root := liveCopy(t)
	cs := &countingStore{Store: openStore(t, dbPath)}
	cs.beforeList = func() {
		_, err := db.Exec(`UPDATE session SET time_updated = time_updated + 1000 WHERE id = ?`, root)
		require.NoError(t, err)
		ageFiles(t, dbPath) // a fingerprint to trust, taken after the write
		cs.beforeList = nil
	}
	h := newHarness(t, Options{Stores: []sessions.Store{cs}, SessionID: root, Live: true, Config: &cfg}, 120, 30)
	updated := h.m.current().data.sess.Info.Updated
	lists := cs.lists
	res, _ := liveCheck(t, h, liveTickMsg{})
	require.False(t, res.unchanged)
	require.Equal(t, lists+1, cs.lists)
	require.Equal(t, updated.Add(time.Second), h.m.current().data.sess.Info.Updated, "reloaded")
}

// The first live check of a session opened before its store's counted
// list is in (the list after a large session, or only the quick list)
// reloads it only when its update time moved: the session loaded is not
// read a second time beside itself.
func TestLiveBeforeTheCountedList(t *testing.T) {
	cfg, dbPath, db, root := liveCopy(t)
	st := openStore(t, dbPath)
	h := newHarness(t, Options{Stores: []sessions.Store{st}, SessionID: root, Live: true, Config: &cfg}, 120, 30)
	loaded := h.m.current().data
	for _, quick := range []bool{false, true} {
		if quick { // the quick list: the session listed without its counts
			in, ok := h.m.picker.Info(root)
			require.True(t, ok)
			in.Uncounted, in.Messages, in.ToolCalls = true, 0, 0
			h.m.picker.SetSessions([]model.SessionInfo{in}, nil)
		} else {
			h.m.picker.SetSessions(nil, nil) // not listed yet
		}
		res, _ := liveCheck(t, h, liveTickMsg{})
		require.Nil(t, res.data, "quick %t: not reloaded", quick)
		require.Same(t, loaded, h.m.current().data)
	}
	// its update time moved: reloaded
	h.m.picker.SetSessions(nil, nil)
	_, err := db.Exec(`UPDATE session SET time_updated = time_updated + 1000 WHERE id = ?`, root)
	require.NoError(t, err)
	res, _ := liveCheck(t, h, liveTickMsg{})
	require.NotNil(t, res.data)
}

// fpStore is a store whose fingerprint moves from "a" to "b" at its
// moveAt-th taking.
type fpStore struct {
	sessions.Store
	taken, moveAt int
}

func (s *fpStore) Fingerprint() (string, bool) {
	s.taken++
	if s.moveAt > 0 && s.taken >= s.moveAt {
		return "b", true
	}
	return "a", true
}

// A TUI left open on an unchanged store gets no message between checks:
// the wait takes the fingerprint liveQuiet times before the next check
// starts, and hands over at once when it moves.
func TestLiveWaitIsQuiet(t *testing.T) {
	for _, moveAt := range []int{0, 3} {
		st := &fpStore{moveAt: moveAt}
		msg := liveWaitCmd(t.Context(), time.Millisecond, st, "a")()
		require.Equal(t, liveTickMsg{fp: "a"}, msg)
		want := liveQuiet
		if moveAt > 0 {
			want = moveAt
		}
		require.Equal(t, want, st.taken, "moveAt %d", moveAt)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.Nil(t, liveWaitCmd(ctx, time.Hour, &fpStore{}, "a")(), "the app's end ends the wait")
}
