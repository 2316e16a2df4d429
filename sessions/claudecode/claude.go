// Package claudecode is Claude Code's driver: it reads Claude Code
// transcripts into the model types, and registers what every layer asks of
// Claude Code (driver.go: discovery, opening, spill layout; markers.go: its
// truncation markers; wire.go: the Anthropic requests it sent).
//
// Claude Code transcripts: <config>/projects/<encoded-cwd>/<session>.jsonl,
// one JSON object per line, with <session>/subagents/agent-<id>.jsonl
// (older: <encoded-cwd>/agent-<id>.jsonl) and <session>/tool-results/
// (spilled outputs) beside it. The config dir is $CLAUDE_CONFIG_DIR, by
// default ~/.claude. Files are only read.
//
// The model view of a tool call is its tool_result block (string or block
// list, is_error), with content-replacement records applied; Claude Code
// 2.1.x also logs each request's messages (api-request records), from which
// the result exactly as sent is taken: Claude Code appends the system
// reminders that follow a tool result to the last result of the message.
//
// An api-request record names its new messages by hash: an
// api-request-blob record, or a run of transcript lines. A run is, as
// Claude Code's replay index reads the file, consecutive user lines (the
// results of parallel calls are one line each, in the order they arrived,
// sent as one message), or consecutive assistant lines of one message.id;
// every prefix of a run is a candidate, its content the lines' blocks (a
// string content is one text block). A step whose record cannot be
// resolved gets its request rebuilt from the runs and is labelled so.
package claudecode

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// ConfigDir returns Claude Code's config dir: $CLAUDE_CONFIG_DIR, by
// default ~/.claude.
func ConfigDir() string { return sessions.AgentDir("CLAUDE_CONFIG_DIR", ".claude") }

// claudeStore reads the transcripts of one file, one project dir, a
// projects dir or a config dir.
type claudeStore struct {
	path  string   // as opened
	roots []string // transcript files or dirs to walk
	root  string   // config dir (holding projects/), "" when unknown

	mu    sync.Mutex
	cache map[string]*claudeCached // by file; guarded by mu
	sessions.FileIndex
}

type claudeCached struct {
	mod  time.Time
	size int64
	sess []*model.Session // the file's session, then inline sidechains
}

// openClaudeDir opens a config dir (projects/ inside), a projects dir or a
// project dir of Claude Code transcripts; ok is false when dir holds none,
// and problem then names a .jsonl file that could not be read.
func openClaudeDir(dir string) (s sessions.Store, ok bool, problem error) {
	for _, d := range []string{filepath.Join(dir, "projects"), dir} {
		found, err := hasClaudeTranscripts(d)
		if found {
			return newClaudeStore(dir, []string{d}), true, nil
		}
		problem = cmp.Or(problem, err)
	}
	return nil, false, problem
}

// hasClaudeTranscripts says whether dir holds *.jsonl files whose first
// line looks like Claude Code's, directly or one level down; problem is
// the first such file that could not be read.
func hasClaudeTranscripts(dir string) (found bool, problem error) {
	top, subs := jsonlNames(dir)
	for _, files := range [][]string{top, subs} {
		for _, f := range files {
			ok, err := looksClaude(f)
			if ok {
				return true, nil
			}
			problem = cmp.Or(problem, err)
		}
	}
	return false, problem
}

// jsonlNames are the *.jsonl names in dir and in its subdirectories, each
// sorted. Names are read unsorted and matched by suffix, not with Glob:
// another agent's folder beside them (opencode's tool-output/) can hold
// tens of thousands of files, and every store open comes here.
func jsonlNames(dir string) (top, subs []string) {
	names := func(d string) []string {
		f, err := os.Open(d)
		if err != nil {
			return nil
		}
		defer f.Close()
		all, _ := f.Readdirnames(-1)
		var out []string
		for _, n := range all {
			if strings.HasSuffix(n, ".jsonl") {
				out = append(out, filepath.Join(d, n))
			}
		}
		sort.Strings(out)
		return out
	}
	top = names(dir)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			subs = append(subs, names(filepath.Join(dir, e.Name()))...)
		}
	}
	return top, subs
}

// looksClaude says whether a record in the first 4 KiB of a file is Claude
// Code's: a summary (leafUuid), a queue-operation, a file-history-snapshot,
// or a line of the chain (parentUuid) whose message has content, or
// without a message that says isSidechain. Agents with Claude-like records
// (Qwen Code: parentUuid, sessionId, isSidechain in its subagents' files,
// a message of Gemini parts) are told apart by the message's keys; the
// keys of a record cut off at 4 KiB are read as far as they go.
func looksClaude(path string) (bool, error) {
	head, err := sessions.ReadHead(path, 4096)
	if err != nil {
		return false, err
	}
	dec := json.NewDecoder(bytes.NewReader(head))
	for {
		keys, msg := map[string]bool{}, map[string]bool{}
		whole := ccKeys(dec, keys, "message", msg)
		if msg["parts"] {
			return false, nil // a message of Gemini parts: Qwen Code's
		}
		if keys["type"] && (keys["leafUuid"] || keys["operation"] && keys["sessionId"] || keys["messageId"] && keys["snapshot"] ||
			keys["parentUuid"] && (msg["content"] || keys["isSidechain"] && !keys["message"])) {
			return true, nil
		}
		if !whole {
			return false, nil
		}
	}
}

// ccKeys reads the next JSON value's keys into keys, and those of its
// member sub into subKeys; false when the value did not end (or is a
// list).
func ccKeys(dec *json.Decoder, keys map[string]bool, sub string, subKeys map[string]bool) bool {
	t, err := dec.Token()
	if err != nil || t == json.Delim('[') {
		return false
	}
	if t != json.Delim('{') {
		return true // a scalar
	}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return false
		}
		keys[k] = true
		var skip json.RawMessage
		if k == sub && subKeys != nil {
			ok = ccKeys(dec, subKeys, "", nil)
		} else {
			ok = dec.Decode(&skip) == nil
		}
		if !ok {
			return false
		}
	}
	_, err = dec.Token()
	return err == nil
}

