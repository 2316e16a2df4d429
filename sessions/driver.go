package sessions

// Agent drivers: an agent's package (sessions/<agent>) registers how its
// stores are found and opened, as database/sql drivers do, and imports of
// correx/sessions/all bring every driver in. Open and Discover ask the
// registered drivers before the readers of this package, and Open asks
// the drivers' Fallback after them.

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"correx/formatters"
	"correx/model"
)

// Driver is one agent's way to its stores.
type Driver struct {
	Agent model.Agent
	// Locations are the agent's default stores that exist on this
	// machine, its environment variables first.
	Locations func() []string
	// Open opens path (dir: it is a directory) when it is this agent's
	// store or session file: ok false, and no error, when it is not. A
	// driver claims only what is clearly its own (TestOneDriverPerFixture).
	// ok false with an error is a problem that kept it from telling (a
	// session file it could not read): Open names it when no reader opens
	// path.
	Open func(path string, dir bool) (s Store, ok bool, err error)
	// Fallback, when set, is asked as Open is, but after every driver's
	// Open and every other reader: the reader of last resort for what no
	// agent claims clearly (opencode's: a SQLite database or an export
	// file or dir), whose errors then say what is wrong with it. One
	// agent's at most: the order Fallbacks are asked in would matter.
	Fallback func(path string, dir bool) (s Store, ok bool, err error)
	// SpillFolders are the folders that may hold the agent's spilled
	// outputs for a session whose data dir is dataDir; nil when it keeps
	// none.
	SpillFolders func(dataDir string) []string
	// SpillPaths are where the agent's layout puts a spill recorded as
	// recorded beside a store whose data dir is dataDir (a store copied to
	// another machine, or a fixture); nil when nowhere else.
	SpillPaths func(dataDir, recorded string) []string
}

var drivers struct {
	sync.RWMutex
	list []Driver
}

// Register adds a driver; an agent registered twice panics.
func Register(d Driver) {
	drivers.Lock()
	defer drivers.Unlock()
	for _, o := range drivers.list {
		if o.Agent == d.Agent {
			panic("sessions: driver registered twice: " + string(d.Agent))
		}
	}
	drivers.list = append(drivers.list, d)
}

// Drivers lists the registered drivers in registration order.
func Drivers() []Driver {
	drivers.RLock()
	defer drivers.RUnlock()
	return append([]Driver(nil), drivers.list...)
}

func driverOf(a model.Agent) (Driver, bool) {
	for _, d := range Drivers() {
		if d.Agent == a {
			return d, true
		}
	}
	return Driver{}, false
}

// openWithDriver is the store of the first driver that claims path;
// problem is the first problem of a driver that could not tell.
func openWithDriver(path string, dir bool) (s Store, ok bool, err, problem error) {
	return askDrivers(path, dir, func(d Driver) func(string, bool) (Store, bool, error) { return d.Open })
}

// openFallback is the store of the first driver's Fallback that claims
// path.
func openFallback(path string, dir bool) (Store, bool, error) {
	s, ok, err, _ := askDrivers(path, dir, func(d Driver) func(string, bool) (Store, bool, error) { return d.Fallback })
	return s, ok, err
}

func askDrivers(path string, dir bool, opener func(Driver) func(string, bool) (Store, bool, error)) (s Store, ok bool, err, problem error) {
	for _, d := range Drivers() {
		open := opener(d)
		if open == nil {
			continue
		}
		s, ok, err := open(path, dir)
		if !ok {
			problem = cmp.Or(problem, err)
			continue
		}
		if err != nil {
			err = fmt.Errorf("open sessions: %w", err)
		}
		return s, true, err, nil
	}
	return nil, false, nil, problem
}

// driverLocations are the default stores every driver found.
func driverLocations() []string {
	var out []string
	for _, d := range Drivers() {
		if d.Locations != nil {
			out = append(out, d.Locations()...)
		}
	}
	return out
}

