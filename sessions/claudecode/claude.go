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
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/internal/parallel"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// ConfigDir returns Claude Code's config dir: $CLAUDE_CONFIG_DIR, by
// default ~/.claude.
func ConfigDir() string { return sessions.AgentDir("CLAUDE_CONFIG_DIR", ".claude") }

// claudeStore reads the transcripts of one file, one project dir, a
// projects dir or a config dir, lazily (lazy.go): each transcript is
// indexed by line as it is scanned, and what is large in it (outputs, the
// logged requests' messages) is read again from its lines when shown.
type claudeStore struct {
	path  string   // as opened
	roots []string // transcript files or dirs to walk
	root  string   // config dir (holding projects/), "" when unknown

	mu      sync.Mutex
	open    []*ccFile           // most recently used first, at most keepOpen; guarded by mu
	guessed map[string]string   // session id -> its file, found by guess; guarded by mu
	listed  map[string]ccListed // by file: what List read of it; guarded by mu
	sessions.FileIndex
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
	s := &claudeStore{path: path, roots: roots, listed: map[string]ccListed{}, guessed: map[string]string{}}
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

// messageScalars are m's string fields, by their names.
func messageScalars(m *ccMessage) scalars {
	return scalars{messageScalarNames, []any{&m.ID, &m.Role, &m.Model, &m.StopReason}}
}

var messageScalarNames = []string{"id", "role", "model", "stop_reason"}

// ccReader builds the sessions of one file, a line at a time (lazy.go
// feeds it). What it holds of a large result, of the api-request-blob
// records and of the lines the requests name is where they are in the
// file (ccBlock), read again when a call or a request is shown.
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
	assistantAt map[string]int     // message.id -> index in Messages
	calls       map[string]*ccCall // tool_use id -> call
	parts       map[string]*ccCall // tool part id -> call
	blobs       map[string]*ccBlob // hash -> api-request-blob record
	requests    map[string]*ccRequest
	order       []*ccRequest               // the requests, as read
	pending     string                     // the last api-request not yet followed by its assistant message
	stepReq     map[int]string             // assistant message index -> api-request id
	stepLine    map[int]int                // assistant message index -> its first line
	replaced    map[string]json.RawMessage // tool_use id -> replacement
	uuids       map[string]bool
	firstPrompt string
	notices     []*ccNotice // read_truncation_notice attachments, in order

	// by line offset: the strings the wire can read a line without
	without map[int64]ccWithout

	runs       []*ccRun
	cur        *ccRun              // the run the next line may extend
	runHash    map[string]ccRunRef // hash -> a prefix of a run
	hashOut    *bufio.Writer       // to a run's hash (hashing)
	boundaries []int               // lines of compact boundaries

	// the results as first sent (carry): tool_use ids a step's request
	// carried (logged: by a logged one), the first logged request with
	// each, and the request messages read for them
	sentSeen    map[string]bool
	loggedSent  map[string]bool
	firstLogged map[string]*ccRequest
	carried     map[ccMsgRef]bool
	runsRebuilt int // runs before the steps rebuilt so far, examined

	lastStep int // the latest assistant message, -1 before the first
	stable   int // messages no line to come can change
}

// ccCall is a tool call and where its result is: the outline holds the
// call without a large result (Elided), which output reads again.
type ccCall struct {
	call    *model.ToolCall
	result  ccBlock         // the tool_result block; line.Len 0 before the result
	rep     json.RawMessage // the content-replacement the result was read with
	elided  bool
	sum     uint64          // ccSum of the content Sent was read from (the line's, or lateRep)
	lateRep json.RawMessage // a content-replacement after the result: Sent's source
	sent    *ccSent         // the logged result, when it differs from the line's
	trunc   bool            // formatters.Visible finds a truncation
	dirty   bool            // trunc is to be found again
}

// ccBlock is one content block of a line, by where it is: the line, and
// its index in the line's message.content (-1: a string content, as one
// text block).
type ccBlock struct {
	line sessions.Line
	i    int
}

// ccSent is a tool_result block of a request message: what carry needs
// of it, its content only when small.
type ccSent struct {
	id      string
	at      int // block index in the message
	block   ccBlock
	errored bool
	sum     uint64
	content json.RawMessage // nil when large
}

// ccBlob is an api-request-blob record: its line and tool results.
type ccBlob struct {
	line    sessions.Line
	ok      bool // its content is a list of blocks
	user    bool // a user message with a block list: its results are sent ones
	results []ccSent
}

// ccMsgRef is one request message: a blob, or the first n blocks of a run.
type ccMsgRef struct {
	blob *ccBlob
	run  *ccRun
	n    int
}

// ccNotice is a read_truncation_notice attachment: its call and line.
type ccNotice struct {
	id   string
	line int
	done bool // where it went was read from the request that carried it
}