func newClaudeStore(path string, roots []string) *claudeStore {
	s := &claudeStore{path: path, roots: roots, cache: map[string]*claudeCached{}}
	abs, _ := filepath.Abs(roots[0])
	if i := strings.LastIndex(abs, string(filepath.Separator)+"projects"+string(filepath.Separator)); i >= 0 {
		s.root = abs[:i]
	} else if filepath.Base(abs) == "projects" {
		s.root = filepath.Dir(abs)
	}
	return s
}

func (s *claudeStore) Path() string { return s.path }
func (s *claudeStore) Close() error { return nil }

// Fingerprint implements sessions.Fingerprinter over the transcript files,
// so an idle TUI on a Claude Code session lists nothing until one changes.
func (s *claudeStore) Fingerprint() (string, bool) {
	var files []string
	for _, f := range s.transcriptFiles() {
		files = append(files, f)
		if meta := strings.TrimSuffix(f, ".jsonl") + ".meta.json"; sessions.IsFile(meta) {
			files = append(files, meta) // a subagent's title
		}
	}
	return sessions.FilesFingerprint(s.path, files, 0)
}

// transcriptFiles lists the transcripts: session files, and subagent files
// (subagents/**/agent-*.jsonl and the older <project>/agent-*.jsonl).
func (s *claudeStore) transcriptFiles() []string {
	var out []string
	for _, r := range s.roots {
		st, err := os.Stat(r)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			out = append(out, r)
			sub := filepath.Join(strings.TrimSuffix(r, ".jsonl"), "subagents")
			_ = filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
					out = append(out, p)
				}
				return nil
			})
			continue
		}
		_ = filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "tool-results" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && d.Name() != "history.jsonl" {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// load reads a file through the cache.
func (s *claudeStore) load(file string) ([]*model.Session, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, sessions.FileErr(file, err)
	}
	s.mu.Lock()
	c := s.cache[file]
	s.mu.Unlock()
	if c != nil && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
		return c.sess, nil
	}
	sess, err := readClaudeTranscript(file, s.root)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cache[file] = &claudeCached{mod: st.ModTime(), size: st.Size(), sess: sess}
	s.mu.Unlock()
	return sess, nil
}

func (s *claudeStore) List(ctx context.Context) ([]model.SessionInfo, error) {
	var infos []model.SessionInfo
	var warns []string
	var problems []error
	files := map[string]string{}
	byID := map[string]*model.Session{}
	for _, f := range s.transcriptFiles() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		list, err := s.load(f)
		if err == nil && len(list[0].Messages) == 0 && len(list[0].Warnings) > 0 {
			err = sessions.NotSession(f, "line "+strings.TrimPrefix(list[0].Warnings[0], f+":"))
		}
		if err != nil {
			warns = append(warns, sessions.Skipped(err))
			problems = append(problems, err)
			continue
		}
		for _, sess := range list {
			if _, dup := files[sess.Info.ID]; dup {
				continue
			}
			files[sess.Info.ID] = f
			byID[sess.Info.ID] = sess
		}
	}
	for _, sess := range byID {
		if len(sess.Messages) == 0 {
			continue
		}
		infos = append(infos, sess.Info)
	}
	s.SetIndex(files, warns)
	sessions.SortInfos(infos)
	return infos, sessions.NoSessionRead(len(infos), problems)
}

func (s *claudeStore) Load(ctx context.Context, id string) (*model.Session, error) {
	file, err := s.FileOf(ctx, id, s.path, s.List)
	if err != nil {
		return nil, err
	}
	list, err := s.load(file)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", id, err)
	}
	for _, sess := range list {
		if sess.Info.ID == id {
			out := *sess
			out.Warnings = append(append([]string(nil), sess.Warnings...), s.Warnings()...)
			return &out, nil
		}
	}
	return nil, sessions.NotFound(id, s.path)
}

// ---- reading one transcript ----

// ccLine is the union of the record shapes correx reads.
type ccLine struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	AgentID           string          `json:"agentId"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	CWD               string          `json:"cwd"`
	Version           string          `json:"version"`
	Message           json.RawMessage `json:"message"`
	ToolUseResult     json.RawMessage `json:"toolUseResult"`
	Attachment        json.RawMessage `json:"attachment"`
	RequestRef        string          `json:"requestRef"`
	Content           json.RawMessage `json:"content"`
	// titles
	Summary     string `json:"summary"`
	AITitle     string `json:"aiTitle"`
	CustomTitle string `json:"customTitle"`
	// content-replacement
	Replacements []struct {
		Kind        string          `json:"kind"`
		ToolUseID   string          `json:"toolUseId"`
		Replacement json.RawMessage `json:"replacement"`
	} `json:"replacements"`
	// api-request, api-request-blob
	ID           string   `json:"id"`
	Base         string   `json:"base"`
	Keep         int      `json:"keep"`
	Tail         []string `json:"tail"`
	Hash         string   `json:"hash"`
	CacheControl []struct {
		Path  []json.RawMessage `json:"path"`
		Value json.RawMessage   `json:"value"`
	} `json:"cacheControl"`
}

type ccMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stop_reason"`
}

// ccReader builds the sessions of one file.
type ccReader struct {
	file   string
	root   string
	warn   []string
	warnAt func(n int, format string, args ...any) // "file:n: …" into warn

	main      *model.Session
	sidechain map[string]*model.Session // inline sidechains (1.0.x), by root uuid
	sideOf    map[string]string         // uuid -> sidechain root uuid

	// per session being built
	st   map[*model.Session]*ccState
	rank map[*model.Session]int // rank of the title set so far
}

