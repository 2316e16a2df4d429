package opencode

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Synthetic opencode sessions, written in the three stored forms (db rows,
// export files, legacy storage) from one description, so the tests can check
// that every source maps to the same model.

// schemaSQL is the part of opencode 1.18.33's schema the store reads (the
// tables and their indexes as drizzle creates them; checked against the
// recordings by TestRealSchemaMatchesTestSchema).
const schemaSQL = "" +
	"CREATE TABLE IF NOT EXISTS `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_url_override` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);\n" +
	"CREATE TABLE IF NOT EXISTS `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer, CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE IF NOT EXISTS `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE IF NOT EXISTS `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE IF NOT EXISTS `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `type` text NOT NULL, `seq` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE INDEX IF NOT EXISTS `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX IF NOT EXISTS `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX IF NOT EXISTS `part_session_idx` ON `part` (`session_id`);\n" +
	"CREATE UNIQUE INDEX IF NOT EXISTS `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_message_session_type_seq_idx` ON `session_message` (`session_id`,`type`,`seq`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_message_session_time_created_id_idx` ON `session_message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_message_time_created_idx` ON `session_message` (`time_created`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_project_idx` ON `session` (`project_id`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_workspace_idx` ON `session` (`workspace_id`);\n" +
	"CREATE INDEX IF NOT EXISTS `session_parent_idx` ON `session` (`parent_id`);\n"

type fxPart struct {
	id   string
	data string // compact JSON without ids, as in part.data
}

type fxMsg struct {
	id      string
	created int64
	data    string // compact JSON without ids, as in message.data
	parts   []fxPart
}

type fxSession struct {
	id, parent, title, dir, version string
	created, updated                int64
	msgs                            []fxMsg
}

// Input of call_1: key order not sorted, a number that JSON.stringify would
// not write, escapes and non-ASCII: a re-encoding would change its bytes.
const bashInput = `{"zeta":"seq 1 100000; sleep 1","alpha":{"y":2,"b":[1,2.50,"é\u0001"]},"description":"Print numbers"}`

const bashMetadata = `{"output":"1\n2\n","exit":0,"description":"Print numbers","truncated":true,"outputPath":"/home/user/.local/share/opencode/tool-output/tool_1"}`

func rootSession() fxSession {
	return fxSession{
		id: "ses_2", title: "Oracle scenario", dir: "/home/user/proj", version: "1.18.33",
		created: 1700000001000, updated: 1700000009000,
		msgs: []fxMsg{
			{id: "msg_01", created: 1700000001000,
				data: `{"role":"user","time":{"created":1700000001000},"summary":{"diffs":[]},"agent":"build","model":{"providerID":"oracle-openai","modelID":"oracle-model"}}`,
				parts: []fxPart{
					{"prt_01a", `{"type":"text","text":"Please run the oracle scenario"}`},
					{"prt_01b", `{"type":"text","text":"(synthetic note)","synthetic":true}`},
					{"prt_01c", `{"type":"file","mime":"text/plain","filename":"notes.txt","url":"file:///home/user/proj/notes.txt","source":{"type":"file","path":"notes.txt"}}`},
				}},
			{id: "msg_02", created: 1700000002000,
				data: `{"parentID":"msg_01","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/home/user/proj","root":"/home/user/proj"},"cost":0,"tokens":{"total":10,"input":5,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"oracle-model","providerID":"oracle-openai","time":{"created":1700000002000,"completed":1700000003000},"finish":"tool-calls"}`,
				parts: []fxPart{
					{"prt_02a", `{"type":"step-start","snapshot":"abc"}`},
					{"prt_02b", `{"type":"reasoning","text":"thinking…","time":{"start":1700000002010,"end":1700000002020},"metadata":{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"enc"}}}`},
					{"prt_02c", `{"type":"text","text":"Running tools.","time":{"start":1700000002030,"end":1700000002040}}`},
					{"prt_02d", `{"type":"tool","tool":"bash","callID":"call_1","state":{"status":"completed","input":` + bashInput + `,"output":"...output truncated...\n\nFull output saved to: /home/user/.local/share/opencode/tool-output/tool_1\n\n98002\n","metadata":` + bashMetadata + `,"title":"Print numbers","time":{"start":1700000002100,"end":1700000002900}},"metadata":{"openai":{"itemId":"fc_1"}}}`},
					{"prt_02e", `{"type":"tool","tool":"read","callID":"call_2","state":{"status":"error","input":{"filePath":"/home/user/proj/missing.txt"},"error":"File not found: /home/user/proj/missing.txt","time":{"start":1700000002200,"end":1700000002300}}}`},
					{"prt_02f", `{"type":"tool","tool":"read","callID":"call_3","state":{"status":"completed","input":{"filePath":"/home/user/proj/pixel.png"},"output":"Image read successfully","metadata":{"preview":"Image read successfully","truncated":false,"loaded":[]},"title":"pixel.png","time":{"start":1700000002300,"end":1700000002400,"compacted":1700000009000},"attachments":[{"type":"file","mime":"image/png","url":"data:image/png;base64,iVBORw0KGgo=","id":"prt_x","sessionID":"ses_2","messageID":"msg_02"}]}}`},
					{"prt_02g", `{"type":"tool","tool":"task","callID":"call_4","state":{"status":"completed","input":{"description":"Find text files","prompt":"find","subagent_type":"explore"},"output":"<task id=\"ses_1\" state=\"completed\">\n<task_result>\nfound\n</task_result>\n</task>","metadata":{"sessionId":"ses_1","parentSessionId":"ses_2","truncated":false},"title":"Find text files","time":{"start":1700000002400,"end":1700000002800}}}`},
					{"prt_02h", `{"type":"step-finish","reason":"tool-calls","snapshot":"def","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}`},
					{"prt_02i", `{"type":"patch","hash":"abc","files":["/home/user/proj/new.txt"]}`},
				}},
			{id: "msg_03", created: 1700000004000,
				data: `{"parentID":"msg_01","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/home/user/proj","root":"/home/user/proj"},"cost":0,"tokens":{"total":0,"input":0,"output":0,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"oracle-model","providerID":"oracle-openai","time":{"created":1700000004000},"summary":true,"error":{"name":"APIError","data":{"message":"boom","isRetryable":false}}}`,
				parts: []fxPart{
					{"prt_03a", `{"type":"compaction","auto":true}`},
					{"prt_03b", `{"type":"subtask","prompt":"p","description":"d","agent":"explore"}`},
					{"prt_03c", `{"type":"agent","name":"explore"}`},
					{"prt_03d", `{"type":"retry","attempt":1,"error":{"name":"APIError","data":{}},"time":{"created":1700000004100}}`},
					{"prt_03e", `{"type":"hologram","text":"??"}`},
					{"prt_03f", `{"type":"tool","tool":"bash","callID":"call_5","state":{"status":"pending","input":{},"raw":""}}`},
				}},
		},
	}
}

func childSession() fxSession {
	return fxSession{
		id: "ses_1", parent: "ses_2", title: "Find text files (@explore subagent)", dir: "/home/user/proj", version: "1.18.33",
		created: 1700000002400, updated: 1700000002800,
		msgs: []fxMsg{
			{id: "msg_11", created: 1700000002500,
				data:  `{"role":"user","time":{"created":1700000002500},"agent":"explore","model":{"providerID":"oracle-openai","modelID":"oracle-model"}}`,
				parts: []fxPart{{"prt_11a", `{"type":"text","text":"find"}`}}},
			{id: "msg_12", created: 1700000002600,
				data: `{"parentID":"msg_11","role":"assistant","mode":"explore","agent":"explore","path":{"cwd":"/home/user/proj","root":"/home/user/proj"},"cost":0,"tokens":{"total":0,"input":0,"output":0,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"oracle-model","providerID":"oracle-openai","time":{"created":1700000002600,"completed":1700000002700},"finish":"stop"}`,
				parts: []fxPart{
					{"prt_12a", `{"type":"tool","tool":"glob","callID":"call_9","state":{"status":"completed","input":{"pattern":"*.txt"},"output":"/home/user/proj/notes.txt","metadata":{"count":1,"truncated":false},"title":"","time":{"start":1700000002610,"end":1700000002620}}}`},
					{"prt_12b", `{"type":"text","text":"found","time":{"start":1700000002630,"end":1700000002640}}`},
				}},
		},
	}
}

// openTestDB creates (or opens) a read-write database with the schema, in
// WAL mode as opencode keeps it.
func openTestDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)&_pragma=synchronous(normal)")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	_, err = db.Exec(schemaSQL)
	require.NoError(t, err)
	return db
}