// FileStore is a Store of an agent that keeps one file per session: the
// list loop such agents share. Files are read again on every List and
// Load.
type FileStore struct {
	// Root is the path the store was opened from.
	Root string
	// Files lists the session files now, with a warning for each one
	// skipped.
	Files func() (files, warnings []string)
	// Read reads one session file.
	Read func(path string) (*model.Session, error)
	// Same, when set, chooses between two files that hold one session
	// (kept, listed first, and other; Info.Source names the file): keep
	// other instead, and warn when the one dropped holds what the one
	// kept lacks. Without it the first file is kept, with a warning.
	Same func(kept, other *model.Session) (keepOther, warn bool)
	fileIndex
}

func (s *FileStore) Path() string { return s.Root }
func (s *FileStore) Close() error { return nil }

// List reads every file; a file that cannot be read, or holds a session
// another file holds too, is skipped with a warning.
func (s *FileStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	return s.list(ctx, s.Read, s.Read)
}

// list is List with read giving each file's session (its Info at least)
// and whole giving it whole, for Same.
func (s *FileStore) list(ctx context.Context, read, whole func(string) (*model.Session, error)) ([]model.SessionInfo, error) {
	files, warnings := s.Files()
	byID := map[string]string{}
	at := map[string]int{} // session id -> its index in infos
	var infos []model.SessionInfo
	var problems []error
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sess, err := read(f)
		if err != nil {
			warnings = append(warnings, skipped(err))
			problems = append(problems, err)
			continue
		}
		if prev, dup := byID[sess.Info.ID]; dup {
			keep, drop, warn := prev, f, true
			if s.Same != nil {
				keep, drop, warn = s.choose(prev, f, whole)
			}
			if warn {
				warnings = append(warnings, fmt.Sprintf("skipped %s: session %s is also in %s", drop, sess.Info.ID, keep))
			}
			if keep == f {
				byID[sess.Info.ID] = f
				infos[at[sess.Info.ID]] = sess.Info
			}
			continue
		}
		byID[sess.Info.ID] = f
		at[sess.Info.ID] = len(infos)
		infos = append(infos, sess.Info)
	}
	s.setIndex(byID, warnings)
	SortInfos(infos)
	return infos, noSessionRead(len(infos), problems)
}

// choose is Same for the file kept so far and other, another file of its
// session, both read again with whole (List keeps only infos).
func (s *FileStore) choose(kept, other string, whole func(string) (*model.Session, error)) (keep, drop string, warn bool) {
	prev, err := whole(kept)
	if err != nil {
		return kept, other, true
	}
	sess, err := whole(other)
	if err != nil {
		return kept, other, true
	}
	keepOther, warn := s.Same(prev, sess)
	if keepOther {
		return other, kept, warn
	}
	return kept, other, warn
}

func (s *FileStore) Load(ctx context.Context, id string) (*model.Session, error) {
	f, err := s.fileOf(ctx, id, s.Root, s.List)
	if err != nil {
		return nil, err
	}
	sess, err := s.Read(f)
	if err != nil {
		return nil, err
	}
	sess.Warnings = append(Warnings(s), sess.Warnings...)
	return sess, nil
}

// The bounded file access every driver uses (safefile.go).

// ReadFile reads a whole regular file of at most 512 MiB.
func ReadFile(path string) ([]byte, error) { return readFile(path) }

// ReadFileMax reads a whole regular file of at most limit bytes.
func ReadFileMax(path string, limit int64) ([]byte, error) { return readFileMax(path, limit) }

// ReadHead reads the first n bytes of a regular file.
func ReadHead(path string, n int) ([]byte, error) { return readHead(path, n) }

// ReadJSONL calls fn for every non-blank line of a regular file (see
// readJSONL: a line over 64 MiB is skipped and named through warnf).
func ReadJSONL(path string, fn func(n int, line []byte, last bool), warnf func(n int, format string, args ...any)) error {
	return readJSONL(path, fn, warnf)
}

// OpenRegular opens a regular file read-only, never a FIFO or device.
func OpenRegular(path string) (*os.File, os.FileInfo, error) { return openRegular(path) }

// LineWarner returns a warnf that appends "path:n: message" to *ws.
func LineWarner(ws *[]string, path string) func(n int, format string, args ...any) {
	return lineWarner(ws, path)
}

