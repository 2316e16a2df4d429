// Package opencode reads recorded opencode sessions into the model types,
// as the opencode driver of package sessions (sessions.Register).
//
// Three sources are read, all strictly read-only (nothing here ever writes to
// an agent's store):
//
//   - the SQLite database of opencode ≥ 1.2 (<data>/opencode.db, WAL mode),
//     opened with mode=ro and query_only, safe to read while opencode runs;
//     it holds the v1 loop's message/part rows and the v2 loop's
//     session_message rows (v2.go);
//   - `opencode export <id>` JSON files (one session each), or a directory
//     of them;
//   - the legacy JSON storage of opencode < 1.2 (<data>/storage).
//
// The message and part JSON is the same in all three, and one mapping
// (decode.go) serves them all. Forks that kept opencode's database (Kilo)
// open theirs with OpenStore.
package opencode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"correx/model"
	"correx/sessions"
)

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: model.AgentOpencode, Name: "opencode", Version: "1.18.33"})
	sessions.Register(sessions.Driver{
		Agent:     model.AgentOpencode,
		Locations: Locations,
		Open:      openDataDir,
		Fallback:  openLast,
		SpillFolders: func(dataDir string) []string {
			return []string{join(dataDir, "tool-output"), join(DataDir(), "tool-output")}
		},
	})
}

// Options say whose opencode-layout database OpenStore reads.
type Options struct {
	// Agent is the agent its sessions are of; "" is opencode.
	Agent model.Agent
	// DataDir is the agent's data dir, where spills are looked up; "" is
	// the database's dir.
	DataDir string
}

// OpenStore opens the SQLite database at path, in opencode's layout
// (opencode.db, or a fork's such as Kilo's kilo.db), read-only.
func OpenStore(path string, o Options) (sessions.Store, error) {
	return openSQLite(path, o)
}

// openDataDir opens what is clearly opencode's in a directory: a data dir
// with its database(s), or the legacy JSON storage (a data dir holding
// storage/, or storage/ itself). A data dir with a database is read from
// its database(s) only: opencode 1.2+ migrates storage/ into the database
// on first start and leaves the JSON files behind, so reading both would
// list every old session twice.
func openDataDir(dir string, isDir bool) (sessions.Store, bool, error) {
	if !isDir {
		return nil, false, nil
	}
	if dbs := dataDirDBs(dir); len(dbs) > 0 {
		var stores []sessions.Store
		for _, db := range dbs {
			s, err := openSQLite(db, Options{})
			if err != nil {
				for _, s := range stores {
					s.Close()
				}
				return nil, true, err
			}
			stores = append(stores, s)
		}
		if len(stores) == 1 {
			return stores[0], true, nil
		}
		return sessions.CombineAs(dir, stores...), true, nil
	}
	if sessions.IsDir(filepath.Join(dir, "storage", "session")) {
		s, err := openLegacy(filepath.Join(dir, "storage"))
		return s, true, err
	}
	if sessions.IsDir(filepath.Join(dir, "session")) && (sessions.IsDir(filepath.Join(dir, "message")) || sessions.IsDir(filepath.Join(dir, "part"))) {
		s, err := openLegacy(dir)
		return s, true, err
	}
	return nil, false, nil
}

// openLast opens, when no other reader claimed it, a directory of export
// files, or a file that is a SQLite database or looks like an export:
// opencode's reader then says what is wrong with it.
func openLast(path string, isDir bool) (sessions.Store, bool, error) {
	if isDir {
		s, err := openExportDir(path)
		if errors.Is(err, errNoExports) {
			return nil, false, nil
		}
		return s, true, err
	}
	head, err := sessions.ReadHead(path, 32)
	if err != nil {
		return nil, true, err
	}
	if bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		s, err := openSQLite(path, Options{})
		return s, true, err
	}
	if strings.HasSuffix(path, ".db") && len(head) == 0 {
		return nil, true, errors.New(path + " is empty")
	}
	if t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"); (len(t) > 0 && t[0] == '{') || bytes.HasPrefix(t, []byte("Exporting session:")) || strings.HasSuffix(path, ".json") {
		s, err := openExportFile(path)
		return s, true, err
	}
	return nil, false, nil
}

// DataDir returns opencode's data dir: $XDG_DATA_HOME/opencode, by default
// ~/.local/share/opencode.
func DataDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "opencode")
}

// Locations returns opencode's default stores that exist: $OPENCODE_DB
// (relative to the data dir unless absolute, as opencode resolves it),
// then <data>/opencode.db and <data>/opencode-*.db, and <data>/storage
// (legacy JSON) only when the data dir has no database (see openDataDir).
func Locations() []string {
	var out []string
	add := func(p string) {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	data := DataDir()
	if v := os.Getenv("OPENCODE_DB"); v != "" && v != ":memory:" {
		if !filepath.IsAbs(v) {
			v = filepath.Join(data, v)
		}
		add(filepath.Clean(v))
	}
	if data == "" {
		return out
	}
	dbs := dataDirDBs(data)
	for _, db := range dbs {
		add(db)
	}
	if len(dbs) == 0 && sessions.IsDir(filepath.Join(data, "storage", "session")) {
		add(filepath.Join(data, "storage"))
	}
	return out
}

// dataDirDBs returns the databases of a data dir: opencode.db first, then
// opencode-<channel>.db in name order.
func dataDirDBs(dir string) []string {
	var dbs []string
	if sessions.IsFile(filepath.Join(dir, "opencode.db")) {
		dbs = append(dbs, filepath.Join(dir, "opencode.db"))
	}
	more, _ := filepath.Glob(filepath.Join(dir, "opencode-*.db"))
	sort.Strings(more)
	for _, m := range more {
		if sessions.IsFile(m) {
			dbs = append(dbs, m)
		}
	}
	return dbs
}

// join is filepath.Join, "" when dir is.
func join(dir string, elem ...string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}
