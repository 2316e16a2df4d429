// Package sessions reads recorded sessions of coding agents into the model
// types, strictly read-only (nothing here ever writes to an agent's store).
//
// Each agent's reader is a driver (driver.go; opencode's is
// sessions/opencode) that registers how its stores are found and opened.
// Open picks the reader from the path; Discover lists the default
// locations; what every reader shares (Store, Combine, bounded file
// access, spill lookup, the lazy path) lives here.
package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"correx/model"
)

// Store is one source of sessions. A Store is safe for concurrent use.
type Store interface {
	// Path is the path the store was opened from.
	Path() string
	// List returns the sessions' infos, newest first by Updated, without
	// loading their parts.
	List(ctx context.Context) ([]model.SessionInfo, error)
	// Load returns one session with all its messages and parts. An unknown
	// id gives an error that wraps ErrNotFound and names the id and source.
	// Problems inside the session (a corrupt row or file, an unknown part
	// type) do not fail the load: they are listed in Session.Warnings.
	Load(ctx context.Context, id string) (*model.Session, error)
	Close() error
}

// ErrNotFound is wrapped by the error Load returns for an unknown id.
var ErrNotFound = errors.New("session not found")

func notFound(id, source string) error {
	return fmt.Errorf("%w: %q in %s", ErrNotFound, id, source)
}

// Warnings returns the store-level warnings of s (for example a database
// that could only be opened as immutable, or files of an export directory
// that were skipped); nil if there are none. Load also copies them into
// every Session.Warnings.
func Warnings(s Store) []string {
	if w, ok := s.(interface{ Warnings() []string }); ok {
		return w.Warnings()
	}
	return nil
}

// Open opens the sessions at path: a store or session file of one of the
// agents (see the drivers' Open, opencode's data dir and files among them).
func Open(path string) (Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open sessions: %w", err)
	}
	s, ok, err, problem := openWithDriver(abs, st.IsDir())
	if ok {
		return s, err
	}
	if !st.IsDir() {
		return openFile(abs)
	}
	if s, ok, err := openFallback(abs, true); ok { // opencode's export dir
		return s, err
	}
	if problem != nil {
		return nil, fmt.Errorf("open sessions: %w", problem)
	}
	return nil, fmt.Errorf("open sessions: no agent sessions in %s (expected an opencode data dir, opencode.db, storage/session or export .json files; a Claude Code config or projects dir; a Codex home or sessions dir; a Gemini CLI home or chats dir)", abs)
}

// openFile opens a session file or database, told apart by name and
// content.
func openFile(path string) (Store, error) {
	if _, err := readHead(path, 32); err != nil {
		return nil, fmt.Errorf("open sessions: %w", err)
	}
	if s, ok, err := openFallback(path, false); ok { // opencode's database or export
		return s, err
	}
	return nil, fmt.Errorf("open sessions: %s is neither a SQLite database nor an opencode export", path)
}

// OpenAll opens every path, returning the stores that opened and the errors
// of those that did not.
func OpenAll(paths []string) ([]Store, []error) {
	var stores []Store
	var errs []error
	for _, p := range paths {
		s, err := Open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stores = append(stores, s)
	}
	return stores, errs
}

// Combine makes one store of several: List merges their lists (a session id
// listed by more than one store is kept from the first); when some stores
// fail to list, it returns the others' sessions together with an error
// naming the failures. Load asks the store that listed the id, else each in
// turn. Warnings gathers theirs; Close closes them all.
func Combine(stores ...Store) Store {
	paths := make([]string, len(stores))
	for i, s := range stores {
		paths[i] = s.Path()
	}
	return newMulti(strings.Join(paths, string(os.PathListSeparator)), stores)
}

// Discover returns the default session locations that exist: every
// driver's Locations (Claude Code's, Codex's, Gemini CLI's, opencode's…),
// in the drivers' order.
func Discover() (out []string) {
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" || seen[p] {
			return
		}
		if _, err := os.Stat(p); err == nil {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range driverLocations() {
		add(p)
	}
	return out
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func closeAll(stores []Store) error {
	var errs []error
	for _, s := range stores {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// sortInfos orders newest first by Updated, then by id.
func sortInfos(infos []model.SessionInfo) {
	sort.SliceStable(infos, func(i, j int) bool {
		if !infos[i].Updated.Equal(infos[j].Updated) {
			return infos[i].Updated.After(infos[j].Updated)
		}
		return infos[i].ID < infos[j].ID
	})
}

// multi is several stores shown as one.
type multi struct {
	path   string
	stores []Store

	mu    sync.Mutex
	owner map[string]Store // session id -> store that listed it
}

func newMulti(path string, stores []Store) *multi {
	return &multi{path: path, stores: stores, owner: map[string]Store{}}
}

func (m *multi) Path() string { return m.path }

// List returns what the stores could list; if some failed, the error names
// them, and the sessions of the others are still returned.
func (m *multi) List(ctx context.Context) ([]model.SessionInfo, error) {
	var all []model.SessionInfo
	var errs []error
	owner := map[string]Store{}
	for _, s := range m.stores {
		infos, err := s.List(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		for _, in := range infos {
			if _, dup := owner[in.ID]; dup {
				continue
			}
			owner[in.ID] = s
			all = append(all, in)
		}
	}
	m.mu.Lock()
	m.owner = owner
	m.mu.Unlock()
	sortInfos(all)
	if len(errs) == len(m.stores) && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return all, errors.Join(errs...)
}

func (m *multi) Load(ctx context.Context, id string) (*model.Session, error) {
	m.mu.Lock()
	s := m.owner[id]
	m.mu.Unlock()
	if s != nil {
		return s.Load(ctx, id)
	}
	for _, s := range m.stores {
		sess, err := s.Load(ctx, id)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return sess, err
		}
	}
	return nil, notFound(id, m.path)
}

func (m *multi) Warnings() []string {
	var w []string
	for _, s := range m.stores {
		w = append(w, Warnings(s)...)
	}
	return w
}

func (m *multi) Close() error { return closeAll(m.stores) }
