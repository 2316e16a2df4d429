// Package qwencode reads Qwen Code (npm @qwen-code/qwen-code, a Gemini CLI
// fork; checked against 0.24.4) sessions, and registers their driver, their
// own OpenAI Chat wire (wire.go) and their truncation markers (markers.go).
//
// Qwen Code keeps, under its runtime dir ($QWEN_RUNTIME_DIR, else
// $QWEN_HOME, else ~/.qwen):
//
//	projects/<cwd, every non-alphanumeric "-">/chats/<session uuid>.jsonl
//	projects/<…>/subagents/<parent uuid>/agent-<agent id>.jsonl (+ .meta.json)
//	tmp/<sha256 of the project path>/<tool>_<12 hex>.output  (spills)
//
// Each line is {"uuid","parentUuid","sessionId","timestamp","type","cwd",
// "version",…,"message":{"role","parts":[…]}} with Gemini-form parts: type
// user (the typed prompt only), assistant (role "model": {text,thought},
// {text}, {functionCall:{id,name,args}}), tool_result (one
// {functionResponse:{id,name,response:{output|error},parts?}} per call) and
// system (ui_telemetry, attribution_snapshot: never sent, skipped). A
// subagent's lines repeat the parent's sessionId and carry its "agentId";
// one model response of a subagent may take two assistant lines (the
// thought, then the calls), the later one without usageMetadata.
//
// The model saw each result as its tool message: response.output, else
// response.error, else the response's JSON (shown as stored), with the
// functionResponse's media in a user message after the batch's results.
package qwencode

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// Agent is Qwen Code's agent id (its fixtures: testdata/qwen-code/).
const Agent model.Agent = "qwen-code"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "Qwen Code", Version: "0.24.4"})
	sessions.Register(sessions.Driver{Agent: Agent, Locations: locations, Open: open, SpillFolders: spillFolders})
	render.RegisterOwnWire(Agent, render.OwnWire{Provider: render.OpenAIChat, Conversation: ownConversation, TailFrom: tailFrom, HeadTo: headTo})
	formatters.RegisterMarkers(markers)
}

// Dirs are the runtime dirs Qwen Code would use here: $QWEN_RUNTIME_DIR
// (where it puts projects/ and tmp/ when set), the settings'
// advanced.runtimeOutputDir of its global dir when absolute (a relative
// one is per project: not followed), and the global dir $QWEN_HOME, by
// default ~/.qwen.
func Dirs() []string {
	var out []string
	add := func(d string) {
		if d != "" && !slices.Contains(out, filepath.Clean(d)) {
			out = append(out, filepath.Clean(d))
		}
	}
	add(os.Getenv("QWEN_RUNTIME_DIR"))
	global := sessions.AgentDir("QWEN_HOME", ".qwen")
	if global == "" {
		return out
	}
	if b, err := sessions.ReadHead(filepath.Join(global, "settings.json"), 1<<20); err == nil {
		var st struct {
			Advanced struct {
				RuntimeOutputDir string `json:"runtimeOutputDir"`
			} `json:"advanced"`
		}
		_ = json.Unmarshal(b, &st)
		d := st.Advanced.RuntimeOutputDir
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(d, "~/") {
			d = filepath.Join(home, d[2:])
		}
		if filepath.IsAbs(d) {
			add(d)
		}
	}
	add(global)
	return out
}

