package sessions

// LineStore is the lazy path (lazy.go) for agents that keep one JSON Lines
// file per session: their driver gives a LineReader, fed the file a line
// at a time (jsonl.go), and the store pages the session it builds, reads a
// call's output again by the offset of its line, and scans only what was
// appended since the last read.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"correx/model"
)

// LineReader is an agent's reader of one JSON Lines session file.
type LineReader interface {
	// Line reads line l of the file, data its bytes (the reader may keep
	// them); last is true for a final line without its newline.
	Line(l Line, data []byte, last bool)
	// Stable is how many messages the lines read so far make that no
	// line still to come can change; it is called after every line, so
	// it must be cheap.
	Stable() int
	// Session is the session the lines read so far make, the caller's to
	// change, its large outputs left out (model.ToolCall.Elided and
	// OutputBytes, as sessions.OutlineLoader says). It fails when the
	// file is not a session of the agent.
	Session() (*model.Session, error)
	// Output is call partID whole, as a Load of the file gives it, its
	// output read again from its lines through read.
	Output(partID string, read func(Line) ([]byte, error)) (*model.ToolCall, error)
}

// Foreseer is implemented by a LineReader whose Stable needs the lines
// still to come (a Gemini CLI line can reach back to the first message):
// before a scan that may stop short of the file's end, Foresee is given
// the head of each line past where the scan begins (LineIndex.Foresee),
// at most ForeseeBytes of it.
type Foreseer interface {
	Foresee(n int, head []byte, whole bool)
}

// Preparer is implemented by a LineReader with work on a line that needs
// none of the lines before it (decoding its JSON): a scan runs Prepare on
// another goroutine, ahead of the reader (LineIndex.ScanToPrepared), and
// gives PreparedLine, in place of Line, what it made. Prepare must read
// nothing the reader holds: it runs beside it, and on for the reader that
// replaces it when the file is read anew.
type Preparer interface {
	Prepare(data []byte) any
	PreparedLine(l Line, data []byte, prep any, last bool)
}

// ForeseeBytes is the head of a line a Foreseer is given.
const ForeseeBytes = 512

// Filler is implemented by a LineReader whose outline leaves out more than
// its calls' outputs (records in a message's Stored): Fill puts them back
// in sess, a session Session gave, read again through read, for Load.
type Filler interface {
	Fill(sess *model.Session, read func(Line) ([]byte, error)) error
}

// LineStore is a FileStore whose JSON Lines files are read lazily.
type LineStore struct {
	*FileStore
	// Reader starts reading session file path, warnings through warnf
	// (each "path:n: …"); nil for a file to read whole with Read (a
	// legacy one that is not JSON Lines).
	Reader func(path string, warnf func(n int, format string, args ...any)) LineReader
	// Guess, when set, names the files that may hold session id (by their
	// names), so that a session is opened without listing the store.
	Guess func(id string) []string

	mu      sync.Mutex
	infos   map[string]lineInfo // by path: the last read's info
	guessed map[string]string   // session id -> the guessed file found to hold it
	open    []*lineFile         // most recently used first, at most keepOpen
}

// keepOpen is how many session files a LineStore keeps read: the one on
// screen and one more (a subagent's, or the other side of a compare).
const keepOpen = 3

type lineInfo struct {
	stat string // StatPrint when read
	info model.SessionInfo
}

// lineFile is a session file read so far.
type lineFile struct {
	mu     sync.Mutex
	path   string
	index  *LineIndex
	reader LineReader
	warns  []string
	sess   *model.Session
	dirty  bool // lines were read since sess was built
	given  PageWarnings
	// the outputs' reads (LoadOutput) between two scans, through one
	// open of the file: a walk reads the outputs of a page in a row
	lines LinesAt
}

// file is the open lineFile of path, or a new one.
func (s *LineStore) file(path string) *lineFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.open {
		if f.path == path {
			s.open = slices.Insert(slices.Delete(s.open, i, i+1), 0, f)
			return f
		}
	}
	f := &lineFile{path: path, index: NewLineIndex(path), lines: LinesAt{Path: path}}
	f.reset(s.Reader)
	if _, ok := f.reader.(LongLiner); ok {
		f.index.TakeLongLines(func(lr *LineRead, last bool) bool {
			// the reader of now: a reset replaces it (with one of its
			// kind); called with f.mu held
			return f.reader.(LongLiner).LongLine(lr, last)
		})
	}
	s.open = slices.Insert(s.open, 0, f)
	if len(s.open) > keepOpen {
		s.open = s.open[:keepOpen]
	}
	return f
}