type ccState struct {
	assistantAt map[string]int             // message.id -> index in Messages
	calls       map[string]*model.ToolCall // tool_use id -> call
	blobs       map[string]json.RawMessage // hash -> api-request-blob message
	requests    map[string]*ccRequest
	pending     string                     // the last api-request not yet followed by its assistant message
	stepReq     map[int]string             // assistant message index -> api-request id
	stepLine    map[int]int                // assistant message index -> its first line
	replaced    map[string]json.RawMessage // tool_use id -> replacement
	uuids       map[string]bool
	firstPrompt string
	notices     []ccNotice // read_truncation_notice attachments, in order

	runs       []*ccRun
	cur        *ccRun              // the run the next line may extend
	runHash    map[string]ccRunRef // hash -> a prefix of a run
	boundaries []int               // lines of compact boundaries
}

// ccNotice is a read_truncation_notice attachment: its call and line.
type ccNotice struct {
	id   string
	line int
}

// ccRequest is one api-request record read.
type ccRequest struct {
	req  *model.LoggedRequest
	id   string
	line int
	// msgs is req.Messages with the spare capacity the next request, which
	// keeps them all, appends its own into (req.Messages is capped, so no
	// one else writes there); extended says a request did.
	msgs     []json.RawMessage
	extended bool
}

// ccRun is a run of transcript lines: consecutive user lines, or
// consecutive assistant lines of one message.id.
type ccRun struct {
	role, msgID string
	line        int               // its first line
	blocks      []json.RawMessage // the lines' content blocks, in order
	hash        hash.Hash         // sha256 of `{"content":[` and the blocks as Claude Code hashes them
	broken      bool              // a block that is not JSON: no more prefixes
}

// ccRunRef is the first n blocks of a run.
type ccRunRef struct {
	run *ccRun
	n   int
}

var ccAgentIDTail = regexp.MustCompile(`agentId: ([0-9a-zA-Z_-]+)`)

// readClaudeTranscript reads one file: its session (or subagent) first,
// then any inline sidechains as their own sessions.
func readClaudeTranscript(file, root string) ([]*model.Session, error) {
	r := &ccReader{file: file, root: root, sidechain: map[string]*model.Session{}, sideOf: map[string]string{}, st: map[*model.Session]*ccState{}, rank: map[*model.Session]int{}}
	base := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	r.main = r.newSession(base)
	r.warnAt = sessions.LineWarner(&r.warn, file)
	if err := sessions.ReadJSONL(file, func(n int, line []byte, last bool) { r.line(line, n, last) }, r.warnAt); err != nil {
		return nil, err
	}
	out := []*model.Session{r.main}
	var sides []string
	for k := range r.sidechain {
		sides = append(sides, k)
	}
	sort.Strings(sides)
	for _, k := range sides {
		out = append(out, r.sidechain[k])
	}
	for _, sess := range out {
		r.finish(sess)
	}
	r.linkSidechains()
	r.main.Warnings = append(r.main.Warnings, r.warn...)
	r.spawnInfo(base)
	return out, nil
}

func (r *ccReader) newSession(id string) *model.Session {
	sess := &model.Session{Info: model.SessionInfo{ID: id, Agent: model.AgentClaudeCode, Source: r.file, DataDir: r.dataDir()}}
	r.st[sess] = &ccState{
		assistantAt: map[string]int{}, calls: map[string]*model.ToolCall{}, blobs: map[string]json.RawMessage{},
		requests: map[string]*ccRequest{}, stepReq: map[int]string{}, stepLine: map[int]int{},
		replaced: map[string]json.RawMessage{}, uuids: map[string]bool{}, runHash: map[string]ccRunRef{},
	}
	return sess
}

// dataDir is where spill files are looked up: the config dir when known,
// else the transcript's folder.
func (r *ccReader) dataDir() string {
	if r.root != "" {
		return r.root
	}
	return filepath.Dir(r.file)
}

func (r *ccReader) warnf(format string, args ...any) {
	r.warn = append(r.warn, fmt.Sprintf(format, args...))
}

// spawnInfo reads agent-<id>.meta.json beside a subagent file.
func (r *ccReader) spawnInfo(base string) {
	if !strings.HasPrefix(base, "agent-") {
		return
	}
	b, err := sessions.ReadFile(strings.TrimSuffix(r.file, ".jsonl") + ".meta.json")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.main.Warnings = append(r.main.Warnings, err.Error())
		}
		return
	}
	var meta struct {
		Description string `json:"description"`
		AgentType   string `json:"agentType"`
	}
	if json.Unmarshal(b, &meta) != nil {
		r.main.Warnings = append(r.main.Warnings, fmt.Sprintf("%s: bad JSON", strings.TrimSuffix(r.file, ".jsonl")+".meta.json"))
		return
	}
	if meta.Description != "" {
		r.main.Info.Title = meta.Description
		if meta.AgentType != "" {
			r.main.Info.Title += " (" + meta.AgentType + ")"
		}
	}
}

