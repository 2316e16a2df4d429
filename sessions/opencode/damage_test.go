package opencode

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// TestDamagedPartPages overwrites leaf pages and an overflow page of the
// part table in a copy of every opencode fixture store (found with the
// dbstat table) and
// checks what correx still shows: every session listed, those that lost
// rows with Damaged set; every part row
// SQLite can still read by its rowid in Load and in the outline (whole and
// paged), outputs included; and the rows it cannot, named in warnings.
func TestDamagedPartPages(t *testing.T) {
	n := 0
	for _, f := range fixtures.All(t) {
		src := filepath.Join(f.Source, "opencode.db")
		if _, err := os.Stat(src); err != nil {
			continue // not a SQLite store
		}
		n++
		t.Run(f.ID(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "opencode.db")
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, b, 0o644))

			s, err := sessions.Open(path)
			require.NoError(t, err)
			before, err := s.List(ctx)
			require.NoError(t, err)
			require.NoError(t, s.Close())

			// every row's rowid, then the damage
			db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
			require.NoError(t, err)
			all := map[int64]partRow{}
			rows, err := db.Query(`SELECT rowid, id, session_id FROM part`)
			require.NoError(t, err)
			for rows.Next() {
				var rowid int64
				var r partRow
				require.NoError(t, rows.Scan(&rowid, &r.id, &r.session))
				all[rowid] = r
			}
			require.NoError(t, rows.Err())
			require.NoError(t, db.Close())
			if !fixtures.DamagePages(t, path, "part") {
				t.Skip("the part table has under three leaf pages: the v2 loop's sessions are in session_message")
			}

			// which rows SQLite can still read, one at a time
			db, err = sql.Open("sqlite", "file:"+path+"?mode=ro")
			require.NoError(t, err)
			lost := map[string]map[string]bool{} // session -> part ids
			for rowid, r := range all {
				var n int
				if err := db.QueryRow(`SELECT length(data) FROM part WHERE rowid = ?`, rowid).Scan(&n); err != nil {
					require.Contains(t, err.Error(), "malformed")
					if lost[r.session] == nil {
						lost[r.session] = map[string]bool{}
					}
					lost[r.session][r.id] = true
				}
			}
			require.NoError(t, db.Close())
			require.NotEmpty(t, lost, "the damage cost rows")

			s, err = sessions.Open(path)
			require.NoError(t, err)
			defer s.Close()
			after, err := s.List(ctx)
			require.NoError(t, err, "a damaged page does not fail the list")
			require.Len(t, after, len(before))
			for i, in := range after {
				want := before[i]
				require.Equal(t, want.ID, in.ID)
				if len(lost[in.ID]) == 0 {
					assert.Equal(t, want, in)
					continue
				}
				assert.NotEmpty(t, in.Damaged, in.ID)
				assert.LessOrEqual(t, in.ToolCalls, want.ToolCalls)
			}
			assertNamed(t, sessions.Warnings(s), lost, "List")

			for _, in := range after {
				sess, err := s.Load(ctx, in.ID)
				require.NoError(t, err)
				assertParts(t, sess, all, lost[in.ID])
				assertNamed(t, sess.Warnings, map[string]map[string]bool{in.ID: lost[in.ID]}, "Load "+in.ID)
				for _, limit := range []int{0, 3} {
					out, _ := outlineAll(t, sessions.LazyFor(s, in.ID), in.ID, limit)
					assertParts(t, out, all, lost[in.ID])
					assertNamed(t, out.Warnings, map[string]map[string]bool{in.ID: lost[in.ID]}, "outline "+in.ID)
				}
			}
		})
	}
	require.Positive(t, n)
}

type partRow struct{ id, session string }

// assertParts checks that sess holds every part of its session but the
// lost ones.
func assertParts(t *testing.T, sess *model.Session, all map[int64]partRow, lost map[string]bool) {
	t.Helper()
	var want, got []string
	for _, r := range all {
		if r.session == sess.Info.ID && !lost[r.id] {
			want = append(want, r.id)
		}
	}
	for _, m := range sess.Messages {
		for _, p := range m.Parts {
			got = append(got, p.ID)
		}
	}
	assert.ElementsMatch(t, want, got, "the readable parts of %s", sess.Info.ID)
}

var (
	oneRow  = regexp.MustCompile(`^table part, row (\S+): unreadable`)
	rowsRun = regexp.MustCompile(`^table part, rows (\S+) to (\S+) \((\d+) rows\): unreadable`)
)

// assertNamed checks that warnings name as many unreadable part rows as
// were lost, each run starting and ending with lost ones.
func assertNamed(t *testing.T, warnings []string, lost map[string]map[string]bool, what string) {
	t.Helper()
	isLost := func(id string) bool {
		for _, ids := range lost {
			if ids[id] {
				return true
			}
		}
		return false
	}
	want, named := 0, 0
	for _, ids := range lost {
		want += len(ids)
	}
	for _, w := range warnings {
		if m := oneRow.FindStringSubmatch(w); m != nil {
			assert.True(t, isLost(m[1]), "%s: %s", what, w)
			named++
		} else if m := rowsRun.FindStringSubmatch(w); m != nil {
			assert.True(t, isLost(m[1]) && isLost(m[2]), "%s: %s", what, w)
			k, _ := strconv.Atoi(m[3])
			named += k
		}
	}
	assert.Equal(t, want, named, "%s names every lost row: %q", what, warnings)
}
