package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"correx/model"
	"correx/sessions"
)

// exportStore reads `opencode export <id>` output: one session per file,
// {"info": <session>, "messages": [{"info": <message>, "parts": [<part>…]}]},
// the message and part objects being the db rows plus their ids. It is
// opened on one file or on a directory of them (so a parent and its subagent
// sessions can be opened together). Files are read again on every List and
// Load, so the store follows changes on disk.
type exportStore struct {
	path string
	dir  bool

	mu       sync.Mutex
	files    map[string]string // session id -> file
	warnings []string
}

var errNoExports = errors.New("no opencode export files")

// exportDoc is the shape of an export file.
type exportDoc struct {
	Info     json.RawMessage `json:"info"`
	Messages []struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"messages"`
}

// readExport parses one export file into a session. A file that is not JSON
// gives an error with the line and column; one that is JSON of another shape
// gives an error wrapping errNoExports.
func readExport(path string) (*model.Session, error) {
	data, err := sessions.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blankExportBanner(data)
	var doc exportDoc
	var d decoder
	warn, err := unmarshal(data, &doc)
	if err != nil {
		return nil, fmt.Errorf("%s: bad JSON: %w", path, err)
	}
	if warn != "" {
		d.warnf("%s: %s", path, warn)
	}
	var ss storedSession
	if len(doc.Info) == 0 || json.Unmarshal(doc.Info, &ss) != nil || ss.ID == "" || (doc.Messages == nil && !hasKey(data, "messages")) {
		return nil, fmt.Errorf("%s: %w (no info.id or messages)", path, errNoExports)
	}
	sess := &model.Session{Info: ss.info(path, "")}
	for i, em := range doc.Messages {
		where := fmt.Sprintf("%s: messages[%d].info", path, i)
		m, ok := d.message("", em.Info, 0, where)
		if !ok {
			if len(em.Parts) > 0 {
				d.warnf("%s: %d part(s) skipped with their message", where, len(em.Parts))
			}
			continue
		}
		for j, raw := range em.Parts {
			p, ok := d.part("", raw, fmt.Sprintf("%s: messages[%d].parts[%d]", path, i, j))
			if ok {
				m.Parts = append(m.Parts, p)
			}
		}
		sess.Messages = append(sess.Messages, m)
	}
	sessions.CountCalls(&sess.Info, sess.Messages)
	sess.Warnings = d.warnings
	return sess, nil
}

// hasKey reports whether the top-level object of data has key (for an
// export whose messages is null or empty).
func hasKey(data []byte, key string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top[key]
	return ok
}

func openExportFile(path string) (*exportStore, error) {
	sess, err := readExport(path)
	if err != nil {
		return nil, err
	}
	return &exportStore{path: path, files: map[string]string{sess.Info.ID: path}}, nil
}

// openExportDir opens the export files (*.json) of dir. It fails with
// errNoExports when none of them is an export.
func openExportDir(dir string) (*exportStore, error) {
	s := &exportStore{path: dir, dir: true}
	infos, err := s.scan(context.Background())
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, errNoExports)
	}
	return s, nil
}

// scan reads every export file of the store, refreshing the id index.
func (s *exportStore) scan(ctx context.Context) ([]model.SessionInfo, error) {
	var names []string
	if s.dir {
		matches, err := filepath.Glob(filepath.Join(s.path, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(matches)
		names = matches
	} else {
		names = []string{s.path}
	}
	files := map[string]string{}
	var infos []model.SessionInfo
	var warnings []string
	var problems []error
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sess, err := readExport(name)
		if err != nil {
			if !s.dir {
				return nil, fmt.Errorf("list %s: %w", s.path, err)
			}
			if !errors.Is(err, errNoExports) {
				warnings = append(warnings, sessions.Skipped(err))
				problems = append(problems, err)
			}
			continue
		}
		if prev, dup := files[sess.Info.ID]; dup {
			warnings = append(warnings, fmt.Sprintf("skipped %s: session %s is also in %s", name, sess.Info.ID, prev))
			continue
		}
		files[sess.Info.ID] = name
		infos = append(infos, sess.Info)
	}
	sessions.SortInfos(infos)
	s.mu.Lock()
	s.files = files
	s.warnings = warnings
	s.mu.Unlock()
	return infos, sessions.NoSessionRead(len(infos), problems)
}

func (s *exportStore) Path() string { return s.path }

func (s *exportStore) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

func (s *exportStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	return s.scan(ctx)
}

func (s *exportStore) Load(ctx context.Context, id string) (*model.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	file, ok := s.files[id]
	s.mu.Unlock()
	if !ok && s.dir {
		if _, err := s.scan(ctx); err != nil {
			return nil, err
		}
		s.mu.Lock()
		file, ok = s.files[id]
		s.mu.Unlock()
	}
	if !ok {
		return nil, sessions.NotFound(id, s.path)
	}
	sess, err := readExport(file)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	if sess.Info.ID != id {
		return nil, sessions.NotFound(id, s.path)
	}
	return sess, nil
}

func (s *exportStore) Close() error { return nil }

// blankExportBanner blanks a leading "Exporting session: …" line (opencode
// writes it to stderr; a file saved with 2>&1 starts with it). Blanking, not
// cutting, keeps the line and column of later syntax errors right.
func blankExportBanner(data []byte) {
	const banner = "Exporting session:"
	if !bytes.HasPrefix(data, []byte(banner)) {
		return
	}
	for i := 0; i < len(data) && data[i] != '\n'; i++ {
		data[i] = ' '
	}
}