func (f *lineFile) reset(newReader func(string, func(int, string, ...any)) LineReader) {
	f.warns = nil
	f.reader = newReader(f.path, lineWarner(&f.warns, f.path))
	f.sess, f.dirty = nil, true
}

// scan reads on until the reader holds want stable messages (want < 0:
// to the file's end). Call with f.mu held.
func (f *lineFile) scan(ctx context.Context, s *LineStore, want int) error {
	f.lines.Close() // the reads after a scan see the file as it is then
	if fs, ok := f.reader.(Foreseer); ok && want >= 0 && !f.index.AtEnd() {
		if err := f.index.Foresee(ctx, ForeseeBytes, fs.Foresee); err != nil {
			return err
		}
	}
	stable, reset, warnf := func() int { return f.reader.Stable() }, func() { f.reset(s.Reader) }, lineWarner(&f.warns, f.path)
	if p, ok := f.reader.(Preparer); ok {
		return f.index.ScanToPrepared(ctx, want, stable, reset, p.Prepare, func(l Line, data []byte, prep any, last bool) {
			f.reader.(Preparer).PreparedLine(l, data, prep, last) // a reset's new reader
			f.dirty = true
		}, warnf)
	}
	return f.index.ScanTo(ctx, want, stable, reset, func(l Line, data []byte, last bool) {
		if data != nil { // else a LongLine took it
			f.reader.Line(l, data, last)
		}
		f.dirty = true
	}, warnf)
}

// session is the session read so far (the caller's to change). Call with
// f.mu held.
func (f *lineFile) session() (*model.Session, error) {
	if f.dirty || f.sess == nil {
		sess, err := f.reader.Session()
		if err != nil {
			return nil, err
		}
		sess.Warnings = append(slices.Clip(f.warns), sess.Warnings...)
		f.sess, f.dirty = sess, false
	}
	c := *f.sess
	c.Messages = slices.Clone(f.sess.Messages)
	c.Warnings = slices.Clone(f.sess.Warnings)
	return &c, nil
}

