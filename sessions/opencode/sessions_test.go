package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"correx/model"
	"correx/sessions"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var ctx = context.Background()

// stores writes root and child sessions in all three forms and opens them.
func threeStores(t *testing.T) map[string]sessions.Store {
	t.Helper()
	dir := t.TempDir()
	writeDB(t, filepath.Join(dir, "data", "opencode.db"), rootSession(), childSession())
	writeExport(t, filepath.Join(dir, "exports", "ses_2.json"), rootSession())
	writeExport(t, filepath.Join(dir, "exports", "ses_1.json"), childSession())
	writeLegacy(t, filepath.Join(dir, "legacy", "storage"), rootSession(), childSession())
	out := map[string]sessions.Store{}
	for name, p := range map[string]string{
		"db":     filepath.Join(dir, "data", "opencode.db"),
		"export": filepath.Join(dir, "exports"),
		"legacy": filepath.Join(dir, "legacy", "storage"),
	} {
		s, err := sessions.Open(p)
		require.NoError(t, err, name)
		t.Cleanup(func() { s.Close() })
		out[name] = s
	}
	return out
}

func TestLoadMapsEveryField(t *testing.T) {
	for name, s := range threeStores(t) {
		t.Run(name, func(t *testing.T) {
			sess, err := s.Load(ctx, "ses_2")
			require.NoError(t, err)
			in := sess.Info
			assert.Equal(t, "ses_2", in.ID)
			assert.Equal(t, model.AgentOpencode, in.Agent)
			assert.Equal(t, "Oracle scenario", in.Title)
			assert.Equal(t, "/home/user/proj", in.Directory)
			assert.Equal(t, "1.18.33", in.Version)
			assert.Equal(t, "", in.ParentID)
			assert.Equal(t, time.UnixMilli(1700000001000), in.Created)
			assert.Equal(t, time.UnixMilli(1700000009000), in.Updated)
			assert.Equal(t, model.PipelineV1, in.Pipeline)
			assert.Equal(t, [4]int{3, 5, 1, 1}, [4]int{in.Messages, in.ToolCalls, in.Truncated, in.Errors})

			require.Len(t, sess.Messages, 3)
			u, a, e := sess.Messages[0], sess.Messages[1], sess.Messages[2]
			assert.Equal(t, []string{"msg_01", "msg_02", "msg_03"}, []string{u.ID, a.ID, e.ID})

			assert.Equal(t, model.RoleUser, u.Role)
			assert.Equal(t, "oracle-openai", u.ProviderID, "user model comes from model.providerID")
			assert.Equal(t, "oracle-model", u.ModelID)
			assert.Equal(t, "build", u.Agent)
			assert.False(t, u.Summary, "a user summary object is not a compaction summary")
			require.Len(t, u.Parts, 3)
			assert.Equal(t, "Please run the oracle scenario", u.Parts[0].Text)
			assert.False(t, u.Parts[0].Synthetic)
			assert.True(t, u.Parts[1].Synthetic)
			assert.Equal(t, model.PartFile, u.Parts[2].Type)
			assert.Equal(t, &model.File{Mime: "text/plain", Filename: "notes.txt", URL: "file:///home/user/proj/notes.txt"}, u.Parts[2].File)

			assert.Equal(t, model.RoleAssistant, a.Role)
			assert.Equal(t, time.UnixMilli(1700000002000), a.Created)
			assert.Equal(t, time.UnixMilli(1700000003000), a.Completed)
			assert.Equal(t, "tool-calls", a.Finish)
			assert.Equal(t, "", a.Error)
			var types []model.PartType
			var ids []string
			for _, p := range a.Parts {
				types = append(types, p.Type)
				ids = append(ids, p.ID)
			}
			assert.Equal(t, []model.PartType{model.PartStepStart, model.PartReasoning, model.PartText, model.PartTool,
				model.PartTool, model.PartTool, model.PartTool, model.PartStepFinish, model.PartPatch}, types)
			assert.Equal(t, []string{"prt_02a", "prt_02b", "prt_02c", "prt_02d", "prt_02e", "prt_02f", "prt_02g", "prt_02h", "prt_02i"}, ids)
			assert.Equal(t, "thinking…", a.Parts[1].Text)
			assert.JSONEq(t, `{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"enc"}}`, string(a.Parts[1].Metadata))

			bash := a.Parts[3]
			assert.Equal(t, `{"openai":{"itemId":"fc_1"}}`, string(bash.Metadata), "part-level provider metadata")
			tc := bash.Tool
			require.NotNil(t, tc)
			assert.Equal(t, "call_1", tc.CallID)
			assert.Equal(t, "bash", tc.Tool)
			assert.Equal(t, model.StatusCompleted, tc.Status)
			assert.Equal(t, bashInput, string(tc.Input), "input bytes exactly as stored (compact)")
			assert.Equal(t, bashMetadata, string(tc.Metadata))
			assert.True(t, strings.HasPrefix(tc.Output, "...output truncated...\n\nFull output saved to: "))
			assert.Equal(t, "Print numbers", tc.Title)
			assert.Equal(t, time.UnixMilli(1700000002100), tc.Start)
			assert.Equal(t, time.UnixMilli(1700000002900), tc.End)
			assert.False(t, tc.Compacted)
			assert.Empty(t, tc.ChildSessionID)

			rerr := a.Parts[4].Tool
			assert.Equal(t, model.StatusError, rerr.Status)
			assert.Equal(t, "File not found: /home/user/proj/missing.txt", rerr.Error)
			assert.Equal(t, "", rerr.Output)
			assert.Nil(t, rerr.Metadata)

			img := a.Parts[5].Tool
			assert.True(t, img.Compacted)
			assert.Equal(t, []model.File{{Mime: "image/png", URL: "data:image/png;base64,iVBORw0KGgo="}}, img.Attachments)

			task := a.Parts[6].Tool
			assert.Equal(t, "ses_1", task.ChildSessionID)

			assert.True(t, e.Summary)
			assert.Equal(t, "APIError", e.Error)
			assert.True(t, e.Completed.IsZero())
			require.Len(t, e.Parts, 6)
			assert.Equal(t, []model.PartType{model.PartCompaction, model.PartSubtask, model.PartAgent, "retry", "hologram", model.PartTool},
				[]model.PartType{e.Parts[0].Type, e.Parts[1].Type, e.Parts[2].Type, e.Parts[3].Type, e.Parts[4].Type, e.Parts[5].Type})
			assert.Equal(t, model.StatusPending, e.Parts[5].Tool.Status)
			assert.Equal(t, "{}", string(e.Parts[5].Tool.Input))

			warnings := rowWarnings(sess.Warnings)
			require.Len(t, warnings, 1, "%q", warnings)
			assert.Contains(t, warnings[0], "prt_03e")
			assert.Contains(t, warnings[0], `"hologram"`)
		})
	}
}