// partStore writes a test store in a temporary dir: the root session
// and, in its message msg_02, a part row for each of datas (their ids
// prefix and their index, in their order); it returns the store's path.
func partStore(t testing.TB, prefix string, datas ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, rootSession())
	for i, data := range datas {
		_, err := db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, 'msg_02', 'ses_2', 1, 1, ?)`,
			fmt.Sprintf("%s%03d", prefix, i), data)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	return path
}

// recordedStoresAnd is the databases of the recorded stores, and path.
func recordedStoresAnd(path string) []string {
	var out []string
	dbs, _ := filepath.Glob("../../testdata/opencode/*/data/opencode.db")
	for _, p := range dbs {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return append(out, path)
}

type execer interface {
	Exec(string, ...any) (sql.Result, error)
}

func insertSession(t testing.TB, db execer, s fxSession) {
	t.Helper()
	require.NoError(t, insertSessionErr(db, s))
}

func insertSessionErr(db execer, s fxSession) error {
	if _, err := db.Exec("INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('prj', '/home/user/proj', 'git', 1, 1, '[]')"); err != nil {
		return err
	}
	var parent any
	if s.parent != "" {
		parent = s.parent
	}
	if _, err := db.Exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'prj', ?, 'kind-pixel', ?, ?, ?, ?, ?)`, s.id, parent, s.dir, s.title, s.version, s.created, s.updated); err != nil {
		return err
	}
	// Insert in reverse so that the store's ordering, not rowid order, is tested.
	for i := len(s.msgs) - 1; i >= 0; i-- {
		m := s.msgs[i]
		if _, err := db.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
			m.id, s.id, m.created, m.created, m.data); err != nil {
			return err
		}
		for j := len(m.parts) - 1; j >= 0; j-- {
			p := m.parts[j]
			if _, err := db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
				p.id, m.id, s.id, m.created, m.created, p.data); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeDB(t testing.TB, path string, ss ...fxSession) {
	t.Helper()
	db := openTestDB(t, path)
	defer db.Close()
	for _, s := range ss {
		insertSession(t, db, s)
	}
}