func (r *ccReader) line(raw []byte, lineNo int, last bool) {
	var l ccLine
	if err := json.Unmarshal(raw, &l); err != nil {
		what := "bad JSON"
		if last {
			what = "partial line (still being written?)"
		}
		r.warnAt(lineNo, "%s, skipped: %v", what, err)
		return
	}
	sess := r.main
	if l.IsSidechain && !strings.HasPrefix(filepath.Base(r.file), "agent-") && l.AgentID == "" {
		sess = r.sidechainOf(l)
	}
	info := &sess.Info
	st := r.st[sess]
	if l.Version != "" && info.Version == "" {
		info.Version = l.Version
	}
	if l.CWD != "" && info.Directory == "" {
		info.Directory = l.CWD
	}
	if t, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
		if info.Created.IsZero() || t.Before(info.Created) {
			info.Created = t
		}
		if t.After(info.Updated) {
			info.Updated = t
		}
	}
	if sess == r.main && l.SessionID != "" {
		switch {
		case strings.HasPrefix(filepath.Base(r.file), "agent-"):
			if l.AgentID != "" {
				info.ID = l.AgentID
			}
			info.ParentID = l.SessionID
		case !ccLooksUUID(info.ID):
			info.ID = l.SessionID // a copied or renamed file: trust the records
		}
	}
	switch l.Type {
	case "summary":
		r.setTitle(sess, l.Summary, 1)
	case "ai-title":
		r.setTitle(sess, l.AITitle, 2)
	case "custom-title":
		r.setTitle(sess, l.CustomTitle, 3)
	case "content-replacement":
		for _, rep := range l.Replacements {
			if rep.ToolUseID != "" && len(rep.Replacement) > 0 {
				st.replaced[rep.ToolUseID] = rep.Replacement
				if c := st.calls[rep.ToolUseID]; c != nil && c.Sent != nil {
					c.Sent = claudeResultValue(rep.Replacement, c.Status == model.StatusError)
				}
			}
		}
	case "api-request-blob":
		if l.Hash != "" && len(l.Message) > 0 {
			st.blobs[l.Hash] = l.Message
		}
	case "api-request":
		r.request(sess, st, l, lineNo)
	case "attachment":
		r.attachment(st, l, lineNo)
	case "user":
		if r.dup(st, l.UUID) {
			return
		}
		st.noteRun(l.Message, lineNo)
		r.user(sess, st, l, lineNo)
	case "assistant":
		if r.dup(st, l.UUID) {
			return
		}
		st.noteRun(l.Message, lineNo)
		r.assistant(sess, st, l, lineNo)
	case "system":
		if l.Subtype == "compact_boundary" {
			st.cur = nil
			st.boundaries = append(st.boundaries, lineNo)
			var text string
			_ = json.Unmarshal(l.Content, &text)
			if text == "" {
				text = "Conversation compacted"
			}
			sess.Messages = append(sess.Messages, model.Message{ID: l.UUID, Role: model.RoleUser, Created: ccTime(l.Timestamp),
				Parts: []model.Part{{ID: l.UUID, Type: model.PartCompaction, Text: text, Synthetic: true}}})
		}
	}
}

func ccLooksUUID(s string) bool { return len(s) == 36 && strings.Count(s, "-") == 4 }

// setTitle keeps the title of the highest rank: custom (3) > ai (2) >
// summary (1) > first prompt (0).
func (r *ccReader) setTitle(sess *model.Session, title string, rank int) {
	if title == "" {
		return
	}
	if old, ok := r.rank[sess]; ok && old > rank {
		return
	}
	r.rank[sess] = rank
	sess.Info.Title = title
}

func ccTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// dup says whether a transcript message's uuid was seen (older versions
// copied the chain into a resumed file).
func (r *ccReader) dup(st *ccState, uuid string) bool {
	if uuid == "" {
		return false
	}
	if st.uuids[uuid] {
		return true
	}
	st.uuids[uuid] = true
	return false
}

// sidechainOf returns the inline sidechain session a 1.0.x line belongs to.
func (r *ccReader) sidechainOf(l ccLine) *model.Session {
	rootID := ""
	if l.ParentUUID != nil {
		rootID = r.sideOf[*l.ParentUUID]
	}
	if rootID == "" {
		rootID = l.UUID
	}
	if l.UUID != "" {
		r.sideOf[l.UUID] = rootID
	}
	sess := r.sidechain[rootID]
	if sess == nil {
		sess = r.newSession(rootID)
		sess.Info.ParentID = r.main.Info.ID
		r.sidechain[rootID] = sess
	}
	return sess
}

func (r *ccReader) user(sess *model.Session, st *ccState, l ccLine, lineNo int) {
	var m ccMessage
	if json.Unmarshal(l.Message, &m) != nil {
		r.warnAt(lineNo, "user record without a message, skipped")
		return
	}
	msg := model.Message{ID: l.UUID, Role: model.RoleUser, Created: ccTime(l.Timestamp), Summary: l.IsCompactSummary}
	synthetic := l.IsMeta || l.IsCompactSummary
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		msg.Parts = append(msg.Parts, model.Part{ID: l.UUID, Type: model.PartText, Text: s, Synthetic: synthetic})
		if !synthetic && st.firstPrompt == "" {
			st.firstPrompt = s
		}
	} else {
		var blocks []json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			r.warnAt(lineNo, "user content is neither a string nor a list, skipped")
			return
		}
		for i, raw := range blocks {
			var b model.AnthropicBlock
			if json.Unmarshal(raw, &b) != nil {
				r.warnAt(lineNo, "content[%d] is not an object, skipped", i)
				continue
			}
			switch b.Type {
			case "text":
				msg.Parts = append(msg.Parts, model.Part{ID: fmt.Sprintf("%s/%d", l.UUID, i), Type: model.PartText, Text: b.Text, Synthetic: synthetic})
				if !synthetic && st.firstPrompt == "" && !strings.HasPrefix(b.Text, "<") {
					st.firstPrompt = b.Text
				}
			case "image", "document":
				if f := ccBlockFile(b); f != nil {
					msg.Parts = append(msg.Parts, model.Part{ID: fmt.Sprintf("%s/%d", l.UUID, i), Type: model.PartFile, File: f})
				}
			case "tool_result":
				r.result(sess, st, l, b)
				for _, k := range ccUnknownBlocks(b.Content) {
					r.warnAt(lineNo, "tool_result %s: a %q block correx does not read, left out of the result", b.ToolUseID, k)
				}
			}
		}
	}
	if len(msg.Parts) > 0 {
		sess.Messages = append(sess.Messages, msg)
	}
}