func TestSourcesLoadEqualSessions(t *testing.T) {
	stores := threeStores(t)
	for _, id := range []string{"ses_2", "ses_1"} {
		var want *model.Session
		for _, name := range []string{"db", "export", "legacy"} {
			got, err := stores[name].Load(ctx, id)
			require.NoError(t, err)
			got.Info.Source, got.Info.DataDir, got.Warnings = "", "", nil
			if want == nil {
				want = got
				continue
			}
			assert.Equal(t, want, got, "%s: %s differs from db", id, name)
		}
	}
}

func TestChildSessionLinks(t *testing.T) {
	for name, s := range threeStores(t) {
		t.Run(name, func(t *testing.T) {
			child, err := s.Load(ctx, "ses_1")
			require.NoError(t, err)
			assert.Equal(t, "ses_2", child.Info.ParentID)
			parent, err := s.Load(ctx, child.Info.ParentID)
			require.NoError(t, err)
			ref, ok := parent.FindCall("call_4")
			require.True(t, ok)
			assert.Equal(t, child.Info.ID, ref.Call.ChildSessionID)
		})
	}
}

func TestList(t *testing.T) {
	stores := threeStores(t)
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			infos, err := s.List(ctx)
			require.NoError(t, err)
			require.Len(t, infos, 2)
			assert.Equal(t, "ses_2", infos[0].ID, "newest Updated first")
			assert.Equal(t, "ses_1", infos[1].ID)
			assert.Equal(t, [4]int{3, 5, 1, 1}, [4]int{infos[0].Messages, infos[0].ToolCalls, infos[0].Truncated, infos[0].Errors})
			assert.Equal(t, [4]int{2, 1, 0, 0}, [4]int{infos[1].Messages, infos[1].ToolCalls, infos[1].Truncated, infos[1].Errors})
			assert.Equal(t, "ses_2", infos[1].ParentID)
			assert.Equal(t, "Find text files (@explore subagent)", infos[1].Title)
			assert.Equal(t, time.UnixMilli(1700000002800), infos[1].Updated)
			assert.Equal(t, model.PipelineV1, infos[0].Pipeline)
			assert.Equal(t, model.AgentOpencode, infos[0].Agent)

			// List and Load agree on the info.
			for _, in := range infos {
				sess, err := s.Load(ctx, in.ID)
				require.NoError(t, err)
				assert.Equal(t, in, sess.Info)
			}
		})
	}
	dbInfos, _ := stores["db"].List(ctx)
	assert.Equal(t, stores["db"].Path(), dbInfos[0].Source)
	assert.Equal(t, filepath.Dir(stores["db"].Path()), dbInfos[0].DataDir)
	legacyInfos, _ := stores["legacy"].List(ctx)
	assert.Equal(t, stores["legacy"].Path(), legacyInfos[0].Source)
	assert.Equal(t, filepath.Dir(stores["legacy"].Path()), legacyInfos[0].DataDir)
	exportInfos, _ := stores["export"].List(ctx)
	assert.Equal(t, filepath.Join(stores["export"].Path(), "ses_2.json"), exportInfos[0].Source)
}