// ccRequest is one api-request record read.
type ccRequest struct {
	id      string
	line    int
	base    *ccRequest
	keep    int
	cache   []model.CacheMark
	missing int // messages the transcript does not hold
	// msgs are the request's messages, with the spare capacity the next
	// request, which keeps them all, appends its own into; shared says
	// msgs extend base's, extended that a request extended these.
	msgs     []ccMsgRef
	shared   bool
	extended bool
	carried  bool // its results were read as a step's request
}

// ccRun is a run of transcript lines: consecutive user lines, or
// consecutive assistant lines of one message.id.
type ccRun struct {
	role, msgID string
	line        int       // its first line
	blocks      []ccBlock // the lines' content blocks, in order
	results     []ccSent  // its tool_result blocks
	bad         int       // blocks before the first that is not an object
	hash        hash.Hash // sha256 of `{"content":[` and the blocks as Claude Code hashes them
	broken      bool      // a block that is not JSON: no more prefixes
}

// ccRunRef is the first n blocks of a run.
type ccRunRef struct {
	run *ccRun
	n   int
}

var ccAgentIDTail = regexp.MustCompile(`agentId: ([0-9a-zA-Z_-]+)`)

// newCCReader starts reading one file: its session (or subagent), and
// any inline sidechains as their own sessions.
func newCCReader(file, root string) *ccReader {
	r := &ccReader{file: file, root: root, sidechain: map[string]*model.Session{}, sideOf: map[string]string{}, st: map[*model.Session]*ccState{}, rank: map[*model.Session]int{}}
	r.main = r.newSession(strings.TrimSuffix(filepath.Base(file), ".jsonl"))
	r.warnAt = sessions.LineWarner(&r.warn, file)
	return r
}

// sessions are the file's session, then its inline sidechains.
func (r *ccReader) sessions() []*model.Session {
	out := []*model.Session{r.main}
	var sides []string
	for k := range r.sidechain {
		sides = append(sides, k)
	}
	sort.Strings(sides)
	for _, k := range sides {
		out = append(out, r.sidechain[k])
	}
	return out
}

func (r *ccReader) newSession(id string) *model.Session {
	sess := &model.Session{Info: model.SessionInfo{ID: id, Agent: model.AgentClaudeCode, Source: r.file, DataDir: r.dataDir()}}
	r.st[sess] = &ccState{
		assistantAt: map[string]int{}, calls: map[string]*ccCall{}, parts: map[string]*ccCall{}, blobs: map[string]*ccBlob{},
		requests: map[string]*ccRequest{}, stepReq: map[int]string{}, stepLine: map[int]int{},
		replaced: map[string]json.RawMessage{}, uuids: map[string]bool{}, runHash: map[string]ccRunRef{},
		sentSeen: map[string]bool{}, loggedSent: map[string]bool{}, firstLogged: map[string]*ccRequest{}, carried: map[ccMsgRef]bool{},
		without: map[int64]ccWithout{}, lastStep: -1,
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

// spawnInfo reads agent-<id>.meta.json
// beside a subagent file into out, a copy of its session.
func (r *ccReader) spawnInfo(out *model.Session) {
	if !strings.HasPrefix(filepath.Base(r.file), "agent-") {
		return
	}
	b, err := sessions.ReadFile(strings.TrimSuffix(r.file, ".jsonl") + ".meta.json")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			out.Warnings = append(out.Warnings, err.Error())
		}
		return
	}
	var meta struct {
		Description string `json:"description"`
		AgentType   string `json:"agentType"`
	}
	if json.Unmarshal(b, &meta) != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: bad JSON", strings.TrimSuffix(r.file, ".jsonl")+".meta.json"))
		return
	}
	if meta.Description != "" {
		out.Info.Title = meta.Description
		if meta.AgentType != "" {
			out.Info.Title += " (" + meta.AgentType + ")"
		}
	}
}

// ccDecoded is a line decoded, and its message parsed when it is a user
// or assistant line: what needs nothing the reader built, so that a scan
// does it ahead, on another goroutine (LineIndex.ScanToPrepared).
type ccDecoded struct {
	l   ccLine
	err error
	p   *ccParsed
}

// decodeCCLine decodes line raw for decodedLine.
func decodeCCLine(raw []byte) *ccDecoded {
	d := &ccDecoded{}
	if d.err = decodeLine(raw, &d.l); d.err == nil && (d.l.Type == "user" || d.l.Type == "assistant") {
		d.p = parseCCMessage(d.l.Message)
	}
	return d
}

