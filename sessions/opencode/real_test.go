package opencode

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"correx/model"
	"correx/sessions"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests against the recordings of real opencode runs under
// testdata/opencode/<flavour>/ (data/opencode.db or data/storage,
// data/tool-output/, exports/*.json). Flavours not recorded yet are skipped.

const realRoot = "../../testdata/opencode"

type realFlavour struct {
	name, dataDir, exports string
}

func realFlavours(t *testing.T) []realFlavour {
	t.Helper()
	entries, err := os.ReadDir(realRoot)
	if err != nil {
		t.Skip("no recordings under " + realRoot)
	}
	var out []realFlavour
	for _, e := range entries {
		dir := filepath.Join(realRoot, e.Name())
		f := realFlavour{name: e.Name(), dataDir: filepath.Join(dir, "data"), exports: filepath.Join(dir, "exports")}
		if len(dataDirDBs(f.dataDir)) > 0 || sessions.IsDir(filepath.Join(f.dataDir, "storage", "session")) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Skip("no recordings under " + realRoot)
	}
	return out
}

// loadAll lists the store and loads every session; List and Load must agree
// on the infos.
func loadAll(t *testing.T, s sessions.Store) map[string]*model.Session {
	t.Helper()
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, infos)
	out := map[string]*model.Session{}
	for _, in := range infos {
		sess, err := s.Load(ctx, in.ID)
		require.NoError(t, err)
		assert.Equal(t, in, sess.Info, "List and Load infos of %s", in.ID)
		out[in.ID] = sess
	}
	return out
}

func TestRealRecordings(t *testing.T) {
	for _, f := range realFlavours(t) {
		t.Run(f.name, func(t *testing.T) {
			store, err := sessions.Open(f.dataDir)
			require.NoError(t, err)
			defer store.Close()
			assert.Empty(t, sessions.Warnings(store))
			loaded := loadAll(t, store)
			if v2Recording(loaded) {
				checkV2Recording(t, f, loaded)
				return
			}

			var sawChild, sawTruncated bool
			for id, sess := range loaded {
				if sess.Info.Pipeline == model.PipelineV2 {
					continue
				}
				assert.Empty(t, sess.Warnings, "warnings of %s", id)
				assert.NotEmpty(t, sess.Messages, id)
				assert.Equal(t, model.AgentOpencode, sess.Info.Agent)
				assert.NotEmpty(t, sess.Info.Version)
				assert.False(t, sess.Info.Created.IsZero())
				abs, _ := filepath.Abs(f.dataDir)
				assert.Equal(t, abs, sess.Info.DataDir)
				for _, m := range sess.Messages {
					assert.Contains(t, []model.Role{model.RoleUser, model.RoleAssistant}, m.Role)
					assert.False(t, m.Created.IsZero(), m.ID)
				}
				for _, ref := range sess.ToolCalls() {
					c := ref.Call
					assert.NotEmpty(t, c.CallID)
					assert.NotEmpty(t, c.Tool)
					assert.True(t, json.Valid(c.Input), "input of %s", c.CallID)
					if c.Status == model.StatusCompleted || c.Status == model.StatusError {
						assert.False(t, c.Start.IsZero(), c.CallID)
					}
					// A spilled output is in the data dir's tool-output/.
					var meta struct {
						OutputPath string `json:"outputPath"`
					}
					if json.Unmarshal(c.Metadata, &meta) == nil && meta.OutputPath != "" {
						sawTruncated = true
						spill := filepath.Join(sess.Info.DataDir, "tool-output", filepath.Base(meta.OutputPath))
						_, err := os.Stat(spill)
						assert.NoError(t, err, "spill file of %s", c.CallID)
					}
				}
				if sess.Info.ParentID == "" {
					continue
				}
				sawChild = true
				parent, ok := loaded[sess.Info.ParentID]
				require.True(t, ok, "parent %s of %s", sess.Info.ParentID, id)
				var linked bool
				for _, ref := range parent.ToolCalls() {
					if ref.Call.ChildSessionID == id {
						linked = true
						assert.Equal(t, "task", ref.Call.Tool)
					}
				}
				assert.True(t, linked, "no task call of %s links to %s", sess.Info.ParentID, id)
			}
			assert.True(t, sawChild, "the scenario runs a subagent")
			assert.True(t, sawTruncated, "the scenario spills an output")

			// Tool inputs are byte-identical to the stored JSON (legacy
			// files are pretty-printed: there, up to insignificant spaces).
			if dbs := dataDirDBs(f.dataDir); len(dbs) > 0 {
				checkInputsAreStoredBytes(t, dbs[0], loaded)
			} else {
				checkLegacyInputs(t, filepath.Join(f.dataDir, "storage"), loaded)
			}

			// The exports load to the same sessions.
			if !sessions.IsDir(f.exports) {
				return
			}
			exp, err := sessions.Open(f.exports)
			require.NoError(t, err)
			exported := loadAll(t, exp)
			for id, e := range exported {
				s, ok := loaded[id]
				if !assert.True(t, ok, "exported session %s is in the store", id) {
					continue
				}
				a, b := *s, *e
				a.Info.Source, a.Info.DataDir, a.Warnings = "", "", nil
				b.Info.Source, b.Info.DataDir, b.Warnings = "", "", nil
				if s.Info.Pipeline == model.PipelineV2 {
					// An export of a v2 session has no messages.
					a.Info.Pipeline, a.Info.Messages = model.PipelineV1, 0
				}
				assert.Equal(t, a, b, "store and export of %s", id)
			}
		})
	}
}

