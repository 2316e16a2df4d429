// Package kilo reads Kilo Code CLI sessions (npm @kilocode/cli; 7.7.9 is
// the binary recorded). Kilo is a fork of opencode that keeps opencode's
// storage (its v1 message/part tables and v2 session_message, in kilo.db
// under $XDG_DATA_HOME/kilo) and builds its requests with opencode's
// code, so its sessions go through opencode's pipeline: this package opens
// kilo.db with opencode's reader (opencode.OpenStore) and registers
// Kilo as a fork of opencode (model.AgentSpec.Fork). What Kilo does
// differently is named here (ForkRules): every user message it sends gets
// an <environment_details> text part that it never stores, and its OpenAI
// Chat converter sends an assistant message without text as "content":
// null. Its truncation markers and spill layout are opencode's
// (<data>/tool-output/tool_<id>, the tail kept).
package kilo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"correx/model"
	"correx/render"
	"correx/sessions"
	"correx/sessions/opencode"
)

// Agent is Kilo Code's id (its testdata folder).
const Agent model.Agent = "kilo"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "Kilo Code", Version: "7.7.9", Fork: model.AgentOpencode})
	sessions.Register(sessions.Driver{
		Agent:     Agent,
		Locations: locations,
		Open:      open,
		SpillFolders: func(dataDir string) []string {
			var out []string
			for _, d := range []string{dataDir, DataDir()} {
				if d != "" {
					out = append(out, filepath.Join(d, "tool-output"))
				}
			}
			return out
		},
	})
	opencode.RegisterConfig(Agent, config)
	render.RegisterFork(Agent, render.ForkRules{UserText: EnvironmentDetails, NullContent: true})
}

// config is where Kilo 7.7.9 reads its config (its Config loader: the
// global dir's files, then the project's from the worktree down, then
// .kilo and .kilocode dirs) and caches models.dev's catalogue.
var config = opencode.ConfigNames{
	Dir:     "kilo",
	Global:  []string{"config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"},
	Project: []string{"opencode.jsonc", "opencode.json", "kilo.jsonc", "kilo.json", "config.json"},
	DotDirs: []string{".kilo", ".kilocode"}, DotFiles: []string{"config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"},
	Env: "KILO", Managed: "/etc/kilo", ModelsURL: "https://models.dev",
}

// DataDir is Kilo's data dir: $XDG_DATA_HOME/kilo, by default
// ~/.local/share/kilo ("" without a home).
func DataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "kilo")
	}
	return sessions.AgentDir("", filepath.Join(".local", "share", "kilo"))
}

// envDB is $KILO_DB as Kilo resolves it (against the data dir unless
// absolute); "" when unset.
func envDB() string {
	v := os.Getenv("KILO_DB")
	if v == "" || v == ":memory:" {
		return ""
	}
	if !filepath.IsAbs(v) {
		if DataDir() == "" {
			return ""
		}
		v = filepath.Join(DataDir(), v)
	}
	return filepath.Clean(v)
}

// dbs are a data dir's databases: kilo.db, then kilo-<channel>.db.
func dbs(dir string) []string {
	var out []string
	if p := filepath.Join(dir, "kilo.db"); sessions.IsFile(p) {
		out = append(out, p)
	}
	more, _ := filepath.Glob(filepath.Join(dir, "kilo-*.db"))
	sort.Strings(more)
	for _, m := range more {
		if sessions.IsFile(m) {
			out = append(out, m)
		}
	}
	return out
}

func locations() []string {
	var out []string
	if p := envDB(); p != "" && sessions.IsFile(p) {
		out = append(out, p)
	}
	if d := DataDir(); d != "" {
		out = append(out, dbs(d)...)
	}
	return out
}

// isKiloDB says whether a file is named as Kilo names its database, or is
// the one $KILO_DB names.
func isKiloDB(path string) bool {
	base := filepath.Base(path)
	return base == "kilo.db" || strings.HasPrefix(base, "kilo-") && strings.HasSuffix(base, ".db") || path == envDB()
}