// AgentDir is $env, by default ~/sub; "" when there is no home.
func AgentDir(env, sub string) string { return agentDir(env, sub) }

// IsDir and IsFile say whether p is a directory or a regular file.
func IsDir(p string) bool  { return isDir(p) }
func IsFile(p string) bool { return isFile(p) }

// NotSession is the error for a file that is not a session of the agent.
func NotSession(path, why string) error { return notSession(path, why) }

// SortInfos orders newest first by Updated, then by id.
func SortInfos(infos []model.SessionInfo) { sortInfos(infos) }

// NotFound is the error of Load for an unknown id (it wraps ErrNotFound).
func NotFound(id, source string) error { return notFound(id, source) }

// FileErr names what went wrong opening or reading path ("permission
// denied: FILE", …).
func FileErr(path string, err error) error { return fileErr(path, err) }

// The list loop's pieces, for a driver whose store lists its files itself
// (Claude Code: one file holds a session and its inline sidechains).

// FileIndex is the session id -> file index the last List built, with
// that List's warnings (its Warnings method): embed it in the store.
type FileIndex struct{ fileIndex }

// SetIndex keeps the index and the warnings a List built.
func (x *FileIndex) SetIndex(files map[string]string, warnings []string) {
	x.setIndex(files, warnings)
}

// FileOf is the file holding session id, listed again with list when the
// last List did not see it; source names the store in the not-found error.
func (x *FileIndex) FileOf(ctx context.Context, id, source string, list func(context.Context) ([]model.SessionInfo, error)) (string, error) {
	return x.fileOf(ctx, id, source, list)
}

// Skipped is the warning for a file a List skipped.
func Skipped(err error) string { return skipped(err) }

// NoSessionRead is the error of a List that found session files but read
// no session from any (nil when one was read).
func NoSessionRead(sessions int, problems []error) error { return noSessionRead(sessions, problems) }

// CombineAs is Combine with the path the combined store gives (a data dir
// holding several databases).
func CombineAs(path string, stores ...Store) Store { return newMulti(path, stores) }

// CountCalls fills the list counts of info from loaded messages (see
// countCalls).
func CountCalls(info *model.SessionInfo, msgs []model.Message) { countCalls(info, msgs) }

// FirstLine is a session title made of s: its first line, at most 100
// characters.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 100 {
		s = string(r[:100]) + "…"
	}
	return s
}

// CountDetected sets a loaded session's Messages, ToolCalls, Errors and
// Truncated, counting the truncations correx detects in each
// model-visible result (SessionInfo.TruncatedBy "detected"), for agents
// that flag none themselves.
func CountDetected(sess *model.Session) { CountDetectedIn(sess, nil) }

// CountDetectedIn is CountDetected with the agent's spill files found
// through spill (nil when it keeps none).
func CountDetectedIn(sess *model.Session, spill formatters.SpillFinder) {
	sess.Info.Messages = len(sess.Messages)
	for _, r := range sess.ToolCalls() {
		sess.Info.ToolCalls++
		if r.Call.Status == model.StatusError {
			sess.Info.Errors++
		}
		if formatters.Visible(r.Call, spill).Truncation != nil {
			sess.Info.Truncated++
		}
	}
}

// Fingerprint implements Fingerprinter: the session files' paths, sizes
// and mtimes (see StatPrint), so a TUI left open reads nothing while no
// file changed.
func (s *FileStore) Fingerprint() (string, bool) {
	files, warnings := s.Files()
	return FilesFingerprint(s.Root, files, len(warnings))
}

// FilesFingerprint is the fingerprint of a store at root that reads files
// (each one's path, size and mtime, see StatPrint) and skipped warnings of
// them; ok false when a file cannot say (missing, or written just now).
func FilesFingerprint(root string, files []string, warnings int) (string, bool) {
	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "files %q", root)
	for _, f := range files {
		st, ok := StatPrint(f, now, false)
		if !ok {
			return "", false
		}
		fmt.Fprintf(&b, " %q %s", f, st)
	}
	fmt.Fprintf(&b, " warnings %d", warnings)
	return b.String(), true
}