// read reads file path whole: its session, outputs included when full.
func (s *LineStore) read(ctx context.Context, path string, full bool) (*model.Session, error) {
	if s.Reader == nil || s.Reader(path, func(int, string, ...any) {}) == nil {
		return s.FileStore.Read(path)
	}
	f := s.file(path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.scan(ctx, s, -1); err != nil {
		return nil, err
	}
	sess, err := f.session()
	if err != nil || !full {
		return sess, err
	}
	lines := LinesAt{Path: path}
	defer lines.Close()
	for _, r := range sess.ToolCalls() {
		if !r.Call.Elided {
			continue
		}
		part := &sess.Messages[r.Message].Parts[r.Part]
		tc, err := f.reader.Output(part.ID, lines.Read)
		if err != nil {
			return nil, err
		}
		msg := &sess.Messages[r.Message]
		msg.Parts = slices.Clone(msg.Parts)
		msg.Parts[r.Part].Tool = tc
	}
	if fl, ok := f.reader.(Filler); ok {
		if err := fl.Fill(sess, lines.Read); err != nil {
			return nil, err
		}
	}
	return sess, nil
}

// List lists the files as FileStore does; a JSON Lines file not changed
// since it was last read is not read again, and one read is scanned on
// from where it was.
func (s *LineStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	read := func(path string) (*model.Session, error) {
		stat, statOK := StatPrint(path, time.Now(), false)
		s.mu.Lock()
		c, ok := s.infos[path]
		s.mu.Unlock()
		if ok && statOK && c.stat == stat {
			return &model.Session{Info: c.info}, nil
		}
		sess, err := s.read(ctx, path, false)
		if err != nil {
			return nil, err
		}
		if statOK {
			s.mu.Lock()
			if s.infos == nil {
				s.infos = map[string]lineInfo{}
			}
			s.infos[path] = lineInfo{stat, sess.Info}
			s.mu.Unlock()
		}
		return sess, nil
	}
	return s.FileStore.list(ctx, read, func(path string) (*model.Session, error) { return s.read(ctx, path, false) })
}

// fileOf is the file of session id: by the last List, else by Guess (the
// first guessed file whose session is id), else by listing again.
func (s *LineStore) fileOf(ctx context.Context, id string) (string, error) {
	s.FileStore.mu.Lock()
	f, ok := s.FileStore.files[id]
	s.FileStore.mu.Unlock()
	if ok {
		return f, nil
	}
	s.mu.Lock()
	f, ok = s.guessed[id]
	open := ok && slices.ContainsFunc(s.open, func(lf *lineFile) bool { return lf.path == f })
	s.mu.Unlock()
	if ok && (open || isFile(f)) {
		return f, nil // a file that no longer holds id fails the read (an open one at its next scan)
	}
	if s.Guess != nil && s.Reader != nil {
		for _, path := range s.Guess(id) {
			if !isFile(path) || s.Reader(path, func(int, string, ...any) {}) == nil {
				continue
			}
			lf := s.file(path)
			lf.mu.Lock()
			err := lf.scan(ctx, s, 1)
			var sess *model.Session
			if err == nil {
				sess, err = lf.session()
			}
			lf.mu.Unlock()
			if err == nil && sess.Info.ID == id {
				s.mu.Lock()
				if s.guessed == nil {
					s.guessed = map[string]string{}
				}
				s.guessed[id] = path
				s.mu.Unlock()
				return path, nil
			}
		}
	}
	return s.FileStore.fileOf(ctx, id, s.Root, s.List)
}

func (s *LineStore) Load(ctx context.Context, id string) (*model.Session, error) {
	path, err := s.fileOf(ctx, id)
	if err != nil {
		return nil, err
	}
	sess, err := s.read(ctx, path, true)
	if err != nil {
		return nil, err
	}
	sess.Warnings = append(Warnings(s), sess.Warnings...)
	return sess, nil
}

// lazyFile is the open file of session id when it is read lazily; nil
// when it is read whole (LoadOutline then gives it whole).
func (s *LineStore) lazyFile(ctx context.Context, id string) (*lineFile, error) {
	path, err := s.fileOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.Reader == nil || s.Reader(path, func(int, string, ...any) {}) == nil {
		return nil, nil
	}
	return s.file(path), nil
}

// LoadOutline implements OutlineLoader: the first from+limit stable
// messages are read, and no more of the file.
func (s *LineStore) LoadOutline(ctx context.Context, id string, from, limit int) (*OutlinePage, error) {
	f, err := s.lazyFile(ctx, id)
	if err != nil {
		return nil, err
	}
	if f == nil {
		sess, err := s.Load(ctx, id)
		if err != nil {
			return nil, err
		}
		return &OutlinePage{Session: sess}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	want := -1
	if limit > 0 {
		want = from + limit
	}
	if err := f.scan(ctx, s, want); err != nil {
		return nil, err
	}
	sess, err := f.session()
	if err != nil {
		return nil, err
	}
	if sess.Info.ID != id {
		return nil, fmt.Errorf("%s holds session %s, not %s", f.path, sess.Info.ID, id)
	}
	end := len(sess.Messages)
	if !f.index.AtEnd() {
		end = min(end, f.reader.Stable())
	}
	if limit > 0 {
		end = min(end, from+limit)
	}
	from = min(from, end)
	sess.Warnings = f.given.Of(from, sess.Warnings)
	if from == 0 {
		sess.Warnings = append(Warnings(s), sess.Warnings...)
	}
	more := !f.index.AtEnd() || end < len(sess.Messages)
	sess.Messages = sess.Messages[from:end]
	return &OutlinePage{Session: sess, From: from, More: more}, nil
}

// LoadOutput implements OutputLoader.
func (s *LineStore) LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error) {
	f, err := s.lazyFile(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if f == nil {
		sess, err := s.Load(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		return PartCall(sess, partID)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reader.Output(partID, f.lines.Read)
}

// ReadWhole reads session file path whole through FileStore.Read, without
// the lazy path: what Load and the outline must give (tests compare them).
func (s *LineStore) ReadWhole(path string) (*model.Session, error) { return s.FileStore.Read(path) }

// PartCall is the call of tool part partID of a session read whole.
func PartCall(sess *model.Session, partID string) (*model.ToolCall, error) {
	for _, r := range sess.ToolCalls() {
		if sess.Messages[r.Message].Parts[r.Part].ID == partID {
			return r.Call, nil
		}
	}
	return nil, fmt.Errorf("%w: tool part %q of session %s", ErrNotFound, partID, sess.Info.ID)
}