// result attaches a tool_result block to its call.
func (r *ccReader) result(sess *model.Session, st *ccState, l ccLine, b model.AnthropicBlock) {
	c := st.calls[b.ToolUseID]
	if c == nil {
		r.warnf("%s: tool_result for unknown tool_use %s", r.file, b.ToolUseID)
		return
	}
	isErr := b.Errored()
	c.Status = model.StatusCompleted
	if isErr {
		c.Status = model.StatusError
	}
	content := b.Content
	if rep, ok := st.replaced[b.ToolUseID]; ok {
		content = rep
	}
	c.Sent = claudeResultValue(content, isErr)
	text := formatters.ResultText(*c.Sent)
	if isErr {
		c.Error = text
	} else {
		c.Output = text
	}
	c.End = ccTime(l.Timestamp)
	if len(l.ToolUseResult) > 0 && string(l.ToolUseResult) != "null" {
		c.Metadata = l.ToolUseResult
		var tur struct {
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal(l.ToolUseResult, &tur) == nil && tur.AgentID != "" {
			c.ChildSessionID = tur.AgentID
		}
	}
	if c.ChildSessionID == "" && (c.Tool == "Agent" || c.Tool == "Task") {
		if m := ccAgentIDTail.FindStringSubmatch(text); m != nil {
			c.ChildSessionID = m[1]
		}
	}
}

// attachment reads the one attachment that concerns a tool call: Claude
// Code's read_truncation_notice, the note it sends the model after a Read
// it cut at its token cap (rendered by Claude Code as it builds each
// request; where it went is read from the logged requests in finish).
func (r *ccReader) attachment(st *ccState, l ccLine, lineNo int) {
	var a struct {
		Type      string `json:"type"`
		Banner    string `json:"banner"`
		ToolUseID string `json:"toolUseID"`
	}
	if json.Unmarshal(l.Attachment, &a) != nil || a.Type != "read_truncation_notice" {
		return
	}
	c := st.calls[a.ToolUseID]
	if c == nil {
		r.warnAt(lineNo, "read_truncation_notice for unknown tool_use %s, skipped", a.ToolUseID)
		return
	}
	c.Notice = &model.Notice{Text: a.Banner, Where: fmt.Sprintf("read_truncation_notice at %s:%d; no logged request carries the result, so where Claude Code sent it is not known", r.file, lineNo)}
	st.notices = append(st.notices, ccNotice{a.ToolUseID, lineNo})
}

// noticeWhere says where a logged request put the notice text of call id:
// appended to the result, or in which message after the result's; ok is
// false when the request does not carry the result.
func noticeWhere(req *model.LoggedRequest, id, text string) (where string, ok bool) {
	at := -1
	for i, raw := range req.Messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if at >= 0 {
			if strings.Contains(ccContentText(m.Content), text) {
				if i == at+1 {
					return fmt.Sprintf("a %q message of its own right after the result's user message", m.Role), true
				}
				return fmt.Sprintf("a %q message of its own, %d messages after the result's", m.Role, i-at), true
			}
			continue
		}
		var blocks []model.AnthropicBlock
		if !bytes.Contains(m.Content, []byte(id)) || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				at = i
				if strings.Contains(formatters.ResultText(*claudeResultValue(b.Content, false)), text) {
					return "appended to the result", true
				}
			}
		}
	}
	if at < 0 {
		return "", false
	}
	return "not in the logged request that carries the result", true
}

// claudeResultValue is a tool_result content as a result value: a string
// (error when is_error), or a block list of text and images (as data: URLs).
func claudeResultValue(content json.RawMessage, isErr bool) *model.ToolResultValue {
	var s string
	if len(content) == 0 || string(content) == "null" {
		s = ""
	} else if json.Unmarshal(content, &s) != nil {
		var blocks []model.AnthropicBlock
		if json.Unmarshal(content, &blocks) == nil {
			v := &model.ToolResultValue{Type: model.ResultContent, Content: []model.ToolContent{}}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					v.Content = append(v.Content, model.ToolContent{Type: model.ContentText, Text: b.Text})
				case "tool_reference":
					v.Content = append(v.Content, model.ToolContent{Type: model.ContentToolRef, Name: b.ToolName})
				default:
					if f := ccBlockFile(b); f != nil {
						v.Content = append(v.Content, model.ToolContent{Type: model.ContentFile, URI: f.URL, Mime: f.Mime})
					}
				}
			}
			return v
		}
		s = string(content)
	}
	if isErr {
		return &model.ToolResultValue{Type: model.ResultError, Text: s}
	}
	return &model.ToolResultValue{Type: model.ResultText, Text: s}
}

// ccUnknownBlocks is the types of a tool_result content's blocks that
// claudeResultValue leaves out.
func ccUnknownBlocks(content json.RawMessage) []string {
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	var blocks []model.AnthropicBlock
	_ = json.Unmarshal(content, &blocks)
	var out []string
	for _, b := range blocks {
		switch {
		case b.Type == "text" || b.Type == "tool_reference":
		case (b.Type == "image" || b.Type == "document") && ccBlockFile(b) != nil:
		default:
			out = append(out, b.Type)
		}
	}
	return out
}

// ccBlockFile is an image or document block as a file (base64 sources as a
// data: URL).
func ccBlockFile(b model.AnthropicBlock) *model.File {
	if b.Source == nil {
		return nil
	}
	switch b.Source.Type {
	case "base64":
		return &model.File{Mime: b.Source.MediaType, URL: "data:" + b.Source.MediaType + ";base64," + b.Source.Data}
	case "url":
		return &model.File{Mime: b.Source.MediaType, URL: b.Source.URL}
	}
	return nil
}

