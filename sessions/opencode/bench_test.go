package opencode

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"correx/sessions"
)

// buildBigDB writes sessions×(messages of partsPerMsg parts) with the real
// schema: per assistant step a step-start, a text, two tool parts (a few KB
// of output; every 10th truncated, every 7th an error) and a step-finish.
func buildBigDB(tb testing.TB, path string, nSessions, msgsPerSession int) {
	tb.Helper()
	db := openTestDB(tb, path)
	defer db.Close()
	tx, err := db.Begin()
	require.NoError(tb, err)
	ins := func(q string, args ...any) {
		_, err := tx.Exec(q, args...)
		require.NoError(tb, err)
	}
	ins("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('prj', '/home/user/proj', 'git', 1, 1, '[]')")
	output := strings.Repeat("line of tool output with some text in it\\n", 60) // ~2.5 KB
	base := int64(1700000000000)
	n := 0
	for s := 0; s < nSessions; s++ {
		sid := fmt.Sprintf("ses_%06d", s)
		t0 := base + int64(s)*100000
		ins(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'prj', 'slug', '/home/user/proj', ?, '1.18.33', ?, ?)`,
			sid, fmt.Sprintf("Session %d", s), t0, t0+int64(s%97)*1000)
		for m := 0; m < msgsPerSession; m++ {
			mid := fmt.Sprintf("msg_%06d_%02d", s, m)
			mt := t0 + int64(m)*1000
			ins(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, mid, sid, mt, mt,
				fmt.Sprintf(`{"parentID":"msg_%06d_00","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/home/user/proj","root":"/home/user/proj"},"cost":0,"tokens":{"total":10,"input":5,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"oracle-model","providerID":"oracle-openai","time":{"created":%d,"completed":%d},"finish":"tool-calls"}`, s, mt, mt+500))
			parts := []string{
				`{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}`,
				`{"type":"text","text":"I will now run a couple of tools to look at the project.","time":{"start":1,"end":2}}`,
			}
			for k := 0; k < 2; k++ {
				n++
				status, trunc, out := "completed", "false", `"output":"`+output+`"`
				if n%7 == 0 {
					status, out = "error", `"error":"File not found: /home/user/proj/missing.txt"`
				}
				if n%10 == 0 {
					trunc = "true"
				}
				parts = append(parts, fmt.Sprintf(`{"type":"tool","tool":"bash","callID":"call_%d","state":{"status":"%s","input":{"command":"ls -la","description":"List files"},%s,"metadata":{"output":"x","exit":0,"description":"List files","truncated":%s},"title":"List files","time":{"start":%d,"end":%d}}}`,
					n, status, out, trunc, mt, mt+10))
			}
			parts = append(parts, `{"type":"step-finish","reason":"tool-calls","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}`)
			for p, data := range parts {
				ins(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
					fmt.Sprintf("prt_%06d_%02d_%d", s, m, p), mid, sid, mt, mt, data)
			}
		}
	}
	require.NoError(tb, tx.Commit())
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	require.NoError(tb, err)
}

// BenchmarkList2000 lists 2000 sessions of 20 parts each (4 steps × 5
// parts; 40000 part rows, a 61 MB db). It reports the median list time.
func BenchmarkList2000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "opencode.db")
	buildBigDB(b, path, 2000, 4)
	s, err := sessions.Open(path)
	require.NoError(b, err)
	defer s.Close()
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		infos, err := s.List(context.Background())
		times = append(times, time.Since(start))
		if err != nil || len(infos) != 2000 {
			b.Fatalf("list: %d sessions, %v", len(infos), err)
		}
		if infos[0].ToolCalls != 8 || infos[0].Messages != 4 {
			b.Fatalf("counts: %+v", infos[0])
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// TestList2000 lists the 2000-session database of BenchmarkList2000 (which
// measures the time) and checks what it lists: every session, newest
// first, with its counts.
func TestList2000(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds a 2000-session database (slow under -race)")
	}
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildBigDB(t, path, 2000, 4)
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(context.Background())
	require.NoError(t, err)
	require.Len(t, infos, 2000)
	seen := map[string]bool{}
	var trunc, errs int
	for i, in := range infos {
		require.False(t, seen[in.ID], "listed twice: %s", in.ID)
		seen[in.ID] = true
		require.Equal(t, 4, in.Messages, in.ID)
		require.Equal(t, 8, in.ToolCalls, in.ID)
		if i > 0 {
			require.False(t, in.Updated.After(infos[i-1].Updated), "not newest first at %d", i)
		}
		trunc += in.Truncated
		errs += in.Errors
	}
	require.Equal(t, 1600, trunc) // 16000 tool parts, every 10th truncated
	require.Equal(t, 2285, errs)  // every 7th an error
}

// Count check for the SQL aggregation on the big db against Load.
func TestListCountsMatchLoadOnBigDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildBigDB(t, path, 30, 4)
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(context.Background())
	require.NoError(t, err)
	var trunc, errs int
	for _, in := range infos {
		sess, err := s.Load(context.Background(), in.ID)
		require.NoError(t, err)
		require.Equal(t, in, sess.Info, in.ID)
		trunc += in.Truncated
		errs += in.Errors
	}
	require.Equal(t, 24, trunc) // 240 tool parts, every 10th truncated
	require.Equal(t, 34, errs)  // every 7th an error
}

// buildBigLegacy writes the sessions of buildBigDB as legacy storage files.
func buildBigLegacy(tb testing.TB, root string, nSessions, msgsPerSession int) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "src.db")
	buildBigDB(tb, path, nSessions, msgsPerSession)
	s, err := sessions.Open(path)
	require.NoError(tb, err)
	defer s.Close()
	st := s.(*sqliteStore)
	rows, err := st.c().db.Query(`SELECT id, title, time_created, time_updated FROM session`)
	require.NoError(tb, err)
	var ss []fxSession
	for rows.Next() {
		var f fxSession
		require.NoError(tb, rows.Scan(&f.id, &f.title, &f.created, &f.updated))
		f.dir, f.version = "/home/user/proj", "1.1.65"
		ss = append(ss, f)
	}
	rows.Close()
	for i := range ss {
		mrows, err := st.c().db.Query(`SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY id`, ss[i].id)
		require.NoError(tb, err)
		for mrows.Next() {
			var m fxMsg
			require.NoError(tb, mrows.Scan(&m.id, &m.created, &m.data))
			ss[i].msgs = append(ss[i].msgs, m)
		}
		mrows.Close()
		for j := range ss[i].msgs {
			prows, err := st.c().db.Query(`SELECT id, data FROM part WHERE message_id = ? ORDER BY id`, ss[i].msgs[j].id)
			require.NoError(tb, err)
			for prows.Next() {
				var p fxPart
				require.NoError(tb, prows.Scan(&p.id, &p.data))
				ss[i].msgs[j].parts = append(ss[i].msgs[j].parts, p)
			}
			prows.Close()
		}
	}
	writeLegacy(tb, root, ss...)
}

// BenchmarkLegacyList500 lists a legacy storage dir of 500 sessions of 20
// parts each (10000 part files, read for the tool counts).
func BenchmarkLegacyList500(b *testing.B) {
	root := filepath.Join(b.TempDir(), "storage")
	buildBigLegacy(b, root, 500, 4)
	s, err := sessions.Open(root)
	require.NoError(b, err)
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		infos, err := s.List(context.Background())
		times = append(times, time.Since(start))
		if err != nil || len(infos) != 500 || infos[0].ToolCalls != 8 {
			b.Fatalf("list: %d sessions, %v", len(infos), err)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}