func locations() []string {
	var out []string
	for _, d := range Dirs() {
		if len(chatFiles(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// open claims a runtime dir, its projects/, a project dir, a chats/ or
// subagents/<parent>/ dir, or one session file, when a file there holds
// Qwen Code lines.
func open(path string, dir bool) (sessions.Store, bool, error) {
	var files []string
	if dir {
		files = chatFiles(path)
	} else if strings.HasSuffix(path, ".jsonl") {
		files = []string{path}
	}
	if len(files) == 0 || !isQwenFile(files[0]) {
		return nil, false, nil
	}
	list := func() ([]string, []string) {
		if !dir {
			return []string{path}, nil
		}
		return chatFiles(path), nil
	}
	return &sessions.LineStore{
		FileStore: &sessions.FileStore{Root: path, Files: list, Read: read},
		Reader: func(f string, warnf func(int, string, ...any)) sessions.LineReader {
			return newReader(f, warnf, true)
		},
		// a chat is <session id>.jsonl, a subagent's agent-<its id>.jsonl
		Guess: func(id string) []string {
			fs, _ := list()
			return slices.DeleteFunc(fs, func(f string) bool {
				b := filepath.Base(f)
				return b != id+".jsonl" && b != "agent-"+id+".jsonl"
			})
		},
	}, true, nil
}

// chatFiles lists the session files under dir, which is a runtime dir,
// its projects/, a project dir, a chats/ dir or a subagents/<parent>/ dir.
func chatFiles(dir string) []string {
	var pats []string
	switch {
	case sessions.IsDir(filepath.Join(dir, "projects")):
		pats = []string{"projects/*/chats/*.jsonl", "projects/*/subagents/*/*.jsonl"}
	case filepath.Base(dir) == "projects":
		pats = []string{"*/chats/*.jsonl", "*/subagents/*/*.jsonl"}
	case sessions.IsDir(filepath.Join(dir, "chats")):
		pats = []string{"chats/*.jsonl", "subagents/*/*.jsonl"}
	case filepath.Base(dir) == "chats":
		pats = []string{"*.jsonl", "../subagents/*/*.jsonl"}
	case filepath.Base(filepath.Dir(dir)) == "subagents":
		pats = []string{"*.jsonl"}
	}
	var files []string
	for _, p := range pats {
		m, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p)))
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

// isQwenFile says whether the first line of a file is a Qwen Code line: a
// uuid-chained line whose message holds Gemini-form "parts" (Claude Code's
// lines, chained the same way, hold "content").
func isQwenFile(path string) bool {
	b, err := sessions.ReadHead(path, 64<<10)
	if err != nil {
		return false
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	var l struct {
		UUID      string `json:"uuid"`
		SessionID string `json:"sessionId"`
		Message   *struct {
			Parts json.RawMessage `json:"parts"`
		} `json:"message"`
	}
	return json.Unmarshal(first, &l) == nil && l.UUID != "" && l.SessionID != "" &&
		l.Message != nil && bytes.HasPrefix(bytes.TrimSpace(l.Message.Parts), []byte("["))
}

// spillFolders: the project's temp dir the session's DataDir names, in the
// store and in this machine's runtime dirs.
func spillFolders(dataDir string) []string {
	out := []string{dataDir}
	for _, d := range Dirs() {
		out = append(out, filepath.Join(d, "tmp", filepath.Base(dataDir)))
	}
	return out
}

// line is the part of a line correx reads.
type line struct {
	UUID      string          `json:"uuid"`
	Parent    *string         `json:"parentUuid"`
	Subtype   string          `json:"subtype"`
	Payload   json.RawMessage `json:"systemPayload"`
	SessionID string          `json:"sessionId"`
	AgentID   string          `json:"agentId"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Cwd       string          `json:"cwd"`
	Version   string          `json:"version"`
	Model     string          `json:"model"`
	Usage     json.RawMessage `json:"usageMetadata"`
	Message   json.RawMessage `json:"message"`
	Result    *struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

// part is a Gemini-form part as Qwen Code stores it.
type part struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *response `json:"functionResponse"`
	InlineData       *media    `json:"inlineData"`
}

type response struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	Parts    []part          `json:"parts"`
	text     *string         // an outline's: the call's result text (elidedStored)
}

type media struct {
	MimeType    string `json:"mimeType"`
	Data        string `json:"data"`
	DisplayName string `json:"displayName"`
}

func partsOf(msg json.RawMessage) ([]part, error) { return messageParts(msg, nil) }

// read reads one session file whole: a chat, or a subagent's transcript
// (its own session, child of the chat's).
func read(path string) (*model.Session, error) {
	var warns []string
	r := newReader(path, sessions.LineWarner(&warns, path), false)
	if err := sessions.ReadJSONL(path, func(n int, b []byte, last bool) { r.Line(sessions.Line{N: n}, b, last) }, r.warnf); err != nil {
		return nil, err
	}
	sess, err := r.Session()
	if err != nil {
		return nil, err
	}
	sess.Warnings = append(warns, sess.Warnings...)
	return sess, nil
}

// reader reads one session file a line at a time (a sessions.LineReader).
// The conversation is the parentUuid chain of the file's last line; while
// each line continues the one before (no rewind), lines are read as they
// come. A line that continues an earlier one (a rewind) or breaks the
// chain makes the reader keep only where each line is, and build the
// session from the chain again, the lines read again, when it is asked.
//
// With elide, a call whose tool_result line holds more than elideBytes of
// message keeps that line instead of its output (model.ToolCall.Elided),
// and the message's Stored has a stand-in for the line (elidedMessage);
// Output reads the line again. A message is stable once no call of it or
// of a message before it waits for its result, and it is not the last:
// later lines add to the last message (the rest of a response, results,
// a compression mark). A rewind reaches back further: see Stable.
type reader struct {
	path  string
	warnf func(n int, format string, args ...any)
	elide bool

	lines   []lineAt // every Qwen Code line so far
	tip     string   // the uuid of the last line, while linear
	linear  bool     // each line so far continues the one before
	st      *state   // the session of the lines read so far, while linear
	rebuilt *state   // the session rebuilt from the chain, for len(lines)
	// by line offset: the strings of a large result line's toolCallResult,
	// which Output reads it without (it reads only the status)
	drops map[int64][]sessions.StringSpan
}

// lineAt is where a line is, and its place in the chain.
type lineAt struct {
	l            sessions.Line
	uuid, parent string
	data         []byte // the line, kept when read whole (no offsets)
}

// state is a session being read.
type state struct {
	sess    *model.Session
	warns   []string // the reading's own warnings, after those of the lines
	calls   map[string]*callAt
	open    map[string]int // calls without their result → message
	cwd     string
	qwen    bool
	lastNew bool // the last message is an assistant line that began a response
}

// callAt is where a call is, and what its result said.
type callAt struct {
	msg, part int
	at        *sessions.Line // the result's line, when its output was left out
	truncated bool
}

// elideBytes is the size of a tool_result's message above which the lazy
// path leaves it in the file, as opencode's outline does
// (opencode.OutlineElideBytes); tests lower it.
var elideBytes = 1024

func newReader(path string, warnf func(int, string, ...any), elide bool) *reader {
	return &reader{path: path, warnf: warnf, elide: elide, linear: true, st: newState(path)}
}

func newState(path string) *state {
	return &state{sess: &model.Session{Info: model.SessionInfo{Agent: Agent, Source: path}}, calls: map[string]*callAt{}, open: map[string]int{}}
}

// Line reads one line.
func (r *reader) Line(l sessions.Line, b []byte, _ bool) {
	r.line(&sessions.LineRead{Line: l, Data: b})
}

// LongLine implements sessions.LongLiner: a line whose long strings all
// lie in its toolCallResult, past its status (what the CLI showed, never
// sent, which decodeLine cuts), is read without them.
func (r *reader) LongLine(lr *sessions.LineRead, _ bool) bool {
	if !r.elide {
		return false
	}
	top, ok := jsonskim.Named(lr.Data, "toolCallResult")
	if !ok {
		return false
	}
	displayStrings(top[0], func(s []byte) { lr.Drop(s) })
	if !lr.Whole(lr.Data) {
		return false
	}
	r.line(lr)
	return true
}

// line reads line lr (Line's, or a LongLine's read without its display).
func (r *reader) line(lr *sessions.LineRead) {
	l, b := lr.Line, lr.Data
	var ln line
	if err := decodeLine(b, &ln); err != nil {
		r.warnf(l.N, "skipped a line that is not a JSON object (%v)", err)
		return
	}
	if ln.SessionID == "" || ln.UUID == "" {
		r.warnf(l.N, "skipped a line without uuid or sessionId: not a Qwen Code line")
		return
	}
	parent := ""
	if ln.Parent != nil {
		parent = *ln.Parent
	}
	la := lineAt{l: l, uuid: ln.UUID, parent: parent}
	if !r.elide {
		la.data = b
	}
	r.lines = append(r.lines, la)
	r.rebuilt = nil
	if r.elide && ln.Result != nil && l.Len >= cutBytes {
		top, ok := jsonskim.Named(b, "toolCallResult")
		if drop := lr.DroppedSpans(func(each func([]byte)) { displayStrings(top[0], each) }); ok && len(drop) > 0 {
			if r.drops == nil {
				r.drops = map[int64][]sessions.StringSpan{}
			}
			r.drops[l.Off] = drop
		}
	}
	if r.linear && parent != r.tip {
		r.linear, r.st = false, nil
	}
	if !r.linear {
		return
	}
	r.tip = ln.UUID
	r.st.apply(l, ln, r.elide && len(ln.Message) > elideBytes)
}

// Stable is how many messages no line still to come changes, as long as
// the lines continue each other. After a rewind it is 0: a later line may
// continue any earlier one, and only the file's end says which lines are
// the conversation.
func (r *reader) Stable() int {
	if !r.linear {
		return 0
	}
	n := len(r.st.sess.Messages) - 1
	for _, m := range r.st.open {
		n = min(n, m)
	}
	return max(n, 0)
}

// state is the session the lines make: read as they came, or rebuilt
// from the chain of the last line.
func (r *reader) state() (*state, error) {
	if r.linear {
		return r.st, nil
	}
	if r.rebuilt != nil {
		return r.rebuilt, nil
	}
	st := newState(r.path)
	warnf := sessions.LineWarner(&st.warns, r.path)
	for _, la := range activeBranch(r.lines, warnf) {
		b := la.data
		if b == nil {
			var err error
			if b, err = sessions.ReadLineAt(r.path, la.l); err != nil {
				return nil, err
			}
		}
		var ln line
		if err := decodeLine(b, &ln); err != nil {
			return nil, fmt.Errorf("%s:%d: the file changed since it was read", r.path, la.l.N)
		}
		st.apply(la.l, ln, r.elide && len(ln.Message) > elideBytes)
	}
	r.rebuilt = st
	return st, nil
}

// Session is the session read so far.
func (r *reader) Session() (*model.Session, error) {
	st, err := r.state()
	if err != nil {
		return nil, err
	}
	if !st.qwen {
		return nil, sessions.NotSession(r.path, "no Qwen Code line")
	}
	sess := *st.sess
	sess.Messages = slices.Clone(st.sess.Messages)
	sess.Warnings = slices.Clone(st.warns)
	sess.Info.Directory = st.cwd
	sess.Info.DataDir = filepath.Join(runtimeDir(r.path), "tmp", ProjectHash(st.cwd))
	if sess.Info.ParentID != "" {
		subagentModel(&sess, r.path)
	}
	linkSubagents(&sess, r.path)
	finish(&sess, st)
	return &sess, nil
}

// Output is call partID whole, its result read again from its line.
func (r *reader) Output(partID string, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, error) {
	st, err := r.state()
	if err != nil {
		return nil, err
	}
	at := st.calls[partID]
	if at == nil {
		return nil, fmt.Errorf("%w: tool call %q in %s", sessions.ErrNotFound, partID, r.path)
	}
	c := *st.sess.Messages[at.msg].Parts[at.part].Tool
	if at.at == nil {
		return &c, nil
	}
	b, err := r.readResult(*at.at, read)
	if err != nil {
		return nil, err
	}
	// the call's text, where the skim finds it, is decoded from where it
	// lies and left out of what is decoded (cutText); else, or when that
	// is not the response read, the line is decoded as stored
	if small, cut := cutText(b, partID); cut != nil {
		if out, ok := resultIn(c, small, partID, cut); ok {
			return out, nil
		}
	}
	if out, ok := resultIn(c, b, partID, nil); ok {
		return out, nil
	}
	return nil, fmt.Errorf("%s:%d: the file changed since it was read", r.path, at.at.N)
}

// readResult reads result line l, without its toolCallResult's strings
// when the scan noted them (drops), whole when they are not where the
// scan found them.
func (r *reader) readResult(l sessions.Line, read func(sessions.Line) ([]byte, error)) ([]byte, error) {
	drop := r.drops[l.Off]
	if len(drop) == 0 {
		return read(l)
	}
	lines := sessions.LinesAt{Path: r.path}
	defer lines.Close()
	lr, err := lines.ReadWithout(l, nil, drop)
	if err == nil {
		if top, ok := jsonskim.Named(lr.Data, "toolCallResult"); ok {
			displayStrings(top[0], func(s []byte) { lr.Drop(s) })
		}
		if lr.Whole(lr.Data) {
			return lr.Data, nil
		}
	}
	return read(l)
}

// resultIn is call c with its result as its line b gives it, that of the
// first function response of id partID; with cut, b is the line cut down,
// the response cut.part's value cut.value. False when b gives none (or
// not that part).
func resultIn(c model.ToolCall, b []byte, partID string, cut *textCut) (*model.ToolCall, bool) {
	var ln line
	var parts []part
	err := decodeLine(b, &ln)
	if err == nil {
		parts, err = partsOf(ln.Message)
	}
	for i, p := range parts {
		if fr := p.FunctionResponse; fr != nil && fr.ID == partID && err == nil {
			if cut != nil && i != cut.part {
				return nil, false
			}
			v := responseValue(fr.Response)
			if cut != nil {
				v = cut.value
			}
			c.Elided, c.OutputBytes = false, 0
			setResult(&c, v, fr.Parts, ln.Result)
			return &c, true
		}
	}
	return nil, false
}

// Fill puts back, in the messages of sess, the tool_result lines their
// Stored has stand-ins for (sessions.Filler).
func (r *reader) Fill(sess *model.Session, read func(sessions.Line) ([]byte, error)) error {
	st, err := r.state()
	if err != nil {
		return err
	}
	for i := range sess.Messages {
		m := &sess.Messages[i]
		copied := false // the reader's messages keep their Stored
		for j, raw := range m.Stored {
			id := elidedCall(raw)
			if id == "" {
				continue
			}
			ca := st.calls[id]
			if ca == nil || ca.at == nil {
				return fmt.Errorf("%s: no line of call %s", r.path, id)
			}
			b, err := read(*ca.at)
			if err != nil {
				return err
			}
			var ln line
			if err := decodeLine(b, &ln); err != nil {
				return fmt.Errorf("%s:%d: the file changed since it was read", r.path, ca.at.N)
			}
			if !copied {
				m.Stored, copied = slices.Clone(m.Stored), true
			}
			m.Stored[j] = ln.Message
		}
	}
	return nil
}

// call is the call at, copied for change: the messages handed out keep
// theirs.
func (st *state) call(at *callAt) *model.ToolCall {
	m := &st.sess.Messages[at.msg]
	m.Parts = slices.Clone(m.Parts)
	c := *m.Parts[at.part].Tool
	m.Parts[at.part].Tool = &c
	return &c
}

// apply reads one line of the conversation; elide tells that its message
// is large.
func (st *state) apply(al sessions.Line, l line, elide bool) {
	n := al.N
	sess := st.sess
	warnf := sessions.LineWarner(&st.warns, sess.Info.Source)
	at := func(ts string) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, ts)
		return t
	}
	st.qwen = true
	if sess.Info.ID == "" {
		sess.Info.ID = cmp.Or(l.AgentID, l.SessionID)
		if l.AgentID != "" {
			sess.Info.ParentID = l.SessionID
		}
		sess.Info.Created = at(l.Timestamp)
	}
	if t := at(l.Timestamp); t.After(sess.Info.Updated) {
		sess.Info.Updated = t
	}
	sess.Info.Version = cmp.Or(l.Version, sess.Info.Version)
	st.cwd = cmp.Or(l.Cwd, st.cwd)
	if l.Type == "system" {
		system(sess, n, l, warnf)
		return
	}
	if l.Type != "user" && l.Type != "assistant" && l.Type != "tool_result" {
		return
	}
	parts, err := partsOf(l.Message)
	if err != nil {
		warnf(n, "skipped a %s line whose message has no Gemini parts (%v)", l.Type, err)
		return
	}
	msgs := &sess.Messages
	last := func() *model.Message {
		if len(*msgs) == 0 {
			return nil
		}
		return &(*msgs)[len(*msgs)-1]
	}
	switch l.Type {
	case "user":
		m := model.Message{ID: l.UUID, Role: model.RoleUser, Created: at(l.Timestamp), Completed: at(l.Timestamp), Stored: []json.RawMessage{l.Message}}
		for i, p := range parts {
			if p.Text != nil && !p.Thought {
				m.Parts = append(m.Parts, model.Part{ID: fmt.Sprintf("%s-%d", l.UUID, i), Type: model.PartText, Text: *p.Text})
			}
		}
		*msgs = append(*msgs, m)
		st.lastNew = false
	case "assistant":
		// a subagent's response may go on in a line without usage
		m := last()
		if m == nil || m.Role != model.RoleAssistant || len(l.Usage) > 0 || !st.lastNew {
			*msgs = append(*msgs, model.Message{ID: l.UUID, Role: model.RoleAssistant, Created: at(l.Timestamp), ProviderID: "openai", ModelID: l.Model})
			m = last()
		}
		st.lastNew = len(l.Usage) > 0
		m.Completed = at(l.Timestamp)
		m.ModelID = cmp.Or(l.Model, m.ModelID)
		m.Stored = append(m.Stored, l.Message)
		for i, p := range parts {
			id := fmt.Sprintf("%s-%d", l.UUID, i)
			switch {
			case p.FunctionCall != nil:
				c := &model.ToolCall{Agent: Agent, CallID: p.FunctionCall.ID, Tool: p.FunctionCall.Name, Input: p.FunctionCall.Args, Status: model.StatusRunning, Start: at(l.Timestamp)}
				st.calls[c.CallID] = &callAt{msg: len(*msgs) - 1, part: len(m.Parts)}
				st.open[c.CallID] = len(*msgs) - 1
				m.Parts = append(m.Parts, model.Part{ID: cmp.Or(c.CallID, id), Type: model.PartTool, Tool: c})
			case p.Text != nil && p.Thought:
				m.Parts = append(m.Parts, model.Part{ID: id, Type: model.PartReasoning, Text: *p.Text})
			case p.Text != nil:
				m.Parts = append(m.Parts, model.Part{ID: id, Type: model.PartText, Text: *p.Text})
			}
		}
	case "tool_result":
		m := last()
		if m == nil || m.Role != model.RoleAssistant {
			warnf(n, "skipped a tool result with no assistant line before it")
			return
		}
		stored := l.Message
		if elide = elide && elidable(parts, l.Result); elide {
			stored = elidedStored(parts[0].FunctionResponse.ID)
		}
		m.Stored = append(m.Stored, stored)
		st.lastNew = false
		for _, p := range parts {
			fr := p.FunctionResponse
			if fr == nil {
				continue
			}
			ca := st.calls[fr.ID]
			if ca == nil {
				warnf(n, "skipped the result of an unknown call %q", fr.ID)
				continue
			}
			c := st.call(ca)
			c.End = at(l.Timestamp)
			setResult(c, responseValue(fr.Response), fr.Parts, l.Result)
			delete(st.open, fr.ID)
			ca.truncated, ca.at = formatters.Visible(c, nil).Truncation != nil, nil
			if elide {
				line := al
				ca.at = &line
				c.OutputBytes = len(c.Output) + len(c.Error)
				c.Output, c.Error, c.Sent, c.Elided = "", "", nil, true
			}
		}
	}
}

// elidedStored stands, in an outline's Stored, for the tool_result line of
// call id left in the file: the wire takes the result from the call.
func elidedStored(id string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Role   string `json:"role"`
		Elided string `json:"qwen_elided"`
	}{"user", id})
	return b
}

// elidedHead starts every elidedStored entry.
var elidedHead = []byte(`{"role":"user","qwen_elided":`)

// elidedCall is the call whose result stands in Stored entry raw, "" for
// a line as stored.
func elidedCall(raw json.RawMessage) string {
	// elidedStored's, as json.Marshal writes it: its id read as it lies
	if rest, ok := bytes.CutPrefix(raw, elidedHead); ok && len(rest) > 1 && rest[len(rest)-1] == '}' {
		if id, ok := jsonskim.Text(rest[:len(rest)-1]); ok {
			return id
		}
	}
	if !bytes.Contains(raw, []byte(`"qwen_elided"`)) {
		return ""
	}
	var v struct {
		Elided string `json:"qwen_elided"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Elided
}

// elidable tells whether a tool_result's parts can be left out of an
// outline: one function response whose response is its output (a success)
// or its error, with no media, so that the call's Output or Error, as an
// outline call without Sent shows it, is exactly what the model got.
func elidable(parts []part, status *struct {
	Status string `json:"status"`
}) bool {
	if len(parts) != 1 || parts[0].FunctionResponse == nil || len(parts[0].FunctionResponse.Parts) > 0 {
		return false
	}
	var resp map[string]json.RawMessage
	if json.Unmarshal(parts[0].FunctionResponse.Response, &resp) != nil || len(resp) != 1 {
		return false
	}
	var text string
	failed := status != nil && status.Status == "error"
	switch {
	case resp["output"] != nil:
		return json.Unmarshal(resp["output"], &text) == nil && !failed
	case resp["error"] != nil:
		return json.Unmarshal(resp["error"], &text) == nil
	}
	return false
}

// activeBranch is the conversation the file's last line continues: its
// parentUuid chain back to the first line (a rewind leaves the lines it
// undid off the chain). A chain that breaks (a parent the file lacks)
// keeps every line, with a warning.
func activeBranch(lines []lineAt, warnf func(int, string, ...any)) []lineAt {
	if len(lines) == 0 {
		return nil
	}
	at := map[string]int{}
	for i, la := range lines {
		at[la.uuid] = i
	}
	on := make([]bool, len(lines))
	for i := len(lines) - 1; ; {
		if on[i] {
			break // a cycle
		}
		on[i] = true
		p := lines[i].parent
		if p == "" {
			break
		}
		j, ok := at[p]
		if !ok {
			warnf(lines[i].l.N, "the parentUuid chain breaks here (no line %s): every line is read", p)
			return lines
		}
		i = j
	}
	var out []lineAt
	for i, la := range lines {
		if on[i] {
			out = append(out, la)
		}
	}
	return out
}

// compressedMark, in the Stored of the last message before it, says that
// Qwen Code compressed the conversation there (a chat_compression line):
// it then sent the compressed history it recorded, which correx does not
// rebuild (gaps says so).
var compressedMark = json.RawMessage(`{"qwen_compressed":true}`)

// system reads a system line: a custom title, a compression.
func system(sess *model.Session, n int, l line, warnf func(int, string, ...any)) {
	switch l.Subtype {
	case "custom_title":
		var p struct {
			Title string `json:"customTitle"`
		}
		if json.Unmarshal(l.Payload, &p) == nil && p.Title != "" {
			sess.Info.Title, _, _ = strings.Cut(strings.TrimSpace(p.Title), "\n")
		}
	case "chat_compression":
		if k := len(sess.Messages); k > 0 {
			m := &sess.Messages[k-1]
			m.Stored = append(m.Stored, compressedMark)
		}
		warnf(n, "Qwen Code compressed the conversation here: the requests after it went with the compressed history it recorded, and correx rebuilds them from the whole conversation")
	}
}

// ProjectHash names a project's temp dir: the sha256 of its path, in hex.
func ProjectHash(project string) string {
	h := sha256.Sum256([]byte(project))
	return hex.EncodeToString(h[:])
}

// runtimeDir is the dir holding projects/ of a session file.
func runtimeDir(path string) string {
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "projects" {
			return filepath.Dir(d)
		}
	}
	return filepath.Dir(path)
}

// setResult is the call's result as the model got it: response.output is
// text, else response.error an error, else the response's JSON; media
// parts are files after the text.
// responseValue is a function response's value: its output or error
// text, else the response as JSON.
func responseValue(response json.RawMessage) model.ToolResultValue {
	switch k, text := sentString(response); k {
	case "output":
		return model.ToolResultValue{Type: model.ResultText, Text: text}
	case "error":
		return model.ToolResultValue{Type: model.ResultError, Text: text}
	}
	var b bytes.Buffer
	_ = json.Compact(&b, response)
	return model.ToolResultValue{Type: model.ResultJSON, JSON: b.Bytes()}
}

// setResult sets c's result from its response's value v and parts.
func setResult(c *model.ToolCall, v model.ToolResultValue, parts []part, status *struct {
	Status string `json:"status"`
}) {
	var items []model.ToolContent
	for _, p := range parts {
		switch {
		case p.InlineData != nil:
			items = append(items, model.ToolContent{Type: model.ContentFile, Mime: p.InlineData.MimeType, Name: p.InlineData.DisplayName,
				URI: "data:" + p.InlineData.MimeType + ";base64," + p.InlineData.Data})
		case p.Text != nil && *p.Text != "":
			items = append(items, model.ToolContent{Type: model.ContentText, Text: *p.Text})
		}
	}
	if len(items) > 0 {
		v = model.ToolResultValue{Type: model.ResultContent, Content: append([]model.ToolContent{{Type: model.ContentText, Text: formatters.ResultText(v)}}, items...)}
	}
	c.Sent = &v
	c.Status = model.StatusCompleted
	if v.Type == model.ResultError || status != nil && status.Status == "error" {
		c.Status = model.StatusError
		c.Error = formatters.ResultText(v)
	} else {
		c.Output = formatters.ResultText(v)
	}
}

// subagentModel gives a subagent's steps the model of its meta file
// (agent-<id>.meta.json: its own "model", else the run's CLI model): its
// lines name none.
func subagentModel(sess *model.Session, path string) {
	b, err := sessions.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".meta.json")
	if err != nil {
		return
	}
	var meta struct {
		Model string `json:"model"`
		Flags struct {
			Model string `json:"model"`
		} `json:"persistedCliFlags"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return
	}
	for i := range sess.Messages {
		if m := &sess.Messages[i]; m.Role == model.RoleAssistant && m.ModelID == "" {
			m.ModelID = cmp.Or(meta.Model, meta.Flags.Model)
		}
	}
}

// linkSubagents points each agent call of a chat at the subagent session
// it ran: subagents/<session>/agent-<type>-<call id>.jsonl.
func linkSubagents(sess *model.Session, path string) {
	if sess.Info.ParentID != "" || filepath.Base(filepath.Dir(path)) != "chats" {
		return
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(path)), "subagents", sess.Info.ID)
	files, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, r := range sess.ToolCalls() {
		for _, f := range files {
			id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "agent-"), ".jsonl")
			if r.Call.CallID != "" && strings.HasSuffix(id, "-"+r.Call.CallID) {
				m := &sess.Messages[r.Message] // copied: the reader's messages keep theirs
				m.Parts = slices.Clone(m.Parts)
				c := *m.Parts[r.Part].Tool
				c.ChildSessionID = id
				m.Parts[r.Part].Tool = &c
			}
		}
	}
}

// finish counts the session's messages, calls, errors and truncations
// (found when each call got its result: an elided output is not at hand)
// and titles it with its first prompt's first line.
func finish(sess *model.Session, st *state) {
	for _, m := range sess.Messages {
		if sess.Info.Title == "" && m.Role == model.RoleUser && len(m.Parts) > 0 {
			sess.Info.Title, _, _ = strings.Cut(strings.TrimSpace(m.Parts[0].Text), "\n")
		}
	}
	sessions.CountKnown(sess, nil, func(c *model.ToolCall) (bool, bool) {
		ca := st.calls[c.CallID]
		return ca != nil && ca.truncated, ca != nil && c.Status != model.StatusRunning
	})
}