// checkInputsAreStoredBytes finds every loaded tool input, byte for byte,
// inside its part row's data.
func checkInputsAreStoredBytes(t *testing.T, dbPath string, loaded map[string]*model.Session) {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteDSN(dbPath, false))
	require.NoError(t, err)
	defer db.Close()
	n := 0
	for _, sess := range loaded {
		for _, ref := range sess.ToolCalls() {
			pid := sess.Messages[ref.Message].Parts[ref.Part].ID
			var data []byte
			require.NoError(t, db.QueryRow(`SELECT data FROM part WHERE id = ?`, pid).Scan(&data))
			assert.True(t, bytes.Contains(data, append([]byte(`"input":`), ref.Call.Input...)),
				"input of %s is not the stored bytes: %s", pid, ref.Call.Input)
			n++
		}
	}
	assert.Positive(t, n)
	t.Logf("%d tool inputs checked byte for byte", n)
}

// TestRealSchemaMatchesTestSchema compares the recorded database's schema
// for the tables read here with the one the synthetic tests build.
func TestRealSchemaMatchesTestSchema(t *testing.T) {
	for _, f := range realFlavours(t) {
		dbs := dataDirDBs(f.dataDir)
		if len(dbs) == 0 {
			continue
		}
		real := tableColumns(t, dbs[0])
		synth := tableColumns(t, func() string {
			p := filepath.Join(t.TempDir(), "x.db")
			writeDB(t, p)
			return p
		}())
		for _, table := range []string{"session", "message", "part", "session_message"} {
			assert.Equal(t, real[table], synth[table], "%s: columns of %s", f.name, table)
		}
	}
}

func tableColumns(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", sqliteDSN(path, false))
	require.NoError(t, err)
	defer db.Close()
	out := map[string]string{}
	for _, table := range []string{"session", "message", "part", "session_message"} {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
		require.NoError(t, err)
		var cols []string
		for rows.Next() {
			var c string
			require.NoError(t, rows.Scan(&c))
			cols = append(cols, c)
		}
		rows.Close()
		out[table] = strings.Join(cols, ",")
		rows, err = db.Query(`SELECT name FROM pragma_index_list(?) WHERE origin = 'c' ORDER BY name`, table)
		require.NoError(t, err)
		var idx []string
		for rows.Next() {
			var c string
			require.NoError(t, rows.Scan(&c))
			idx = append(idx, c)
		}
		rows.Close()
		out[table] += " indexes " + strings.Join(idx, ",")
	}
	return out
}

func checkLegacyInputs(t *testing.T, root string, loaded map[string]*model.Session) {
	t.Helper()
	n := 0
	for _, sess := range loaded {
		for _, ref := range sess.ToolCalls() {
			m := sess.Messages[ref.Message]
			data, err := os.ReadFile(filepath.Join(root, "part", m.ID, m.Parts[ref.Part].ID+".json"))
			require.NoError(t, err)
			var p struct {
				State struct {
					Input json.RawMessage `json:"input"`
				} `json:"state"`
			}
			require.NoError(t, json.Unmarshal(data, &p))
			var want bytes.Buffer
			require.NoError(t, json.Compact(&want, p.State.Input))
			assert.Equal(t, want.String(), string(ref.Call.Input))
			n++
		}
	}
	assert.Positive(t, n)
	t.Logf("%d legacy tool inputs checked", n)
}
