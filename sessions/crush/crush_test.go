package crush

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/sessions"
)

// crushSchema is the part of Crush v0.90.0's schema the reader uses
// (internal/db/migrations).
const crushSchema = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
	prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
	updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]',
	model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
	is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
	version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
`

// makeDB writes a database at path from its schema and rows.
func makeDB(t *testing.T, path, schema string, stmts ...string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	for _, s := range append([]string{schema}, stmts...) {
		_, err := db.Exec(s)
		require.NoError(t, err, s)
	}
}

// crushProject is a project dir whose .crush/crush.db holds one session:
// a prompt, a step calling bash, its result (parts as given) and a final
// step.
func crushProject(t *testing.T, resultParts string) string {
	proj := t.TempDir()
	makeDB(t, filepath.Join(proj, ".crush", "crush.db"), crushSchema,
		`INSERT INTO sessions (id, title, message_count, created_at, updated_at) VALUES ('s1', 'A title', 4, 1764630000000, 1764630009000)`,
		`INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m1', 's1', 'user', '[{"type":"text","data":{"text":"hi"}}]', 1764630001000, 1764630001000)`,
		`INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) VALUES ('m2', 's1', 'assistant',
			'[{"type":"tool_call","data":{"id":"call_1","name":"bash","input":"{\"command\":\"false\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1}}]',
			'm', 'p', 1764630002000, 1764630002000)`,
		`INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m3', 's1', 'tool', '`+resultParts+`', 1764630003000, 1764630003000)`,
		`INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) VALUES ('m4', 's1', 'assistant',
			'[{"type":"text","data":{"text":"Done."}},{"type":"finish","data":{"reason":"end_turn","time":1}}]', 'm', 'p', 1764630004000, 1764630004000)`,
	)
	return proj
}

const failedResult = `[{"type":"tool_result","data":{"tool_call_id":"call_1","name":"bash","content":"\nexit status 1\nExit code 1\n\n<cwd>/p</cwd>","data":"","mime_type":"","metadata":"{\"output\":\"\"}","is_error":false}}]`

// A project dir, its .crush dir and crush.db itself all open the store;
// the session reads with the result on its call, as sent, and the agent's
// is_error kept (false for a failing command).
func TestOpenProjectDataDirAndDB(t *testing.T) {
	proj := crushProject(t, failedResult)
	for _, p := range []string{proj, filepath.Join(proj, ".crush"), filepath.Join(proj, ".crush", "crush.db")} {
		st, err := sessions.Open(p)
		require.NoError(t, err, p)
		infos, err := st.List(context.Background())
		require.NoError(t, err)
		require.Len(t, infos, 1, p)
		assert.Equal(t, Agent, infos[0].Agent)
		assert.Equal(t, proj, infos[0].Directory)
		sess, err := st.Load(context.Background(), "s1")
		require.NoError(t, err)
		assert.Empty(t, sess.Warnings)
		ref, ok := sess.FindCall("call_1")
		require.True(t, ok)
		assert.Equal(t, model.StatusCompleted, ref.Call.Status)
		require.NotNil(t, ref.Call.Sent)
		assert.Equal(t, "\nexit status 1\nExit code 1\n\n<cwd>/p</cwd>", ref.Call.Sent.Text)
		st.Close()
	}
}

// An opencode database (and Kilo's, opencode-style) is not Crush's, even
// named crush.db: its tables are session/message/part.
func TestOpencodeDBNotClaimed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "crush.db")
	makeDB(t, db, `CREATE TABLE session (id TEXT PRIMARY KEY); CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);
		CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, data TEXT); CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, parts TEXT,
		model TEXT, provider TEXT, created_at INTEGER, updated_at INTEGER, finished_at INTEGER); CREATE TABLE sessions (id TEXT);`)
	for _, p := range []string{db, dir} {
		_, ok, err := open(p, p == dir)
		assert.NoError(t, err)
		assert.False(t, ok, p)
	}
	other := filepath.Join(t.TempDir(), "opencode.db")
	makeDB(t, other, `CREATE TABLE session (id TEXT PRIMARY KEY); CREATE TABLE message (id TEXT); CREATE TABLE part (id TEXT);`)
	_, ok, err := open(other, false)
	assert.NoError(t, err)
	assert.False(t, ok)
}

// A message whose parts are not JSON is named (file and message id) and
// left out; the rest of the session reads.
func TestDamagedPartsNamed(t *testing.T) {
	proj := crushProject(t, `[{"type":"tool_result","data":{"tool_call_id":`)
	st, err := sessions.Open(proj)
	require.NoError(t, err)
	defer st.Close()
	sess, err := st.Load(context.Background(), "s1")
	require.NoError(t, err)
	require.Len(t, sess.Warnings, 1)
	assert.Contains(t, sess.Warnings[0], filepath.Join(proj, ".crush", "crush.db"))
	assert.Contains(t, sess.Warnings[0], "message m3")
	ref, ok := sess.FindCall("call_1")
	require.True(t, ok)
	// no result: Crush sends its placeholder for the interrupted call
	assert.Equal(t, interruptedResult, ref.Call.Sent.Text)
}

// Discovery: the current directory's .crush/crush.db and every project in
// $CRUSH_GLOBAL_DATA/projects.json; a listed project without a database
// is left out.
func TestLocations(t *testing.T) {
	here := crushProject(t, failedResult)
	listed := crushProject(t, failedResult)
	global := t.TempDir()
	list := `{"projects":[{"path":"` + listed + `","data_dir":"` + filepath.Join(listed, ".crush") + `"},{"path":"/nonexistent","data_dir":"/nonexistent/.crush"}]}`
	require.NoError(t, os.WriteFile(filepath.Join(global, "projects.json"), []byte(list), 0o600))
	t.Setenv("CRUSH_GLOBAL_DATA", global)
	t.Chdir(here)
	got := locations()
	assert.Equal(t, []string{filepath.Join(here, ".crush", "crush.db"), filepath.Join(listed, ".crush", "crush.db")}, got)
	// and sessions.Discover lists them
	found := strings.Join(sessions.Discover(), "\n")
	assert.Contains(t, found, filepath.Join(listed, ".crush", "crush.db"))
}