func TestUnknownIDNamesIDAndSource(t *testing.T) {
	for name, s := range threeStores(t) {
		_, err := s.Load(ctx, "ses_nope")
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, sessions.ErrNotFound), name)
		assert.Contains(t, err.Error(), "ses_nope", name)
		assert.Contains(t, err.Error(), s.Path(), name)
	}
}

func TestCorruptDBRowsAreSkippedWithWarnings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, rootSession())
	// A message with bad JSON (its part becomes an orphan), a part with bad
	// JSON, and a part whose state has a field of the wrong type.
	_, err := db.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_04', 'ses_2', 1700000005000, 1, '{"role":"assistant",')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_04a', 'msg_04', 'ses_2', 1, 1, '{"type":"text","text":"x"}')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_02z', 'msg_02', 'ses_2', 1, 1, '{"type":"tool","tool":"bash","state":{"status":"error" "input":{}}}')`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_02y', 'msg_02', 'ses_2', 1, 1, '{"type":"tool","tool":"bash","callID":"c","state":{"status":"error","input":{},"error":"x","time":{"start":"soon"}}}')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(ctx)
	require.NoError(t, err, "a malformed part must not fail the list")
	require.Len(t, infos, 1)
	assert.Equal(t, 4, infos[0].Messages, "rows are counted in SQL")
	assert.Equal(t, 6, infos[0].ToolCalls, "the malformed tool part is not counted")
	assert.Equal(t, 2, infos[0].Errors)

	sess, err := s.Load(ctx, "ses_2")
	require.NoError(t, err)
	assert.Len(t, sess.Messages, 3)
	all := strings.Join(sess.Warnings, "\n")
	assert.Contains(t, all, "table message, row msg_04: bad JSON")
	assert.Contains(t, all, "table part, row prt_02z: bad JSON")
	assert.Contains(t, all, "line 1, column")
	assert.Contains(t, all, "1 part(s) of message msg_04 skipped")
	assert.Contains(t, all, "table part, row prt_02y: json: cannot unmarshal string")
	ref, ok := sess.FindCall("prt_02y")
	require.True(t, ok, "a field of the wrong type keeps the rest of the part")
	assert.Equal(t, "x", ref.Call.Error)
	_, ok = sess.FindCall("prt_02z")
	assert.False(t, ok)
}