// open claims a Kilo data dir (holding kilo.db) and a Kilo database;
// opencode's generic SQLite path would read them as opencode's.
func open(path string, dir bool) (sessions.Store, bool, error) {
	if !dir {
		if !isKiloDB(path) {
			return nil, false, nil
		}
		s, err := openDB(path)
		return s, true, err
	}
	files := dbs(path)
	if len(files) == 0 {
		return nil, false, nil
	}
	var stores []sessions.Store
	for _, f := range files {
		s, err := openDB(f)
		if err != nil {
			for _, o := range stores {
				o.Close()
			}
			return nil, true, err
		}
		stores = append(stores, s)
	}
	if len(stores) == 1 {
		return stores[0], true, nil
	}
	return sessions.Combine(stores...), true, nil
}

// openDB opens one kilo.db with opencode's reader. Its spills are beside
// it (a data dir or a copy of one), or, for a $KILO_DB elsewhere, in
// Kilo's data dir.
func openDB(path string) (sessions.Store, error) {
	head, err := sessions.ReadHead(path, 16) // a regular file only: never blocks on a FIFO
	if err != nil {
		return nil, err
	}
	if string(head) != "SQLite format 3\x00" {
		return nil, sessions.NotSession(path, "not a SQLite database")
	}
	data := filepath.Dir(path)
	if path == envDB() && DataDir() != "" {
		data = DataDir()
	}
	return opencode.OpenStore(path, opencode.Options{Agent: Agent, DataDir: data})
}

// editorContext is what Kilo stores of the user's editor with a user
// message (MessageV2.User.editorContext), over the session's directory
// and worktree.
type editorContext struct {
	Directory    *string  `json:"directory"`
	Worktree     *string  `json:"worktree"`
	ActiveFile   string   `json:"activeFile"`
	VisibleFiles []string `json:"visibleFiles"`
	OpenTabs     []string `json:"openTabs"`
}

// EnvironmentDetails is the text part Kilo 7.7.9 appends to user message
// m of s before every request (KiloSessionPrompt.injectEditorContext),
// never stored: the message's time, the session's directory and worktree
// (its directory up as many levels as session.path has segments), and
// the editor context stored with it. "" when the message already holds
// one (a synthetic text part starting with <environment_details>).
func EnvironmentDetails(s *model.Session, m *model.Message) string {
	for _, p := range m.Parts {
		if p.Type == model.PartText && p.Synthetic && strings.HasPrefix(strings.TrimLeftFunc(p.Text, unicode.IsSpace), "<environment_details>") {
			return ""
		}
	}
	dir := s.Info.Directory
	wt := dir
	for _, seg := range strings.Split(s.Info.Path, "/") {
		if seg != "" {
			wt = filepath.Join(wt, "..")
		}
	}
	if wt != "" {
		wt = filepath.Clean(wt)
	}
	var ec editorContext
	if len(m.EditorContext) > 0 {
		_ = json.Unmarshal(m.EditorContext, &ec)
	}
	if ec.Directory != nil {
		dir = *ec.Directory
	}
	if ec.Worktree != nil {
		wt = *ec.Worktree
	}
	lines := []string{"", "", "<environment_details>", "Message time: " + m.Created.UTC().Format("2006-01-02T15:04:05Z")}
	if dir != "" {
		lines = append(lines, "Working directory: "+dir)
	}
	if wt != "" {
		lines = append(lines, "Workspace root folder: "+wt)
	}
	if ec.ActiveFile != "" {
		lines = append(lines, "Active file: "+ec.ActiveFile)
	}
	for _, l := range []struct {
		head  string
		files []string
	}{{"Visible files:", ec.VisibleFiles}, {"Open tabs:", ec.OpenTabs}} {
		if len(l.files) > 0 {
			lines = append(lines, l.head)
			for _, f := range l.files {
				lines = append(lines, "  "+f)
			}
		}
	}
	return strings.Join(append(lines, "</environment_details>"), "\n")
}