func (r *ccReader) assistant(sess *model.Session, st *ccState, l ccLine, lineNo int) {
	var m ccMessage
	if json.Unmarshal(l.Message, &m) != nil {
		r.warnAt(lineNo, "assistant record without a message, skipped")
		return
	}
	if l.IsAPIErrorMessage || m.Model == "<synthetic>" {
		// no model call made it; shown as a note, not a step
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s:%d: API error message: %s", r.file, lineNo, ccClip(ccContentText(m.Content), 200)))
		return
	}
	var blocks []json.RawMessage
	if json.Unmarshal(m.Content, &blocks) != nil {
		r.warnAt(lineNo, "assistant content is not a list, skipped")
		return
	}
	t := ccTime(l.Timestamp)
	idx, ok := st.assistantAt[m.ID]
	if !ok || m.ID == "" {
		sess.Messages = append(sess.Messages, model.Message{ID: m.ID, Role: model.RoleAssistant, Created: t, ProviderID: "anthropic", ModelID: m.Model})
		idx = len(sess.Messages) - 1
		if m.ID != "" {
			st.assistantAt[m.ID] = idx
		}
		st.stepLine[idx] = lineNo
		st.stepReq[idx] = l.RequestRef
		if l.RequestRef == "" {
			st.stepReq[idx] = st.pending
		}
		st.pending = ""
	}
	msg := &sess.Messages[idx]
	msg.Completed = t
	if m.StopReason != "" {
		msg.Finish = m.StopReason
	}
	for i, raw := range blocks {
		var b model.AnthropicBlock
		if json.Unmarshal(raw, &b) != nil {
			r.warnAt(lineNo, "content[%d] is not an object, skipped", i)
			continue
		}
		pid := fmt.Sprintf("%s/%d", l.UUID, i)
		switch b.Type {
		case "text":
			msg.Parts = append(msg.Parts, model.Part{ID: pid, Type: model.PartText, Text: b.Text})
		case "thinking":
			p := model.Part{ID: pid, Type: model.PartReasoning, Text: b.Thinking}
			if b.Signature != nil {
				p.Metadata, _ = json.Marshal(map[string]any{"anthropic": map[string]string{"signature": *b.Signature}})
			}
			msg.Parts = append(msg.Parts, p)
		case "redacted_thinking":
			p := model.Part{ID: pid, Type: model.PartReasoning}
			if b.Data != nil {
				p.Metadata, _ = json.Marshal(map[string]any{"anthropic": map[string]string{"redactedData": *b.Data}})
			}
			msg.Parts = append(msg.Parts, p)
		case "tool_use", "server_tool_use":
			c := &model.ToolCall{CallID: b.ID, Tool: b.Name, Status: model.StatusRunning, Input: b.Input, Start: t, Title: claudeCallTitle(b.Name, b.Input)}
			st.calls[b.ID] = c
			msg.Parts = append(msg.Parts, model.Part{ID: pid, Type: model.PartTool, Tool: c})
		}
	}
}

// claudeCallTitle is a short description of a call from its input.
func claudeCallTitle(tool string, input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	for _, k := range []string{"description", "command", "file_path", "pattern", "url", "prompt"} {
		if s, ok := in[k].(string); ok && s != "" {
			return ccClip(s, 80)
		}
	}
	return ""
}

func ccContentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []model.AnthropicBlock
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func ccClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// request rebuilds one api-request record's messages: the base request's
// first Keep, then each tail hash from a blob or a run of transcript lines.
func (r *ccReader) request(sess *model.Session, st *ccState, l ccLine, lineNo int) {
	if l.ID == "" {
		return
	}
	req := &model.LoggedRequest{Provider: "anthropic"}
	var msgs []json.RawMessage
	if l.Keep > 0 {
		base := st.requests[l.Base]
		switch {
		case base == nil || base.req.Missing > 0 || len(base.req.Messages) < l.Keep:
			req.Missing += l.Keep
		case len(base.msgs) == l.Keep && !base.extended:
			// the usual step: share the base's messages rather than copy
			// them, which would make a session quadratic in its steps
			base.extended = true
			msgs = base.msgs
		default:
			msgs = append(make([]json.RawMessage, 0, l.Keep+len(l.Tail)), base.req.Messages[:l.Keep]...)
		}
	}
	for _, h := range l.Tail {
		m, ok := st.blobs[h]
		if !ok {
			var ref ccRunRef
			if ref, ok = st.runHash[h]; ok {
				m = ref.run.message(ref.n, nil)
			}
		}
		if !ok {
			req.Missing++
			continue
		}
		msgs = append(msgs, m)
	}
	req.Messages = msgs[:len(msgs):len(msgs)]
	for _, cc := range l.CacheControl {
		var where string
		var mi, bi int
		if len(cc.Path) < 2 || json.Unmarshal(cc.Path[0], &where) != nil || where != "messages" || json.Unmarshal(cc.Path[1], &mi) != nil {
			continue // system and tools are not the conversation
		}
		bi = -1
		if len(cc.Path) == 4 {
			_ = json.Unmarshal(cc.Path[3], &bi)
		}
		req.Cache = append(req.Cache, model.CacheMark{Message: mi, Block: bi, Value: cc.Value})
	}
	st.requests[l.ID] = &ccRequest{req: req, id: l.ID, line: lineNo, msgs: msgs}
	st.pending = l.ID
}