// decodedLine reads line ln, raw, decoded as d.
func (r *ccReader) decodedLine(ln sessions.Line, raw []byte, d *ccDecoded, last bool) {
	lineNo := ln.N
	l := d.l
	if err := d.err; err != nil {
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
				st.lateReplacement(rep.ToolUseID, rep.Replacement)
			}
		}
	case "api-request-blob":
		if l.Hash != "" && len(l.Message) > 0 {
			st.blobs[l.Hash] = newCCBlob(ln, l.Message)
			st.noteWithout(ln, raw)
		}
	case "api-request":
		r.request(st, l, lineNo)
	case "attachment":
		r.attachment(st, l, lineNo)
	case "user":
		if r.dup(st, l.UUID) {
			return
		}
		st.noteRun(d.p, ln)
		st.noteWithout(ln, raw)
		r.user(sess, st, l, d.p, ln)
	case "assistant":
		if r.dup(st, l.UUID) {
			return
		}
		st.noteRun(d.p, ln)
		r.assistant(sess, st, l, d.p, lineNo)
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

func (r *ccReader) user(sess *model.Session, st *ccState, l ccLine, p *ccParsed, ln sessions.Line) {
	lineNo := ln.N
	if !p.ok {
		r.warnAt(lineNo, "user record without a message, skipped")
		return
	}
	msg := model.Message{ID: l.UUID, Role: model.RoleUser, Created: ccTime(l.Timestamp), Summary: l.IsCompactSummary}
	synthetic := l.IsMeta || l.IsCompactSummary
	if p.text != nil {
		s := *p.text
		msg.Parts = append(msg.Parts, model.Part{ID: l.UUID, Type: model.PartText, Text: s, Synthetic: synthetic})
		if !synthetic && st.firstPrompt == "" {
			st.firstPrompt = s
		}
	} else {
		if !p.list {
			r.warnAt(lineNo, "user content is neither a string nor a list, skipped")
			return
		}
		for i, raw := range p.blocks {
			if p.bad[i] {
				r.warnAt(lineNo, "content[%d] is not an object, skipped", i)
				continue
			}
			b := p.decoded[i]
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
				r.result(st, l, b, ccBlock{ln, i}, len(raw))
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

// result attaches a tool_result block to its call. A result stored in
// more than elideBytes (the block and the toolUseResult copy) is left out
// of the outline, its truncation found now, while it is at hand.
func (r *ccReader) result(st *ccState, l ccLine, b model.AnthropicBlock, at ccBlock, size int) {
	cc := st.calls[b.ToolUseID]
	if cc == nil {
		r.warnf("%s: tool_result for unknown tool_use %s", r.file, b.ToolUseID)
		return
	}
	c := cc.call
	*cc = ccCall{call: c, result: at, dirty: true}
	isErr := b.Errored()
	c.Status = model.StatusCompleted
	if isErr {
		c.Status = model.StatusError
	}
	content := b.Content
	if rep, ok := st.replaced[b.ToolUseID]; ok {
		content, cc.rep = rep, rep
	}
	cc.sum = ccSum(content, isErr)
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
		if id := agentIDOf(l.ToolUseResult); id != "" {
			c.ChildSessionID = id
		}
	}
	if c.ChildSessionID == "" && (c.Tool == "Agent" || c.Tool == "Task") {
		if m := ccAgentIDTail.FindStringSubmatch(text); m != nil {
			c.ChildSessionID = m[1]
		}
	}
	if stored := size + len(l.ToolUseResult); stored > elideBytes {
		cc.settle()
		c.Output, c.Error, c.Sent, c.Metadata = "", "", nil, nil
		c.Elided, c.OutputBytes, cc.elided = true, stored, true
	}
	c.Metadata = bytes.Clone(c.Metadata) // kept without its line
}

// elideBytes is the stored size of a result above which the outline
// leaves it out (as opencode's outline does, opencode.OutlineElideBytes);
// tests lower it.
var elideBytes = 1024

// ccSum identifies a tool_result content: the same bytes and error flag
// make the same result value.
func ccSum(content json.RawMessage, isErr bool) uint64 {
	var h maphash.Hash
	h.SetSeed(ccSeed)
	h.Write(content)
	if isErr {
		h.WriteByte(1)
	}
	return h.Sum64()
}

var ccSeed = maphash.MakeSeed()

// settle finds the call's truncation again (the call whole at hand).
func (cc *ccCall) settle() {
	cc.trunc = cc.call.Sent != nil && formatters.Visible(cc.call, nil).Truncation != nil
	cc.dirty = false
}

// lateReplacement applies a content-replacement that follows the result
// of call id, unless a logged request already gave the result as sent.
func (st *ccState) lateReplacement(id string, rep json.RawMessage) {
	cc := st.calls[id]
	if cc == nil || cc.result.line.Len == 0 || st.loggedSent[id] {
		return
	}
	cc.dirty = true
	if cc.elided {
		cc.lateRep, cc.sent, cc.sum = rep, nil, ccSum(rep, cc.call.Status == model.StatusError)
		return
	}
	cc.call.Sent = claudeResultValue(rep, cc.call.Status == model.StatusError)
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
	cc := st.calls[a.ToolUseID]
	if cc == nil {
		r.warnAt(lineNo, "read_truncation_notice for unknown tool_use %s, skipped", a.ToolUseID)
		return
	}
	cc.call.Notice = &model.Notice{Text: a.Banner, Where: fmt.Sprintf("read_truncation_notice at %s:%d; no logged request carries the result, so where Claude Code sent it is not known", r.file, lineNo)}
	cc.dirty = true
	st.notices = append(st.notices, &ccNotice{id: a.ToolUseID, line: lineNo})
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
	s, isString := jsonskim.String(content)
	if len(content) == 0 || string(content) == "null" {
		s = ""
	} else if !isString && json.Unmarshal(content, &s) != nil {
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

func (r *ccReader) assistant(sess *model.Session, st *ccState, l ccLine, p *ccParsed, lineNo int) {
	m := p.m
	if !p.ok {
		r.warnAt(lineNo, "assistant record without a message, skipped")
		return
	}
	if l.IsAPIErrorMessage || m.Model == "<synthetic>" {
		// no model call made it; shown as a note, not a step
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s:%d: API error message: %s", r.file, lineNo, ccClip(ccContentText(m.Content), 200)))
		return
	}
	if !p.list {
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
		st.lastStep = idx
		r.carry(st, idx)
	}
	msg := &sess.Messages[idx]
	msg.Completed = t
	if m.StopReason != "" {
		msg.Finish = m.StopReason
	}
	for i, b := range p.decoded {
		if p.bad[i] {
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
			c := &model.ToolCall{Agent: model.AgentClaudeCode, CallID: b.ID, Tool: b.Name, Status: model.StatusRunning, Input: b.Input, Start: t, Title: claudeCallTitle(b.Name, b.Input)}
			cc := &ccCall{call: c, dirty: true}
			st.calls[b.ID], st.parts[pid] = cc, cc
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

// request reads one api-request record: the base request's first Keep
// messages, then each tail hash, a blob or a prefix of a run of transcript
// lines.
func (r *ccReader) request(st *ccState, l ccLine, lineNo int) {
	if l.ID == "" {
		return
	}
	cr := &ccRequest{id: l.ID, line: lineNo, keep: l.Keep}
	var msgs []ccMsgRef
	if l.Keep > 0 {
		base := st.requests[l.Base]
		cr.base = base
		switch {
		case base == nil || base.missing > 0 || len(base.msgs) < l.Keep:
			cr.missing += l.Keep
		case len(base.msgs) == l.Keep && !base.extended:
			// the usual step: share the base's messages rather than copy
			// them, which would make a session quadratic in its steps
			base.extended, cr.shared = true, true
			msgs = base.msgs
		default:
			msgs = append(make([]ccMsgRef, 0, l.Keep+len(l.Tail)), base.msgs[:l.Keep]...)
		}
	}
	for _, h := range l.Tail {
		if b, ok := st.blobs[h]; ok {
			msgs = append(msgs, ccMsgRef{blob: b})
		} else if ref, ok := st.runHash[h]; ok {
			msgs = append(msgs, ccMsgRef{run: ref.run, n: ref.n})
		} else {
			cr.missing++
		}
	}
	cr.msgs = msgs
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
		cr.cache = append(cr.cache, model.CacheMark{Message: mi, Block: bi, Value: cc.Value})
	}
	st.requests[l.ID] = cr
	st.order = append(st.order, cr)
	st.pending = l.ID
}

// newCCBlob reads an api-request-blob record's message for its results.
func newCCBlob(ln sessions.Line, raw json.RawMessage) *ccBlob {
	b := &ccBlob{line: ln}
	role, content, blocks, err := render.AnthropicMessage(raw) // raw is of a checked line
	if err != nil {
		return b
	}
	b.ok = true
	b.user = role == "user" && len(content) > 0 && content[0] == '['
	for i, blk := range blocks {
		if blk.Type == "tool_result" {
			b.results = append(b.results, newCCSent(blk, i, ccBlock{ln, i}))
		}
	}
	return b
}

func newCCSent(b model.AnthropicBlock, at int, where ccBlock) ccSent {
	s := ccSent{id: b.ToolUseID, at: at, block: where, errored: b.Errored(), sum: ccSum(b.Content, b.Errored())}
	if len(b.Content) <= elideBytes {
		s.content = bytes.Clone(b.Content) // kept without the message it lies in
	}
	return s
}

// ccParsed is a user or assistant line's message, decoded once for the
// runs (noteRun) and the session (user, assistant).
type ccParsed struct {
	m       ccMessage
	ok      bool              // the message decoded
	text    *string           // a string content
	list    bool              // a list content, blocks
	blocks  []json.RawMessage // its blocks
	decoded []model.AnthropicBlock
	bad     []bool // blocks that are not objects
}

// parseCCMessage reads raw, a line's message (valid JSON: decodeLine
// checked it).
func parseCCMessage(raw json.RawMessage) *ccParsed {
	p := &ccParsed{}
	if !decodeSkimmed(raw, &p.m, []string{"content"}, []*json.RawMessage{&p.m.Content}, messageScalars(&p.m)) {
		p.m = ccMessage{}
		if json.Unmarshal(raw, &p.m) != nil {
			return p
		}
	}
	p.ok = true
	c := p.m.Content
	if len(c) > 0 && (c[0] == '"' || string(c) == "null") {
		var s string
		if json.Unmarshal(c, &s) == nil {
			p.text = &s
			return p
		}
	}
	if len(c) == 0 || c[0] != '[' {
		return p
	}
	var ok bool
	if p.blocks, ok = skimBlocks(c); !ok {
		p.blocks = nil
		if json.Unmarshal(c, &p.blocks) != nil {
			return p
		}
	}
	p.list = true
	p.decoded, p.bad = make([]model.AnthropicBlock, len(p.blocks)), make([]bool, len(p.blocks))
	for i, raw := range p.blocks {
		d := &p.decoded[i]
		p.bad[i] = render.DecodeAnthropicBlock(raw, d) != nil // its content a span of the line, not kept
	}
	return p
}

// noteRun adds a user or assistant line to the runs, as Claude Code's
// replay index does, and the hash of the run so far to the candidates.
func (st *ccState) noteRun(p *ccParsed, ln sessions.Line) {
	m := p.m
	if !p.ok || m.Role == "" || len(m.Content) == 0 || string(m.Content) == "null" {
		st.cur = nil
		return
	}
	var blocks []json.RawMessage
	decoded, bad := p.decoded, p.bad
	whole := -1 // the index of a content that is not a list: a string (-1) or the value itself (-2)
	switch {
	case p.text != nil:
		blocks = []json.RawMessage{ccTextBlock(*p.text)}
		decoded, bad = []model.AnthropicBlock{{Type: "text"}}, []bool{false}
	case m.Content[0] == '[':
		if !p.list {
			st.cur = nil
			return
		}
		blocks, whole = p.blocks, 0
	default:
		blocks, whole = []json.RawMessage{m.Content}, -2
		var b model.AnthropicBlock
		bad = []bool{json.Unmarshal(m.Content, &b) != nil}
		decoded = []model.AnthropicBlock{b}
	}
	run := st.cur
	if run == nil || run.role != m.Role || (m.Role != "user" && (m.ID == "" || run.msgID != m.ID)) {
		run = &ccRun{role: m.Role, msgID: m.ID, line: ln.N, hash: sha256.New(), bad: -1}
		run.hash.Write([]byte(`{"content":[`))
		st.runs = append(st.runs, run)
		st.cur = run
	}
	if run.broken {
		return
	}
	w := st.hashing(run)
	for i, b := range blocks {
		if len(run.blocks) > 0 {
			w.WriteByte(',')
		}
		if !ccCanonicalRaw(w, b) { // b is valid: its line was checked (decodeLine)
			run.broken = true // its hash is not taken again
			return
		}
		at := ccBlock{ln, i}
		if whole < 0 {
			at.i = whole
		}
		switch {
		case bad[i]:
			if run.bad < 0 {
				run.bad = len(run.blocks)
			}
		case decoded[i].Type == "tool_result":
			run.results = append(run.results, newCCSent(decoded[i], len(run.blocks), at))
		}
		run.blocks = append(run.blocks, at)
	}
	// the prefix's hash: a copy of the running state, closed
	w.Flush()
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

// hashing is a writer to run's hash, its buffer reused from run to run
// (what an earlier run left unflushed, a broken one's, is dropped).
func (st *ccState) hashing(run *ccRun) *bufio.Writer {
	if st.hashOut == nil {
		st.hashOut = bufio.NewWriterSize(run.hash, 4096)
	}
	st.hashOut.Reset(run.hash)
	return st.hashOut
}

// ccTextBlock is a string content as the text block Claude Code hashes.
func ccTextBlock(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return b
}

// ccMessageOf is a message of role with blocks as its content.
func ccMessageOf(role string, blocks []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"role":`)
	ccJSString(&b, role)
	b.WriteString(`,"content":[`)
	for i, raw := range blocks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(raw)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// carry reads the results the request of a new step (assistant message
// idx) carries: each result as first sent (Claude Code appends
// reminders), and the first logged request that carries each. A step the
// log does not give is rebuilt from the transcript, whose results are
// those of the lines.
func (r *ccReader) carry(st *ccState, idx int) {
	cr := st.requests[st.stepReq[idx]]
	if cr == nil || cr.missing > 0 {
		line, from := st.stepLine[idx], 0
		for _, b := range st.boundaries {
			if b < line {
				from = b
			}
		}
		for ; st.runsRebuilt < len(st.runs) && st.runs[st.runsRebuilt].line < line; st.runsRebuilt++ {
			if run := st.runs[st.runsRebuilt]; run.line > from && run.role == "user" {
				for _, s := range run.results {
					st.sentSeen[s.id] = true
				}
			}
		}
		return
	}
	from := 0
	if cr.base != nil && cr.base.carried {
		from = cr.keep // its base's messages were read
	}
	for _, ref := range cr.msgs[from:] {
		r.carryMessage(st, ref, cr)
	}
	cr.carried = true
}

func (r *ccReader) carryMessage(st *ccState, ref ccMsgRef, cr *ccRequest) {
	if st.carried[ref] {
		return
	}
	st.carried[ref] = true
	var user bool
	var results []ccSent
	if ref.blob != nil {
		if !ref.blob.ok {
			return
		}
		user, results = ref.blob.user, ref.blob.results
	} else {
		if ref.run.bad >= 0 && ref.run.bad < ref.n {
			return
		}
		user = ref.run.role == "user"
		for _, s := range ref.run.results {
			if s.at < ref.n {
				results = append(results, s)
			}
		}
	}
	for _, s := range results {
		if st.firstLogged[s.id] == nil {
			st.firstLogged[s.id] = cr
		}
		if !user || st.sentSeen[s.id] {
			continue
		}
		st.sentSeen[s.id], st.loggedSent[s.id] = true, true
		r.sendResult(st, s)
	}
}

// sendResult makes s, a logged request's result, the call's Sent.
func (r *ccReader) sendResult(st *ccState, s ccSent) {
	cc := st.calls[s.id]
	if cc == nil {
		return
	}
	c := cc.call
	if c.Status == model.StatusRunning {
		c.Status = model.StatusCompleted
		if s.errored {
			c.Status = model.StatusError
		}
		cc.dirty = true
	}
	if cc.elided {
		if s.sum != cc.sum {
			cc.sent, cc.dirty = &s, true
		}
		return
	}
	content := s.content
	if content == nil {
		x := newCCLines(r.file)
		raw, err := x.block(s.block)
		x.close()
		var b model.AnthropicBlock
		if err == nil {
			err = json.Unmarshal(raw, &b)
		}
		if err != nil {
			r.warnf("%v", err)
			return
		}
		content = b.Content
	}
	c.Sent = claudeResultValue(content, s.errored)
	cc.dirty = true
}

// stableMessages is how many messages of the file's session no line still
// to come can change: those before the latest step, and before the first
// with a call whose result a step's request has not yet carried (a later
// api-request can change a result as sent). A file without api-request
// records, or with inline sidechains, is read whole.
func (r *ccReader) stableMessages() int {
	st := r.st[r.main]
	if len(st.requests) == 0 || len(r.sidechain) > 0 {
		return 0
	}
	msgs := r.main.Messages
	for ; st.stable < len(msgs); st.stable++ {
		m := &msgs[st.stable]
		if m.Role != model.RoleAssistant {
			continue
		}
		if st.stable >= st.lastStep {
			break
		}
		for _, p := range m.Parts {
			if p.Tool != nil && !st.sentSeen[p.Tool.CallID] {
				return st.stable
			}
		}
	}
	return st.stable
}

// ccLines reads blocks and messages again from their lines, keeping the
// last line read.
type ccLines struct {
	file          string
	lines         sessions.LinesAt // open from the first read to close
	at            sessions.Line
	msg           json.RawMessage // the line's message
	toolUseResult json.RawMessage // the line's
	content       json.RawMessage // its message's content
	blocks        []json.RawMessage
	// with deferral, the line as read: the large results of the
	// messages read from it are left in the file, and a line is read
	// without the strings the scan noted (without) but for whole, one
	// that held a string that could not be left
	deferral *sessions.Leaver
	lineRead *sessions.LineRead
	without  map[int64]ccWithout
	whole    sessions.Line
}

func newCCLines(file string) *ccLines {
	return &ccLines{file: file, lines: sessions.LinesAt{Path: file}}
}

// close closes the file the reads opened.
func (x *ccLines) close() { x.lines.Close() }

// read reads line l (whole: its message too) unless it was the last.
func (x *ccLines) read(l sessions.Line, whole bool) error {
	if x.at == l && x.content != nil && (!whole || x.msg != nil) {
		return nil
	}
	lr, err := x.readLine(l)
	if err != nil {
		return err
	}
	data := lr.Data
	x.lineRead = nil
	if msg, content, tur, ok := skimLine(data); ok {
		x.at = l
		if x.deferral != nil {
			jsonskim.Strings(tur, func(s []byte) { lr.Drop(s) })
			x.lineRead = lr
		}
		if !lr.Whole(tur) {
			tur = nil // never read by the wire
		}
		if whole {
			kept := x.kept(msg) // not the rest of the line with it
			if !lr.Whole(msg) {
				return x.readWhole(l, whole)
			}
			msg = kept
		} else {
			msg = nil
		}
		x.msg, x.toolUseResult, x.content, x.blocks = msg, tur, content, nil
		return nil
	}
	if lr.Partial() {
		return x.readWhole(l, whole)
	}
	// one pass for a block's line, which needs no message whole
	var v struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		ToolUseResult json.RawMessage `json:"toolUseResult"`
	}
	var w struct {
		Message json.RawMessage `json:"message"`
	}
	if whole && json.Unmarshal(data, &w) != nil || json.Unmarshal(data, &v) != nil {
		return fmt.Errorf("%s:%d: the file changed since it was read", x.file, l.N)
	}
	x.at, x.msg, x.toolUseResult, x.content, x.blocks = l, w.Message, v.ToolUseResult, v.Message.Content, nil
	return nil
}

// readLine reads line l, without the strings the scan noted when deferred.
func (x *ccLines) readLine(l sessions.Line) (*sessions.LineRead, error) {
	if w, ok := x.without[l.Off]; ok && x.deferral != nil && l != x.whole {
		return x.lines.ReadWithout(l, w.leave, w.drop)
	}
	b, err := x.lines.Read(l)
	return &sessions.LineRead{Line: l, Data: b}, err
}

// readWhole reads line l again, whole: it was read without a string that
// the part of it read could not leave in the file.
func (x *ccLines) readWhole(l sessions.Line, whole bool) error {
	x.whole, x.at, x.content = l, sessions.Line{}, nil
	return x.read(l, whole)
}

// block is block b, as the scan read it.
func (x *ccLines) block(b ccBlock) (json.RawMessage, error) {
	if err := x.read(b.line, false); err != nil {
		return nil, err
	}
	switch b.i {
	case -1:
		var text string
		if json.Unmarshal(x.content, &text) != nil {
			return nil, fmt.Errorf("%s:%d: the file changed since it was read", x.file, b.line.N)
		}
		return ccTextBlock(text), nil
	case -2:
		return x.content, nil
	}
	if x.blocks == nil {
		var ok bool
		if x.blocks, ok = skimBlocks(x.content); !ok {
			x.blocks = nil
			_ = json.Unmarshal(x.content, &x.blocks)
		}
	}
	if b.i >= len(x.blocks) {
		return nil, fmt.Errorf("%s:%d: the file changed since it was read", x.file, b.line.N)
	}
	return x.blocks[b.i], nil
}

// message is request message ref as the scan read it.
func (x *ccLines) message(ref ccMsgRef) (json.RawMessage, error) {
	if ref.blob != nil {
		if err := x.read(ref.blob.line, true); err != nil {
			return nil, err
		}
		return x.msg, nil
	}
	blocks, err := x.runBlocks(ref.run, ref.n)
	if err != nil {
		return nil, err
	}
	return ccMessageOf(ref.run.role, blocks), nil
}

func (x *ccLines) runBlocks(run *ccRun, n int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, n)
	for _, b := range run.blocks[:n] {
		raw, err := x.leftBlock(b)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// leftBlock is block b with its large result left in the file when
// deferred; its line is read again whole when the block holds a string it
// was read without that could not be left.
func (x *ccLines) leftBlock(b ccBlock) (json.RawMessage, error) {
	raw, err := x.block(b)
	if err != nil {
		return nil, err
	}
	out, _ := x.deferral.Leave(x.lineRead, raw, blockResult(raw))
	if x.lineRead == nil || x.lineRead.Whole(raw) {
		return out, nil
	}
	x.whole, x.at, x.content = b.line, sessions.Line{}, nil
	return x.leftBlock(b)
}

// logged is request cr whole, its messages read again side by side
// (parallel.InRuns), each reader a fork of x.
func (x *ccLines) logged(cr *ccRequest) (*model.LoggedRequest, error) {
	req := &model.LoggedRequest{Provider: "anthropic", Cache: cr.cache, Missing: cr.missing, Messages: make([]json.RawMessage, len(cr.msgs))}
	err := parallel.InRuns(len(cr.msgs), 32, x.fork, func(w *ccLines, i int) (err error) {
		req.Messages[i], err = w.message(cr.msgs[i])
		return err
	}, (*ccLines).close)
	if err != nil {
		return nil, err
	}
	return req, nil
}

// fork is a reader of x's file that leaves and drops what x does.
func (x *ccLines) fork() *ccLines {
	w := newCCLines(x.file)
	w.deferral, w.without = x.deferral, x.without
	return w
}

// rebuilt is the request of the step whose first line is line, from the
// transcript: the runs before it since the last compact boundary, with
// content-replacements applied, empty texts sent as "(no content)", and
// Claude Code's one conversation cache mark on the last block.
func (st *ccState) rebuilt(x *ccLines, line int, why string) (*model.LoggedRequest, error) {
	from := 0
	for _, b := range st.boundaries {
		if b < line {
			from = b
		}
	}
	req := &model.LoggedRequest{Provider: "anthropic", Rebuilt: why}
	var msgs []*ccMsg
	for _, run := range st.runs {
		if run.line > from && run.line < line && len(run.blocks) > 0 {
			blocks, err := x.runBlocks(run, len(run.blocks))
			if err != nil {
				return nil, err
			}
			msgs = ccJoinStreamed(msgs, &ccMsg{role: run.role, msgID: run.msgID, blocks: blocks})
		}
	}
	for _, m := range msgs {
		for i, b := range m.blocks {
			m.blocks[i] = st.sentBlock(b)
		}
		req.Messages = append(req.Messages, ccMessageOf(m.role, m.blocks))
	}
	if n := len(req.Messages); n > 0 {
		req.Cache = []model.CacheMark{{Message: n - 1, Block: len(msgs[n-1].blocks) - 1, Value: json.RawMessage(`{"type":"ephemeral"}`)}}
	}
	return req, nil
}

// ccMsg is a message of a rebuilt request.
type ccMsg struct {
	role, msgID string
	blocks      []json.RawMessage
}

// ccJoinStreamed adds run to the messages of a rebuilt request. Claude Code
// runs a call while the model still streams the next ones, so an assistant
// message's lines (one message.id) can be split by the lines of the
// results that arrived meanwhile; it sends them as one assistant message
// followed by one user message of all those results, in the order they
// arrived.
func ccJoinStreamed(msgs []*ccMsg, run *ccMsg) []*ccMsg {
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
	return append(msgs, run)
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

// claudeCanonical is a JSON value as Claude Code hashes it in api-request
// records: sorted keys, no spaces, non-ASCII kept, cache_control left out;
// nil when it is not JSON.
func claudeCanonical(raw json.RawMessage) []byte {
	if !jsonskim.Valid(raw) {
		return nil
	}
	var b bytes.Buffer
	if !ccCanonicalRaw(&b, raw) {
		return nil
	}
	return b.Bytes()
}

// ccWriter is where a canonical form is written: a buffer, or a run's
// hash through a bufio.Writer (a tool result's text is most of a
// transcript: hashed where it lies, not copied first).
type ccWriter interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
	WriteRune(r rune) (int, error)
}

// ccCanonicalRaw writes raw, valid JSON (as jsonskim.Valid or
// encoding/json found it), to w as claudeCanonical gives it: its objects
// and arrays skimmed, a member named twice taken last (as encoding/json
// fills a map), and its strings already in that form written as they lie,
// not decoded (TestClaudeCanonicalAsDecoded and FuzzClaudeCanonical check
// it against the value decoded whole); false when the skim or a string's
// decoding fails.
func ccCanonicalRaw(w ccWriter, raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '{':
		type member struct {
			key string
			val []byte
		}
		var ms []member
		ok := jsonskim.Members(raw, func(k, v []byte) bool {
			key, ok := jsonskim.Text(k)
			if i := slices.IndexFunc(ms, func(m member) bool { return m.key == key }); i >= 0 {
				ms[i].val = v
			} else if key != "cache_control" {
				ms = append(ms, member{key, v})
			}
			return ok
		})
		if !ok {
			return false
		}
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		w.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				w.WriteByte(',')
			}
			ccJSString(w, m.key)
			w.WriteByte(':')
			if !ccCanonicalRaw(w, m.val) {
				return false
			}
		}
		w.WriteByte('}')
	case '[':
		w.WriteByte('[')
		first := true
		ok := jsonskim.Elements(raw, func(v []byte) bool {
			if !first {
				w.WriteByte(',')
			}
			first = false
			return ccCanonicalRaw(w, v)
		})
		if !ok {
			return false
		}
		w.WriteByte(']')
	case '"':
		if len(raw) >= 2 {
			if body := raw[1 : len(raw)-1]; jsonskim.Canonical(unsafe.String(unsafe.SliceData(body), len(body))) { // read, not kept
				w.Write(raw)
				return true
			}
		}
		s, ok := jsonskim.Text(raw)
		if !ok {
			return false
		}
		ccJSString(w, s)
	default: // a number (as written), true, false, null
		w.Write(raw)
	}
	return true
}

// ccJSString writes a string as JSON.stringify does.
func ccJSString(b ccWriter, s string) {
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

// linkSidechains links the Task calls of out, a copy of a 1.0.x file's
// session, to the inline sidechain whose first prompt is the call's prompt.
func (r *ccReader) linkSidechains(out *model.Session) {
	for _, ref := range out.ToolCalls() {
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