func TestCorruptLegacyFilesAreSkippedWithWarnings(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	writeLegacy(t, root, rootSession(), childSession())
	badPart := filepath.Join(root, "part", "msg_02", "prt_02c.json")
	require.NoError(t, os.WriteFile(badPart, []byte("{\n  \"id\": \"prt_02c\",\n  oops\n}"), 0o644))
	badSession := filepath.Join(root, "session", "prj", "ses_1.json")
	require.NoError(t, os.WriteFile(badSession, []byte(`{"id":`), 0o644))

	s, err := sessions.Open(root)
	require.NoError(t, err)
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, "ses_2", infos[0].ID)
	require.Len(t, sessions.Warnings(s), 1)
	assert.Contains(t, sessions.Warnings(s)[0], badSession)

	sess, err := s.Load(ctx, "ses_2")
	require.NoError(t, err)
	assert.Len(t, sess.Messages[1].Parts, 8)
	all := strings.Join(sess.Warnings, "\n")
	assert.Contains(t, all, badPart+": bad JSON, skipped")
	assert.Contains(t, all, "line 3, column 3")
}

func TestExportBadJSONNamesFileAndPosition(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(path, []byte("{\n  \"info\": {\n    \"id\": \"ses_x\",\n    \"title\": tru\n  }\n}"), 0o644))
	_, err := sessions.Open(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "line 4, column")

	// Truncated file.
	writeExport(t, filepath.Join(dir, "cut.json"), rootSession())
	data, _ := os.ReadFile(filepath.Join(dir, "cut.json"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cut.json"), data[:len(data)/2], 0o644))
	_, err = sessions.Open(filepath.Join(dir, "cut.json"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unexpected end of JSON input")

	// Valid JSON of another shape.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"files":[]}`), 0o644))
	_, err = sessions.Open(filepath.Join(dir, "other.json"))
	require.ErrorIs(t, err, errNoExports)
}

func TestExportWithStderrBanner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ses_1.txt")
	require.NoError(t, os.WriteFile(path, []byte("Exporting session: ses_1\n"+exportJSON(childSession())), 0o644))
	s, err := sessions.Open(path)
	require.NoError(t, err)
	sess, err := s.Load(ctx, "ses_1")
	require.NoError(t, err)
	assert.Len(t, sess.Messages, 2)
}

func TestExportDirSkipsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, filepath.Join(dir, "a.json"), rootSession())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "storage-files.json"), []byte(`[{"path":"x","size":1}]`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"info":`), 0o644))
	s, err := sessions.Open(dir)
	require.NoError(t, err)
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	require.Len(t, sessions.Warnings(s), 1, "only the broken file is worth a warning")
	assert.Contains(t, sessions.Warnings(s)[0], filepath.Join(dir, "broken.json"))
	// A session added after Open is found by Load.
	writeExport(t, filepath.Join(dir, "b.json"), childSession())
	sess, err := s.Load(ctx, "ses_1")
	require.NoError(t, err)
	assert.Equal(t, "ses_2", sess.Info.ParentID)
}

func TestDBWithoutV2Table(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, childSession())
	_, err := db.Exec("DROP TABLE session_message")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, 2, infos[0].Messages)
	_, err = s.Load(ctx, "ses_1")
	require.NoError(t, err)
}

func TestOpenDetectsTheSource(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeDB(t, filepath.Join(data, "opencode.db"), rootSession())
	writeLegacy(t, filepath.Join(data, "storage"), childSession()) // migrated leftovers: ignored
	writeLegacy(t, filepath.Join(dir, "old", "storage"), childSession())
	writeExport(t, filepath.Join(dir, "exports", "x.json"), childSession())
	writeDB(t, filepath.Join(dir, "chan", "opencode.db"), rootSession())
	writeDB(t, filepath.Join(dir, "chan", "opencode-beta.db"), childSession())
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644))

	cases := []struct {
		path string
		ids  []string
	}{
		{data, []string{"ses_2"}},
		{filepath.Join(data, "opencode.db"), []string{"ses_2"}},
		{filepath.Join(dir, "old"), []string{"ses_1"}},
		{filepath.Join(dir, "old", "storage"), []string{"ses_1"}},
		{filepath.Join(dir, "exports"), []string{"ses_1"}},
		{filepath.Join(dir, "exports", "x.json"), []string{"ses_1"}},
		{filepath.Join(dir, "chan"), []string{"ses_2", "ses_1"}},
	}
	for _, c := range cases {
		s, err := sessions.Open(c.path)
		require.NoError(t, err, c.path)
		infos, err := s.List(ctx)
		require.NoError(t, err, c.path)
		var ids []string
		for _, in := range infos {
			ids = append(ids, in.ID)
			_, err := s.Load(ctx, in.ID)
			require.NoError(t, err, c.path)
		}
		assert.Equal(t, c.ids, ids, c.path)
		require.NoError(t, s.Close())
	}
	for _, bad := range []string{filepath.Join(dir, "empty"), filepath.Join(dir, "notes.txt"), filepath.Join(dir, "missing")} {
		_, err := sessions.Open(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), bad)
	}
}

func TestCombineDedupsAndRoutesLoad(t *testing.T) {
	stores := threeStores(t)
	c := sessions.Combine(stores["db"], stores["legacy"])
	infos, err := c.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, stores["db"].Path(), infos[0].Source, "first store wins")
	sess, err := c.Load(ctx, "ses_1")
	require.NoError(t, err)
	assert.Equal(t, stores["db"].Path(), sess.Info.Source)
	_, err = c.Load(ctx, "ses_nope")
	assert.ErrorIs(t, err, sessions.ErrNotFound)
}

func TestDiscover(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("OPENCODE_DB", "")
	assert.Empty(t, sessions.Discover())

	data := filepath.Join(home, ".local", "share", "opencode")
	writeLegacy(t, filepath.Join(data, "storage"), childSession())
	assert.Equal(t, []string{filepath.Join(data, "storage")}, sessions.Discover(), "legacy only while there is no db")

	writeDB(t, filepath.Join(data, "opencode.db"), rootSession())
	writeDB(t, filepath.Join(data, "opencode-beta.db"), rootSession())
	assert.Equal(t, []string{filepath.Join(data, "opencode.db"), filepath.Join(data, "opencode-beta.db")}, sessions.Discover())

	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	writeDB(t, filepath.Join(xdg, "opencode", "custom.db"), rootSession())
	t.Setenv("OPENCODE_DB", "custom.db") // relative to the data dir, as opencode resolves it
	assert.Equal(t, []string{filepath.Join(xdg, "opencode", "custom.db")}, sessions.Discover())
	t.Setenv("OPENCODE_DB", filepath.Join(data, "opencode.db"))
	assert.Equal(t, []string{filepath.Join(data, "opencode.db")}, sessions.Discover())

	stores, errs := sessions.OpenAll(append(sessions.Discover(), filepath.Join(home, "missing")))
	assert.Len(t, stores, 1)
	assert.Len(t, errs, 1)
	sessions.Combine(stores...).Close()
}

// TestImmutableFallback makes the read-only open fail the way a read-only
// directory does (the -shm cannot be opened: here a symlink loop, since
// tests may run as root) and expects the immutable open with a warning.
func TestImmutableFallback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	writeDB(t, path, rootSession())
	require.NoError(t, os.Symlink(filepath.Base(path)+"-shm", path+"-shm"))
	require.NoError(t, os.WriteFile(path+"-wal", nil, 0o644)) // both there: the normal open is tried

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.Len(t, sessions.Warnings(s), 1)
	assert.Contains(t, sessions.Warnings(s)[0], "immutable=1")
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	sess, err := s.Load(ctx, "ses_2")
	require.NoError(t, err)
	assert.Contains(t, sess.Warnings[0], "immutable=1")
}

// TestWALWithoutItsFiles opens a WAL database that opencode left without
// -wal and -shm: immutable, and nothing created beside it; no notice, since
// opencode checkpointed before removing them and the file is complete;
// once opencode runs again (both files exist) the store reopens read-only
// and sees its commits.
func TestWALWithoutItsFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	writeDB(t, path, rootSession())
	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Empty(t, sessions.Warnings(s))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only opencode.db")

	writer := openTestDB(t, path) // opencode starts: -wal and -shm appear
	defer writer.Close()
	insertSession(t, writer, childSession())
	infos, err = s.List(ctx)
	require.NoError(t, err)
	assert.Len(t, infos, 2, "the writer's commit, seen after the reopen")
	assert.Empty(t, sessions.Warnings(s))
}

// TestWALWithoutItsShm opens a copy of a WAL database and its -wal, which
// holds commits, without the -shm: immutable, and the notice says those
// commits are not read.
func TestWALWithoutItsShm(t *testing.T) {
	src := filepath.Join(t.TempDir(), "opencode.db")
	writeDB(t, src, rootSession())
	writer := openTestDB(t, src)
	defer writer.Close()
	insertSession(t, writer, childSession()) // stays in the -wal while writer is open
	wal, err := os.ReadFile(src + "-wal")
	require.NoError(t, err)
	require.NotEmpty(t, wal)
	db, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	require.NoError(t, os.WriteFile(path, db, 0o644))
	require.NoError(t, os.WriteFile(path+"-wal", wal, 0o644))

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.List(ctx)
	require.NoError(t, err)
	require.Len(t, sessions.Warnings(s), 1)
	assert.Contains(t, sessions.Warnings(s)[0], "commits in its -wal file are not read")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no -shm created")
}

func TestStoreNeverWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	writeDB(t, path, rootSession(), childSession())
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	s, err := openSQLite(path, Options{})
	require.NoError(t, err)
	_, err = s.c().db.Exec(`DELETE FROM part`)
	require.Error(t, err, "the connection must refuse writes")
	_, err = s.List(ctx)
	require.NoError(t, err)
	_, err = s.Load(ctx, "ses_2")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	_, err = os.Stat(path + "-wal")
	if err == nil {
		st, _ := os.Stat(path + "-wal")
		assert.Zero(t, st.Size(), "no WAL frames written")
	}
}

func TestRawJSONIsCompactAndKeepsBytes(t *testing.T) {
	in := "{\n  \"b\": [1, 2.50, \"x y\\u0001é\"],\n  \"a\": {}\n}"
	assert.Equal(t, `{"b":[1,2.50,"x y\u0001é"],"a":{}}`, string(rawJSON(json.RawMessage(in))))
	assert.Nil(t, rawJSON(json.RawMessage("null")))
	assert.Nil(t, rawJSON(nil))
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\nef")
	for _, c := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 1}, {2, 1, 2}, {4, 2, 1}, {5, 2, 2}, {8, 3, 2}, {100, 3, 2}} {
		l, col := lineCol(data, c.off)
		assert.Equal(t, [2]int{c.line, c.col}, [2]int{l, col}, "offset %d", c.off)
	}
}

func TestOpenRelativeAndOddPaths(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a dir?#%", "data")
	writeDB(t, filepath.Join(odd, "opencode.db"), rootSession())
	t.Chdir(filepath.Join(dir, "a dir?#%"))
	for _, p := range []string{"data", "data/opencode.db", "./data/../data/opencode.db"} {
		s, err := sessions.Open(p)
		require.NoError(t, err, p)
		infos, err := s.List(ctx)
		require.NoError(t, err, p)
		require.Len(t, infos, 1)
		assert.Equal(t, filepath.Join(odd, "opencode.db"), infos[0].Source)
		require.NoError(t, s.Close())
	}
}

// TestOpenStoreOfAFork: a fork's opencode-layout database (Kilo's kilo.db)
// lists (quickly too) and loads its sessions as the fork's, with spills looked up in the
// fork's data dir; OpenStore with no options is opencode's reader.
func TestOpenStoreOfAFork(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kilo.db")
	writeDB(t, path, rootSession(), childSession())
	data := filepath.Join(dir, "elsewhere")
	for _, c := range []struct {
		opts    Options
		agent   model.Agent
		dataDir string
	}{
		{Options{Agent: "kilo", DataDir: data}, "kilo", data},
		{Options{}, model.AgentOpencode, dir},
	} {
		s, err := OpenStore(path, c.opts)
		require.NoError(t, err)
		infos, err := s.List(ctx)
		require.NoError(t, err)
		require.Len(t, infos, 2)
		quick, ok, err := sessions.ListQuick(ctx, s)
		require.True(t, ok)
		require.NoError(t, err)
		for _, in := range quick {
			assert.Equal(t, c.agent, in.Agent, in.ID)
			assert.Equal(t, c.dataDir, in.DataDir, in.ID)
		}
		for _, in := range infos {
			assert.Equal(t, c.agent, in.Agent, in.ID)
			assert.Equal(t, c.dataDir, in.DataDir, in.ID)
			sess, err := s.Load(ctx, in.ID)
			require.NoError(t, err)
			assert.Equal(t, c.agent, sess.Info.Agent, in.ID)
			assert.Equal(t, c.dataDir, sess.Info.DataDir, in.ID)
			page, err := sessions.LazyFor(s, in.ID).LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			assert.Equal(t, c.agent, page.Session.Info.Agent, in.ID)
		}
		require.NoError(t, s.Close())
	}
}
