package opencode

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// outlineAll reads session id page by page and fills every elided call from
// LoadOutput.
func outlineAll(t *testing.T, l sessions.Lazy, id string, limit int) (*model.Session, int) {
	t.Helper()
	var all *model.Session
	elided := 0
	for from := 0; ; {
		p, err := l.LoadOutline(ctx, id, from, limit)
		require.NoError(t, err)
		require.Equal(t, from, p.From)
		if all == nil {
			all = p.Session
		} else {
			all.Messages = append(all.Messages, p.Session.Messages...)
			all.Warnings = append(all.Warnings, p.Session.Warnings...)
		}
		from += len(p.Session.Messages)
		if !p.More {
			break
		}
		require.NotEmpty(t, p.Session.Messages)
	}
	for _, r := range all.ToolCalls() {
		c := r.Call
		if c.Elided {
			elided++
			full, err := l.LoadOutput(ctx, id, all.Messages[r.Message].Parts[r.Part].ID)
			require.NoError(t, err)
			require.LessOrEqual(t, len(full.Output), c.OutputBytes)
			*c = *full
		}
		c.OutputBytes, c.Elided = 0, false
	}
	return all, elided
}

func TestOutlineEqualsLoad(t *testing.T) {
	old := elideBytes
	elideBytes = 1024
	defer func() { elideBytes = old }()
	dirs, _ := filepath.Glob("../../testdata/opencode/*/data")
	n := 0
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "opencode.db")); err != nil {
			continue
		}
		s, err := sessions.Open(dir)
		require.NoError(t, err)
		infos, err := s.List(ctx)
		require.NoError(t, err)
		l := sessions.LazyFor(s, "")
		require.NotNil(t, l, dir)
		for _, in := range infos {
			want, err := s.Load(ctx, in.ID)
			require.NoError(t, err)
			for _, limit := range []int{0, 1, 3} {
				got, elided := outlineAll(t, l, in.ID, limit)
				n += elided
				if in.Pipeline == model.PipelineV1 {
					assert.Equal(t, want.Info.Messages, got.Info.Messages)
				}
				got.Info = want.Info
				assert.Equal(t, want, got, "%s %s limit %d", dir, in.ID, limit)
			}
		}
		s.Close()
	}
	assert.Positive(t, n, "some fixture parts are elided")
}

func TestOutlineCorruptRows(t *testing.T) {
	// the corrupt-rows store of TestCorruptDBRowsAreSkippedWithWarnings
	// gives Load's warnings through the outline too
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, rootSession())
	_, err := db.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_04', 'ses_2', 1700000005000, 1, '{"role":"assistant",')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_04a', 'msg_04', 'ses_2', 1, 1, '{"type":"text","text":"x"}')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_09', 'msg_gone', 'ses_2', 1, 1, '{"type":"text","text":"x"}')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_02z', 'msg_02', 'ses_2', 1, 1, '{"type":"tool","tool":"bash","state":{"status":"error" "input":{}, "output":"` + string(make([]byte, 0)) + `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	old := elideBytes
	elideBytes = 16
	defer func() { elideBytes = old }()

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	want, err := s.Load(ctx, "ses_2")
	require.NoError(t, err)
	l := sessions.LazyFor(s, "ses_2")
	require.NotNil(t, l)
	got, _ := outlineAll(t, l, "ses_2", 2)
	assert.ElementsMatch(t, want.Warnings, got.Warnings)
	got.Warnings = want.Warnings
	assert.Equal(t, want.Messages, got.Messages)
	_, err = l.LoadOutline(ctx, "nope", 0, 1)
	assert.ErrorIs(t, err, sessions.ErrNotFound)
}

// TestOutlineMoreMessagesThanSQLVariables: one outline page of more
// messages than SQLite allows variables (32,766) reads their parts. It
// failed with "too many SQL variables" while the page's message ids were
// bound one variable each.
func TestOutlineMoreMessagesThanSQLVariables(t *testing.T) {
	const n = 33_000
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	s := fxSession{id: "ses_big", title: "big", dir: "/home/user/proj", version: "1.18.33", created: 1, updated: 2}
	require.NoError(t, insertSessionErr(db, s))
	tx, err := db.Begin()
	require.NoError(t, err)
	for i := range n {
		mid := fmt.Sprintf("msg_%06d", i)
		_, err := tx.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, 'ses_big', ?, ?, '{"role":"user","time":{"created":1}}')`, mid, i, i)
		require.NoError(t, err)
		_, err = tx.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, 'ses_big', ?, ?, '{"type":"text","text":"hi"}')`, "prt_"+mid, mid, i, i)
		require.NoError(t, err)
	}
	require.NoError(t, tx.Commit())
	require.NoError(t, db.Close())

	st, err := sessions.Open(path)
	require.NoError(t, err)
	defer st.Close()
	p, err := sessions.LazyFor(st, "ses_big").LoadOutline(ctx, "ses_big", 0, 0)
	require.NoError(t, err)
	require.Len(t, p.Session.Messages, n)
	for _, m := range p.Session.Messages {
		require.Len(t, m.Parts, 1, m.ID)
	}
}