// withIDs puts id fields in front of a compact JSON object, as the export
// and the legacy files carry them.
func withIDs(obj string, kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "%q:%q,", kv[i], kv[i+1])
	}
	rest := obj[1:]
	if rest == "}" {
		return strings.TrimSuffix(b.String(), ",") + "}"
	}
	return b.String() + rest
}

// pretty indents like JSON.stringify(v, null, 2), keeping key order.
func pretty(t testing.TB, compact string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, []byte(compact), "", "  "))
	return buf.Bytes()
}

func sessionJSON(s fxSession) string {
	parent := ""
	if s.parent != "" {
		parent = fmt.Sprintf(`"parentID":%q,`, s.parent)
	}
	return fmt.Sprintf(`{"id":%q,"slug":"kind-pixel","projectID":"prj","directory":%q,%s"title":%q,"version":%q,"time":{"created":%d,"updated":%d}}`,
		s.id, s.dir, parent, s.title, s.version, s.created, s.updated)
}

func exportJSON(s fxSession) string {
	var b strings.Builder
	b.WriteString(`{"info":` + sessionJSON(s) + `,"messages":[`)
	for i, m := range s.msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"info":` + withIDs(m.data, "id", m.id, "sessionID", s.id) + `,"parts":[`)
		for j, p := range m.parts {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(withIDs(p.data, "id", p.id, "sessionID", s.id, "messageID", m.id))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

func writeExport(t testing.TB, path string, s fxSession) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, pretty(t, exportJSON(s)), 0o644))
}

func writeLegacy(t testing.TB, root string, ss ...fxSession) {
	t.Helper()
	write := func(path string, compact string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, pretty(t, compact), 0o644))
	}
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "migration"), []byte("2"), 0o644))
	for _, s := range ss {
		write(filepath.Join(root, "session", "prj", s.id+".json"), sessionJSON(s))
		for _, m := range s.msgs {
			write(filepath.Join(root, "message", s.id, m.id+".json"), withIDs(m.data, "id", m.id, "sessionID", s.id))
			for _, p := range m.parts {
				write(filepath.Join(root, "part", m.id, p.id+".json"), withIDs(p.data, "id", p.id, "sessionID", s.id, "messageID", m.id))
			}
		}
	}
}

// rowWarnings leaves out the notice of a WAL database opened immutable:
// writeDB leaves its database without -wal and -shm, as opencode does
// when it quits.
func rowWarnings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !strings.Contains(w, "opened with immutable=1") {
			out = append(out, w)
		}
	}
	return out
}