// noteRun adds a user or assistant line to the runs, as Claude Code's
// replay index does, and the hash of the run so far to the candidates.
func (st *ccState) noteRun(raw json.RawMessage, lineNo int) {
	var m struct {
		Role    string          `json:"role"`
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Role == "" || len(m.Content) == 0 || string(m.Content) == "null" {
		st.cur = nil
		return
	}
	var blocks []json.RawMessage
	var text string
	switch {
	case json.Unmarshal(m.Content, &text) == nil:
		b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
		blocks = []json.RawMessage{b}
	case m.Content[0] == '[':
		if json.Unmarshal(m.Content, &blocks) != nil {
			st.cur = nil
			return
		}
	default:
		blocks = []json.RawMessage{m.Content}
	}
	run := st.cur
	if run == nil || run.role != m.Role || (m.Role != "user" && (m.ID == "" || run.msgID != m.ID)) {
		run = &ccRun{role: m.Role, msgID: m.ID, line: lineNo, hash: sha256.New()}
		run.hash.Write([]byte(`{"content":[`))
		st.runs = append(st.runs, run)
		st.cur = run
	}
	if run.broken {
		return
	}
	for _, b := range blocks {
		c := claudeCanonical(b)
		if c == nil {
			run.broken = true
			return
		}
		if len(run.blocks) > 0 {
			run.hash.Write([]byte{','})
		}
		run.hash.Write(c)
		run.blocks = append(run.blocks, b)
	}
	// the prefix's hash: a copy of the running state, closed
	state, err := run.hash.(encoding.BinaryMarshaler).MarshalBinary()
	prefix := sha256.New()
	if err != nil || prefix.(encoding.BinaryUnmarshaler).UnmarshalBinary(state) != nil {
		run.broken = true
		return
	}
	var tail bytes.Buffer
	tail.WriteString(`],"role":`)
	ccJSString(&tail, m.Role)
	tail.WriteByte('}')
	prefix.Write(tail.Bytes())
	st.runHash[hex.EncodeToString(prefix.Sum(nil))] = ccRunRef{run: run, n: len(run.blocks)}
}

// message is the run's first n blocks as a message; fix, when set,
// rewrites each block (the transcript rebuild).
func (run *ccRun) message(n int, fix func(json.RawMessage) json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"role":`)
	ccJSString(&b, run.role)
	b.WriteString(`,"content":[`)
	for i, raw := range run.blocks[:n] {
		if i > 0 {
			b.WriteByte(',')
		}
		if fix != nil {
			raw = fix(raw)
		}
		b.Write(raw)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// rebuilt is the request of the step whose first line is line, from the
// transcript: the runs before it since the last compact boundary, with
// content-replacements applied, empty texts sent as "(no content)", and
// Claude Code's one conversation cache mark on the last block.
func (st *ccState) rebuilt(line int, why string) *model.LoggedRequest {
	from := 0
	for _, b := range st.boundaries {
		if b < line {
			from = b
		}
	}
	req := &model.LoggedRequest{Provider: "anthropic", Rebuilt: why}
	var msgs []*ccRun
	for _, run := range st.runs {
		if run.line > from && run.line < line && len(run.blocks) > 0 {
			msgs = ccJoinStreamed(msgs, run)
		}
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, m.message(len(m.blocks), st.sentBlock))
	}
	if n := len(req.Messages); n > 0 {
		var last struct {
			Content []json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(req.Messages[n-1], &last)
		req.Cache = []model.CacheMark{{Message: n - 1, Block: len(last.Content) - 1, Value: json.RawMessage(`{"type":"ephemeral"}`)}}
	}
	return req
}

// ccJoinStreamed adds run to the messages of a rebuilt request. Claude Code
// runs a call while the model still streams the next ones, so an assistant
// message's lines (one message.id) can be split by the lines of the
// results that arrived meanwhile; it sends them as one assistant message
// followed by one user message of all those results, in the order they
// arrived.
func ccJoinStreamed(msgs []*ccRun, run *ccRun) []*ccRun {
	n := len(msgs)
	if n >= 2 && run.role == "assistant" && run.msgID != "" && msgs[n-1].role == "user" &&
		msgs[n-2].role == "assistant" && msgs[n-2].msgID == run.msgID {
		msgs[n-2].blocks = append(msgs[n-2].blocks, run.blocks...)
		return msgs
	}
	if n >= 1 && run.role == "user" && msgs[n-1].role == "user" {
		msgs[n-1].blocks = append(msgs[n-1].blocks, run.blocks...)
		return msgs
	}
	return append(msgs, &ccRun{role: run.role, msgID: run.msgID, blocks: append([]json.RawMessage(nil), run.blocks...)})
}

// sentBlock is a transcript block as Claude Code sends it: a tool_result
// with its content-replacement, an empty text as "(no content)".
func (st *ccState) sentBlock(raw json.RawMessage) json.RawMessage {
	var b struct {
		Type      string  `json:"type"`
		Text      *string `json:"text"`
		ToolUseID string  `json:"tool_use_id"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return raw
	}
	switch {
	case b.Type == "text" && b.Text != nil && *b.Text == "":
		return ccSetField(raw, "text", json.RawMessage(`"(no content)"`))
	case b.Type == "tool_result":
		if rep, ok := st.replaced[b.ToolUseID]; ok {
			return ccSetField(raw, "content", rep)
		}
	}
	return raw
}

// ccSetField replaces one field of a JSON object, keeping the others.
func ccSetField(raw json.RawMessage, key string, val json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	m[key] = val
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// finish links each assistant step to its logged request (rebuilt from
// the transcript, with a warning, when the log does not give it), takes
// each tool result as it was first sent, and fills the list counts.
func (r *ccReader) finish(sess *model.Session) {
	st := r.st[sess]
	steps := sess.AssistantSteps()
	if len(st.requests) == 0 && len(steps) > 0 {
		why := fmt.Sprintf("%s: no api-request records (Claude Code before 2.1 logs none)", r.file)
		sess.Warnings = append(sess.Warnings, why+": every request "+model.RebuiltLabel)
		for _, idx := range steps {
			sess.Messages[idx].Request = st.rebuilt(st.stepLine[idx], why)
		}
	} else {
		for k, idx := range steps {
			cr := st.requests[st.stepReq[idx]]
			if cr != nil && cr.req.Missing == 0 {
				sess.Messages[idx].Request = cr.req
				continue
			}
			why := fmt.Sprintf("%s:%d: step %d has no api-request record", r.file, st.stepLine[idx], k+1)
			if cr != nil {
				why = fmt.Sprintf("%s:%d: api-request %s (step %d): %d of %d messages not found in the transcript",
					r.file, cr.line, cr.id, k+1, cr.req.Missing, cr.req.Missing+len(cr.req.Messages))
			}
			sess.Warnings = append(sess.Warnings, why+": "+model.RebuiltLabel)
			sess.Messages[idx].Request = st.rebuilt(st.stepLine[idx], why)
		}
	}
	// the tool results as first sent (Claude Code appends reminders), and
	// the first logged request carrying each: steps share their messages,
	// so each message is read once, at its first step
	sentSeen := map[string]bool{}
	firstLogged := map[string]*model.LoggedRequest{} // tool_use id -> first logged request with its result
	read := map[ccMessageKey]bool{}
	for _, idx := range steps {
		req := sess.Messages[idx].Request
		if req == nil {
			continue
		}
		logged := req.Rebuilt == ""
		for _, raw := range req.Messages {
			key := ccMessageKey{len: len(raw), logged: logged}
			if len(raw) > 0 {
				key.at = &raw[0]
			}
			if read[key] {
				continue
			}
			read[key] = true
			m, ok := ccReadSent(raw)
			if !ok {
				continue
			}
			for _, b := range m.blocks {
				if b.Type != "tool_result" {
					continue
				}
				if logged && firstLogged[b.ToolUseID] == nil && bytes.Contains(m.content, []byte(b.ToolUseID)) {
					firstLogged[b.ToolUseID] = req
				}
				if !m.user || sentSeen[b.ToolUseID] {
					continue
				}
				sentSeen[b.ToolUseID] = true
				if c := st.calls[b.ToolUseID]; c != nil {
					c.Sent = claudeResultValue(b.Content, b.Errored())
					if c.Status == model.StatusRunning {
						c.Status = model.StatusCompleted
						if b.Errored() {
							c.Status = model.StatusError
						}
					}
				}
			}
		}
	}
	// where each notice went: the first logged request with the result
	for _, n := range st.notices {
		c := st.calls[n.id]
		if req := firstLogged[n.id]; req != nil {
			if where, ok := noticeWhere(req, n.id, c.Notice.Text); ok {
				c.Notice.Where = fmt.Sprintf("%s (read_truncation_notice at %s:%d)", where, r.file, n.line)
			}
		}
	}
	if st.firstPrompt != "" {
		r.setTitle(sess, ccClip(st.firstPrompt, 100), 0)
	}
	sessions.CountCalls(&sess.Info, sess.Messages)
	sess.Info.Truncated = 0
	for _, ref := range sess.ToolCalls() {
		if ref.Call.Sent != nil && formatters.Visible(ref.Call, nil).Truncation != nil {
			sess.Info.Truncated++
		}
	}
}

// ccMessageKey is one request message by where its bytes are: the steps
// that share it share them. logged sets logged requests' apart.
type ccMessageKey struct {
	at     *byte
	len    int
	logged bool
}

// ccSentMessage is a request message read for its tool results.
type ccSentMessage struct {
	user    bool                   // a user message with a block list: its results are sent ones
	content json.RawMessage        // its content
	blocks  []model.AnthropicBlock // its blocks, when the content is a list
}

// ccReadSent reads a request message's blocks; ok is false when it has
// none.
func ccReadSent(raw json.RawMessage) (m ccSentMessage, ok bool) {
	var msg struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msg) != nil || json.Unmarshal(msg.Content, &m.blocks) != nil {
		return m, false
	}
	m.user = msg.Role == "user" && len(msg.Content) > 0 && msg.Content[0] == '['
	m.content = msg.Content
	return m, true
}

// claudeCanonical is a JSON value as Claude Code hashes it in api-request
// records: sorted keys, no spaces, non-ASCII kept, cache_control left out;
// nil when it is not JSON.
func claudeCanonical(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var b bytes.Buffer
	ccCanonical(&b, v)
	return b.Bytes()
}

func ccCanonical(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if k != "cache_control" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			ccJSString(b, k)
			b.WriteByte(':')
			ccCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			ccCanonical(b, e)
		}
		b.WriteByte(']')
	case string:
		ccJSString(b, x)
	case json.Number:
		b.WriteString(string(x))
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
}

// ccJSString writes a string as JSON.stringify does.
func ccJSString(b *bytes.Buffer, s string) {
	const hexd = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hexd[r>>4])
				b.WriteByte(hexd[r&0xf])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// linkSidechains links the Task calls of a 1.0.x file to the inline
// sidechain whose first prompt is the call's prompt.
func (r *ccReader) linkSidechains() {
	for _, ref := range r.main.ToolCalls() {
		c := ref.Call
		if c.ChildSessionID != "" || (c.Tool != "Task" && c.Tool != "Agent") {
			continue
		}
		var in struct {
			Prompt string `json:"prompt"`
		}
		if json.Unmarshal(c.Input, &in) != nil || in.Prompt == "" {
			continue
		}
		for id, side := range r.sidechain {
			if r.st[side].firstPrompt == in.Prompt {
				c.ChildSessionID = id
			}
		}
	}
}
