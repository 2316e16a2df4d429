package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"correx/model"
	"correx/sessions"
)

// legacyStore reads the JSON storage of opencode < 1.2:
//
//	<root>/session/<projectID>/<sessionID>.json
//	<root>/message/<sessionID>/<messageID>.json
//	<root>/part/<messageID>/<partID>.json
//
// Messages and parts are ordered by file name (their ids sort in creation
// order). Every file carries its own ids; the objects are the db's plus ids,
// pretty-printed.
type legacyStore struct {
	root    string // the storage dir
	dataDir string

	mu       sync.Mutex
	warnings []string // from the last List
}

func openLegacy(root string) (*legacyStore, error) {
	if !sessions.IsDir(filepath.Join(root, "session")) {
		return nil, fmt.Errorf("%s is not an opencode storage dir (no session/)", root)
	}
	return &legacyStore{root: root, dataDir: filepath.Dir(root)}, nil
}

func (s *legacyStore) Path() string { return s.root }
func (s *legacyStore) Close() error { return nil }

func (s *legacyStore) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// sessionFiles returns every session file, by session id.
func (s *legacyStore) sessionFiles() (map[string]string, error) {
	matches, err := filepath.Glob(filepath.Join(s.root, "session", "*", "*.json"))
	if err != nil {
		return nil, err
	}
	files := make(map[string]string, len(matches))
	for _, m := range matches {
		files[strings.TrimSuffix(filepath.Base(m), ".json")] = m
	}
	return files, nil
}

// readSession reads one session file.
func (s *legacyStore) readSession(file string) (model.SessionInfo, error) {
	data, err := sessions.ReadFile(file)
	if err != nil {
		return model.SessionInfo{}, err
	}
	var ss storedSession
	if _, err := unmarshal(data, &ss); err != nil {
		return model.SessionInfo{}, fmt.Errorf("%s: bad JSON: %w", file, err)
	}
	// opencode names the file by the id; Load finds a session by its file
	name := strings.TrimSuffix(filepath.Base(file), ".json")
	if ss.ID == "" {
		ss.ID = name
	}
	if ss.ID != name {
		return model.SessionInfo{}, fmt.Errorf("not a session file: %s (its id %q is not its file name)", file, ss.ID)
	}
	return ss.info(s.root, s.dataDir), nil
}

// jsonFiles returns the *.json names in dir, sorted; a missing dir is empty.
func jsonFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	return names // os.ReadDir sorts by name
}

// List reads the session files and counts each session's messages from the
// directory listing. Tool counts need the part files: each is read and,
// when it mentions "tool", decoded into a small struct (the part files of
// the sessions are read in parallel). A corrupt session file is skipped
// with a warning (see sessions.Warnings).
func (s *legacyStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	files, err := s.sessionFiles()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", s.root, err)
	}
	ids := make([]string, 0, len(files))
	for id := range files {
		ids = append(ids, id)
	}
	sort.Strings(ids)

	infos := make([]model.SessionInfo, len(ids))
	errs := make([]error, len(ids))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(runtime.GOMAXPROCS(0), 8); w++ { // IO-bound when the cache is cold
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				infos[i], errs[i] = s.listOne(files[ids[i]])
			}
		}()
	}
	for i := range ids {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []model.SessionInfo
	var warnings []string
	var problems []error
	for i := range ids {
		if errs[i] != nil {
			warnings = append(warnings, sessions.Skipped(errs[i]))
			problems = append(problems, errs[i])
			continue
		}
		out = append(out, infos[i])
	}
	s.mu.Lock()
	s.warnings = warnings
	s.mu.Unlock()
	sessions.SortInfos(out)
	return out, sessions.NoSessionRead(len(out), problems)
}

func (s *legacyStore) listOne(file string) (model.SessionInfo, error) {
	info, err := s.readSession(file)
	if err != nil {
		return info, err
	}
	msgDir := filepath.Join(s.root, "message", info.ID)
	var d decoder // the warnings are Load's to give
	for _, m := range jsonFiles(msgDir) {
		// a message Load cannot decode takes its parts with it: count as it does
		path := filepath.Join(msgDir, m)
		data, err := sessions.ReadFile(path)
		if err != nil {
			continue
		}
		if _, ok := d.message("", data, 0, path); !ok {
			continue
		}
		info.Messages++
		dir := filepath.Join(s.root, "part", strings.TrimSuffix(m, ".json"))
		for _, p := range jsonFiles(dir) {
			data, err := sessions.ReadFile(filepath.Join(dir, p))
			if err != nil || !bytes.Contains(data, []byte(`"tool"`)) {
				continue
			}
			var sp struct {
				Type  string `json:"type"`
				State struct {
					Status   string `json:"status"`
					Metadata struct {
						Truncated json.RawMessage `json:"truncated"`
					} `json:"metadata"`
				} `json:"state"`
			}
			if json.Unmarshal(data, &sp) != nil || sp.Type != string(model.PartTool) {
				continue
			}
			info.ToolCalls++
			if sp.State.Status == string(model.StatusError) {
				info.Errors++
			}
			if string(sp.State.Metadata.Truncated) == "true" {
				info.Truncated++
			}
		}
	}
	return info, nil
}

func (s *legacyStore) Load(ctx context.Context, id string) (*model.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var file string
	if id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." {
		matches, _ := filepath.Glob(filepath.Join(s.root, "session", "*", globEscape(id)+".json"))
		if len(matches) > 0 {
			file = matches[0]
		}
	}
	if file == "" {
		return nil, sessions.NotFound(id, s.root)
	}
	info, err := s.readSession(file)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	sess := &model.Session{Info: info}
	var d decoder
	msgDir := filepath.Join(s.root, "message", id)
	for _, name := range jsonFiles(msgDir) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(msgDir, name)
		mid := strings.TrimSuffix(name, ".json")
		data, err := sessions.ReadFile(path)
		if err != nil {
			d.warnf("%v, skipped", err)
			continue
		}
		m, ok := d.message("", data, 0, path)
		if !ok {
			continue
		}
		if m.ID == "" {
			m.ID = mid
		}
		partDir := filepath.Join(s.root, "part", mid)
		for _, pname := range jsonFiles(partDir) {
			ppath := filepath.Join(partDir, pname)
			pdata, err := sessions.ReadFile(ppath)
			if err != nil {
				d.warnf("%v, skipped", err)
				continue
			}
			p, ok := d.part("", pdata, ppath)
			if !ok {
				continue
			}
			if p.ID == "" {
				p.ID = strings.TrimSuffix(pname, ".json")
			}
			m.Parts = append(m.Parts, p)
		}
		sess.Messages = append(sess.Messages, m)
	}
	sessions.CountCalls(&sess.Info, sess.Messages)
	sess.Warnings = d.warnings
	return sess, nil
}

// globEscape escapes the glob metacharacters of s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
