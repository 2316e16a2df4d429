// Package copilot reads GitHub Copilot CLI sessions (1.0.102, observed):
// $COPILOT_HOME/session-state/<session uuid>/events.jsonl (default
// ~/.copilot), one JSON event {"type","data","id","timestamp","parentId"}
// a line, appended to by every process that resumes the session. It
// registers the driver, the agent's name, its own OpenAI Chat wire
// (wire.go) and its spill marker (markers.go).
//
// Tool call ids are the wire ids. A successful call's result.content is
// byte for byte the tool message the model got; a failed call keeps only
// error.message, while its own run sent the model a longer sentence that
// is stored nowhere (ToolCall.SentUnknown); after a resume Copilot sends
// error.message itself.
package copilot

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/sessions"
)

// Agent is Copilot's id: the folder of its fixtures under testdata/.
const Agent model.Agent = "copilot"

// Version is the Copilot CLI version the reader and the wire rules were
// checked against.
const Version = "1.0.102"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "GitHub Copilot CLI", Version: Version})
	sessions.Register(sessions.Driver{Agent: Agent, Locations: locations, Open: open})
}

// Home is $COPILOT_HOME, by default ~/.copilot; "" without a home.
func Home() string { return sessions.AgentDir("COPILOT_HOME", ".copilot") }

func locations() []string {
	if h := Home(); h != "" && sessions.IsDir(filepath.Join(h, "session-state")) {
		return []string{h}
	}
	return nil
}

// eventsFile is the name of a session's event log in its folder.
const eventsFile = "events.jsonl"

// open claims a COPILOT_HOME (it has session-state/), its session-state/
// folder, one session folder (an events.jsonl) or one events.jsonl.
func open(path string, dir bool) (sessions.Store, bool, error) {
	var home, single string // single: the one log a store of one session reads
	var files func() ([]string, []string)
	switch {
	case !dir && filepath.Base(path) == eventsFile && isCopilotLog(path):
		home, single = filepath.Dir(filepath.Dir(filepath.Dir(path))), path
		files = func() ([]string, []string) { return []string{path}, nil }
	case dir && sessions.IsFile(filepath.Join(path, eventsFile)) && isCopilotLog(filepath.Join(path, eventsFile)):
		home, single = filepath.Dir(filepath.Dir(path)), filepath.Join(path, eventsFile)
		files = func() ([]string, []string) { return []string{single}, nil }
	case dir && filepath.Base(path) == "session-state" && hasSessions(path):
		home = filepath.Dir(path)
		files = func() ([]string, []string) { return sessionLogs(path) }
	case dir && sessions.IsDir(filepath.Join(path, "session-state")):
		home = path
		files = func() ([]string, []string) { return sessionLogs(filepath.Join(path, "session-state")) }
	default:
		return nil, false, nil
	}
	st := &store{home: home, kidsOf: map[string][]model.SessionInfo{}, mains: map[string]bool{}}
	st.LineStore = &sessions.LineStore{
		FileStore: &sessions.FileStore{Root: path, Files: files, Read: func(f string) (*model.Session, error) {
			main, _, err := read(f, home)
			return main, err
		}},
		Reader: func(f string, warnf func(int, string, ...any)) sessions.LineReader {
			return &notingReader{newReader(f, home, warnf, true), st}
		},
		Guess: func(id string) []string {
			// by name, not by listing the folder: every call read asks
			if single != "" {
				return []string{single}
			}
			if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
				return nil
			}
			return []string{filepath.Join(home, "session-state", id, eventsFile)}
		},
	}
	return st, true, nil
}

// store is a LineStore of the main sessions that also lists and loads the
// subagents' sessions each events.jsonl holds (read whole: they are
// small).
type store struct {
	*sessions.LineStore
	home   string // the COPILOT_HOME the store is under
	mu     sync.Mutex
	kidsOf map[string][]model.SessionInfo // events.jsonl → its subagents' sessions, as last read
	mains  map[string]bool                // the main sessions isMain found
}

// notingReader tells the store of the subagents' sessions each time the
// main session is built.
type notingReader struct {
	*reader
	st *store
}

func (r *notingReader) Session() (*model.Session, error) {
	s, err := r.reader.Session()
	if err == nil {
		var infos []model.SessionInfo
		for _, k := range r.kidSessions() {
			infos = append(infos, k.Info)
		}
		r.st.mu.Lock()
		r.st.kidsOf[r.path] = infos
		r.st.mu.Unlock()
	}
	return s, err
}

// List lists the main sessions and then their subagents' sessions.
func (s *store) List(ctx context.Context) ([]model.SessionInfo, error) {
	infos, err := s.LineStore.List(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, in := range slices.Clone(infos) {
		infos = append(infos, s.kidsOf[in.Source]...)
	}
	s.mu.Unlock()
	sessions.SortInfos(infos)
	return infos, nil
}

// kidFile is the events.jsonl holding subagent session id, by the last
// List (listing again when it names none); "" for a main session.
func (s *store) kidFile(ctx context.Context, id string) string {
	find := func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		for f, kids := range s.kidsOf {
			for _, k := range kids {
				if k.ID == id {
					return f
				}
			}
		}
		return ""
	}
	f := find()
	if f == "" && !s.isMain(id) {
		if _, err := s.List(ctx); err == nil {
			f = find()
		}
	}
	return f
}

// isMain says whether id names a session folder of the store: a main
// session, opened without listing. A folder found is remembered (every
// call read asks; a log gone since fails its read).
func (s *store) isMain(id string) bool {
	s.mu.Lock()
	known := s.mains[id]
	s.mu.Unlock()
	if known {
		return true
	}
	for _, f := range s.Guess(id) {
		if filepath.Base(filepath.Dir(f)) == id && sessions.IsFile(f) {
			s.mu.Lock()
			s.mains[id] = true
			s.mu.Unlock()
			return true
		}
	}
	return false
}

// loadKid loads subagent session id from its parent's log, whole.
func (s *store) loadKid(f, id string) (*model.Session, error) {
	_, kids, err := read(f, s.home)
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		if k.Info.ID == id {
			return k, nil
		}
	}
	return nil, fmt.Errorf("%w: session %s", sessions.ErrNotFound, id)
}

// Load loads a main session, or a subagent's from its parent's log.
func (s *store) Load(ctx context.Context, id string) (*model.Session, error) {
	if f := s.kidFile(ctx, id); f != "" {
		return s.loadKid(f, id)
	}
	return s.LineStore.Load(ctx, id)
}

// LoadOutline pages a main session; a subagent's comes whole.
func (s *store) LoadOutline(ctx context.Context, id string, from, limit int) (*sessions.OutlinePage, error) {
	if f := s.kidFile(ctx, id); f != "" {
		sess, err := s.loadKid(f, id)
		if err != nil {
			return nil, err
		}
		return &sessions.OutlinePage{Session: sess}, nil
	}
	return s.LineStore.LoadOutline(ctx, id, from, limit)
}

// LoadOutput reads a call of a main session again; a subagent's calls are
// never left out.
func (s *store) LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error) {
	if f := s.kidFile(ctx, sessionID); f != "" {
		sess, err := s.loadKid(f, sessionID)
		if err != nil {
			return nil, err
		}
		return sessions.PartCall(sess, partID)
	}
	return s.LineStore.LoadOutput(ctx, sessionID, partID)
}

// LoadStreamed implements sessions.TextStreamer: a main session's
// left-out outputs are streamed from its log (sessions.LineStore); a
// subagent's calls come whole.
func (s *store) LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	return s.streamed(ctx, sessionID, partID, false)
}

// LoadStreamedJSON implements sessions.JSONStreamer, as LoadStreamed.
func (s *store) LoadStreamedJSON(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	return s.streamed(ctx, sessionID, partID, true)
}

func (s *store) streamed(ctx context.Context, sessionID, partID string, asJSON bool) (*model.ToolCall, func(string, func(string) error) error, error) {
	if s.kidFile(ctx, sessionID) == "" {
		if asJSON {
			return s.LineStore.LoadStreamedJSON(ctx, sessionID, partID)
		}
		return s.LineStore.LoadStreamed(ctx, sessionID, partID)
	}
	c, err := s.LoadOutput(ctx, sessionID, partID)
	if err != nil {
		return nil, nil, err
	}
	return c, sessions.StreamOutput(c, nil, asJSON), nil
}

// isCopilotLog says whether an events.jsonl starts with Copilot's
// session.start event.
func isCopilotLog(path string) bool {
	head, err := sessions.ReadHead(path, 4096)
	return err == nil && strings.Contains(string(head), `"type":"session.start"`) &&
		strings.Contains(string(head), `"producer":"copilot-agent"`)
}

// hasSessions says whether a session-state folder holds a Copilot log.
func hasSessions(dir string) bool {
	logs, _ := filepath.Glob(filepath.Join(dir, "*", eventsFile))
	for _, l := range logs {
		if isCopilotLog(l) {
			return true
		}
	}
	return false
}

// sessionLogs lists session-state/*/events.jsonl, in name order.
func sessionLogs(dir string) (files, warnings []string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*", eventsFile))
	sort.Strings(logs)
	return logs, nil
}

// event is one line of events.jsonl.
type event struct {
	Type      string          `json:"type"`
	AgentID   string          `json:"agentId"` // set on a subagent's events
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
}

type startData struct {
	SessionID      string `json:"sessionId"`
	CopilotVersion string `json:"copilotVersion"`
	StartTime      string `json:"startTime"`
	Context        struct {
		Cwd string `json:"cwd"`
	} `json:"context"`
}

type userData struct {
	MessageID          string `json:"messageId"`
	Content            string `json:"content"`
	TransformedContent string `json:"transformedContent"`
}

type assistantData struct {
	MessageID     string `json:"messageId"`
	Model         string `json:"model"`
	Content       string `json:"content"`
	ReasoningText string `json:"reasoningText"`
	ToolRequests  []struct {
		ToolCallID       string          `json:"toolCallId"`
		Name             string          `json:"name"`
		Arguments        json.RawMessage `json:"arguments"`
		IntentionSummary string          `json:"intentionSummary"`
	} `json:"toolRequests"`
}

type completeData struct {
	ToolCallID    string          `json:"toolCallId"`
	Success       bool            `json:"success"`
	Result        *completeResult `json:"result"`
	Error         *completeError  `json:"error"`
	ToolTelemetry json.RawMessage `json:"toolTelemetry"`
}

type completeResult struct {
	Content string `json:"content"`
}

type completeError struct {
	Message string `json:"message"`
}

type subagentData struct {
	ToolCallID  string `json:"toolCallId"`
	DisplayName string `json:"agentDisplayName"`
	Description string `json:"agentDescription"`
}

type usageData struct {
	Usage struct {
		APIEndpoint string `json:"apiEndpoint"`
	} `json:"usage"`
}

// typedEvent is an event whose data is a T.
type typedEvent[T any] struct {
	Type      string `json:"type"`
	AgentID   string `json:"agentId"`
	Data      T      `json:"data"`
	Timestamp string `json:"timestamp"`
}

// fastEvent decodes an event and its data in one pass, as its type (the
// line's first member) says; ok false when it cannot (the line, its data
// or its type is not what that type's events are): the caller then
// decodes the event and then its data, which names what is wrong.
func fastEvent(line []byte) (ev event, data func(any) error, ok bool) {
	const head = `{"type":"`
	typ := ""
	if rest, found := bytes.CutPrefix(line, []byte(head)); found {
		if i := bytes.IndexAny(rest, `"\`); i > 0 && rest[i] == '"' {
			typ = string(rest[:i])
		}
	}
	switch typ {
	case "":
		return ev, nil, false
	case "tool.execution_complete":
		if te, skimmed := skimComplete(line); skimmed {
			return event{Type: te.Type, AgentID: te.AgentID, Timestamp: te.Timestamp}, func(v any) error {
				*v.(*completeData) = te.Data
				return nil
			}, te.Type == typ
		}
		ev, data, ok = decodeTyped(line, func(d *completeData) *string { return &d.Result.Content })
	case "assistant.message":
		ev, data, ok = decodeTyped[assistantData](line, nil)
	case "user.message":
		ev, data, ok = decodeTyped[userData](line, nil)
	case "session.start":
		ev, data, ok = decodeTyped[startData](line, nil)
	case "subagent.started":
		ev, data, ok = decodeTyped[subagentData](line, nil)
	case "session.usage_record":
		ev, data, ok = decodeTyped[usageData](line, nil)
	default: // its data is not read
		ev, data, ok = decodeTyped[struct{}](line, nil)
	}
	return ev, data, ok && ev.Type == typ
}

// decodeTyped decodes event line, its data a T; content, when not nil, is
// where a T keeps data.result.content (unmarshalCut).
func decodeTyped[T any](line []byte, content func(*T) *string) (event, func(any) error, bool) {
	var te typedEvent[T]
	unmarshal := func() error { return unmarshalPruned(line, &te) }
	if content != nil {
		unmarshal = func() error { return unmarshalCut(line, &te, func() *string { return content(&te.Data) }) }
	}
	if unmarshal() != nil {
		return event{}, nil, false
	}
	return event{Type: te.Type, AgentID: te.AgentID, Timestamp: te.Timestamp}, func(v any) error {
		*v.(*T) = te.Data
		return nil
	}, true
}

// skimComplete is a tool.execution_complete event line decoded as
// json.Unmarshal decodes it, where the skim can vouch for it: the line
// valid, each name on the way given once and exactly, each value of its
// field's kind (else ok is false, and encoding/json decodes it). A scan
// decodes one for each call, and encoding/json was most of its time.
func skimComplete(line []byte) (te typedEvent[completeData], ok bool) {
	if !jsonskim.Valid(line) {
		return te, false
	}
	v, ok := jsonskim.Named(line, "type", "agentId", "data", "timestamp")
	if !ok || !jsonskim.StringValues(v, &te.Type, &te.AgentID) || !jsonskim.StringValues(v[3:], &te.Timestamp) {
		return te, false
	}
	if data := v[2]; data != nil && string(data) != "null" {
		ok = skimCompleteData(data, &te.Data)
	}
	return te, ok
}

// skimCompleteData is skimComplete's decoding of the event's data.
func skimCompleteData(b []byte, d *completeData) bool {
	v, ok := jsonskim.Named(b, "toolCallId", "success", "result", "error", "toolTelemetry")
	if !ok || !jsonskim.StringValues(v, &d.ToolCallID) {
		return false
	}
	switch string(v[1]) {
	case "", "null":
	case "true":
		d.Success = true
	case "false":
	default:
		return false
	}
	var result completeResult
	var failure completeError
	hasResult, ok := skimOne(v[2], "content", &result.Content)
	hasError, ok2 := skimOne(v[3], "message", &failure.Message)
	if !ok || !ok2 {
		return false
	}
	if hasResult {
		d.Result = &result
	}
	if hasError {
		d.Error = &failure
	}
	if t := v[4]; t != nil {
		d.ToolTelemetry = bytes.Clone(t) // null too: a RawMessage takes it
	}
	return true
}

// skimOne decodes val, a member's value (nil: absent) that encoding/json
// decodes into a pointer to a struct of one string field name: set says
// it is an object (the pointer set), ok false when the skim cannot vouch
// for it.
func skimOne(val []byte, name string, dst *string) (set, ok bool) {
	switch {
	case val == nil || string(val) == "null":
		return false, true
	case val[0] != '{':
		return false, false
	}
	v, ok := jsonskim.Named(val, name)
	return true, ok && jsonskim.StringValues(v, dst)
}

// FailedSentUnknown is why a failed call's result as its own run sent it
// is not known.
const FailedSentUnknown = "Copilot stores only the short error.message of a failed call; in the call's own run it sent the model a longer sentence that is stored nowhere (after a resume it sends this message)"

// read reads one events.jsonl whole into its main session (what the store
// lists) and the sessions of the subagents it ran; home is the
// COPILOT_HOME it is under.
func read(path, home string) (*model.Session, []*model.Session, error) {
	r := newReader(path, home, nil, false)
	r.warnf = sessions.LineWarner(&r.main.Warnings, path)
	if err := sessions.ReadJSONL(path, func(n int, line []byte, last bool) {
		r.Line(sessions.Line{N: n}, line, last)
	}, r.warnf); err != nil {
		return nil, nil, err
	}
	main, err := r.Session()
	if err != nil {
		return nil, nil, err
	}
	return main, r.kidSessions(), nil
}

// reader reads one events.jsonl a line at a time (a sessions.LineReader)
// into its main session and the sessions of the subagents it ran. Each
// process that wrote to the log is a run (Message.Run): session.start
// begins the first, each session.resume the next. Copilot writes a
// subagent's events (its prompt, its turns, its calls) into the same log,
// each marked with the subagent's agentId; they are its own conversation,
// sent in requests of their own, so they go to a child session (ID the
// agentId, ParentID the main session) that the task call names
// (ChildSessionID).
//
// With elide, a main-session call whose result is over elideBytes keeps the line of its completion instead
// (model.ToolCall.Elided), and Output reads it again. A message is stable
// once all its calls have their result: no later line changes it (only a
// call's completion, or the subagent.started naming the child of a call
// still running, goes back to an earlier message).
type reader struct {
	path, home string
	warnf      func(n int, format string, args ...any)
	elide      bool

	main      *model.Session
	kids      map[string]*model.Session
	kidOrder  []*model.Session
	calls     map[string]*callAt
	open      map[string]int // main-session calls without their result → message
	run       int
	started   bool
	otherWire bool
	last      time.Time
}

// callAt is where a call is, and what its completion said.
type callAt struct {
	sess      *model.Session
	msg, part int
	at        *sessions.Line // the completion's line, when its output was left out
	truncated bool           // correx detects a truncation in its result
}

// elideBytes is the size of a result above which the lazy path leaves it
// in the file, as opencode's outline does (opencode.OutlineElideBytes);
// tests lower it.
var elideBytes = 1024

func newReader(path, home string, warnf func(int, string, ...any), elide bool) *reader {
	return &reader{path: path, home: home, warnf: warnf, elide: elide,
		main:  &model.Session{Info: model.SessionInfo{Agent: Agent, Source: path, DataDir: home}},
		kids:  map[string]*model.Session{},
		calls: map[string]*callAt{}, open: map[string]int{}}
}

// call is call id's ToolCall, copied for change: the messages handed out
// keep theirs.
func (r *reader) call(at *callAt) *model.ToolCall {
	m := &at.sess.Messages[at.msg]
	m.Parts = slices.Clone(m.Parts)
	c := *m.Parts[at.part].Tool
	m.Parts[at.part].Tool = &c
	return &c
}

// Line reads one event.
func (r *reader) Line(l sessions.Line, line []byte, last bool) {
	r.PreparedLine(l, line, r.Prepare(line), last)
}

// fastDecoded is what fastEvent made of a line.
type fastDecoded struct {
	ev   event
	data func(any) error
	ok   bool
}

// Prepare decodes a line as fastEvent does, ahead of the scan
// (sessions.Preparer).
func (*reader) Prepare(line []byte) any {
	ev, data, ok := fastEvent(line)
	return fastDecoded{ev, data, ok}
}

// PreparedLine reads a line, prep what Prepare made of it.
func (r *reader) PreparedLine(l sessions.Line, line []byte, prep any, _ bool) {
	n := l.N
	d := prep.(fastDecoded)
	ev, data, ok := d.ev, d.data, d.ok
	if !ok {
		if err := json.Unmarshal(line, &ev); err != nil {
			r.warnf(n, "skipped a line that is not JSON (%v)", err)
			return
		}
		data = func(v any) error { return json.Unmarshal(ev.Data, v) }
	}
	ts, _ := time.Parse(time.RFC3339Nano, ev.Timestamp)
	if !ts.IsZero() {
		r.last = ts
	}
	bad := func(err error) bool {
		if err != nil {
			r.warnf(n, "skipped a %s event whose data is not the expected object (%v)", ev.Type, err)
		}
		return err != nil
	}
	sess := r.main
	if ev.AgentID != "" {
		if sess = r.kids[ev.AgentID]; sess == nil {
			sess = &model.Session{Info: model.SessionInfo{Agent: Agent, Source: r.path, DataDir: r.home, ID: ev.AgentID, Created: ts}}
			r.kids[ev.AgentID] = sess
			r.kidOrder = append(r.kidOrder, sess)
		}
		sess.Info.Updated = ts
	}
	switch ev.Type {
	case "session.start":
		var d startData
		if bad(data(&d)) {
			return
		}
		if !r.started {
			r.started = true
			r.main.Info.ID, r.main.Info.Version, r.main.Info.Directory = d.SessionID, d.CopilotVersion, d.Context.Cwd
			r.main.Info.Created, _ = time.Parse(time.RFC3339Nano, d.StartTime)
		}
		r.run++
	case "session.resume":
		r.run++
	case "subagent.started":
		var d subagentData
		if bad(data(&d)) || ev.AgentID == "" {
			return
		}
		if at := r.calls[d.ToolCallID]; at != nil {
			r.call(at).ChildSessionID = ev.AgentID
		}
		sess.Info.Title = strings.TrimSpace(d.DisplayName + ": " + d.Description)
	case "user.message":
		var d userData
		if bad(data(&d)) {
			return
		}
		text := d.TransformedContent // what was sent: <current_datetime>…</current_datetime>\n\n + the text
		if text == "" {
			text = d.Content
		}
		if sess.Info.Title == "" {
			sess.Info.Title = sessions.FirstLine(d.Content)
		}
		sess.Messages = append(sess.Messages, model.Message{ID: d.MessageID, Role: model.RoleUser, Created: ts, Completed: ts, Run: r.run,
			Parts: []model.Part{{ID: d.MessageID + "-text", Type: model.PartText, Text: text}}})
	case "assistant.message":
		var d assistantData
		if bad(data(&d)) {
			return
		}
		m := model.Message{ID: d.MessageID, Role: model.RoleAssistant, Created: ts, Completed: ts, ModelID: d.Model, Run: r.run}
		if d.ReasoningText != "" {
			m.Parts = append(m.Parts, model.Part{ID: d.MessageID + "-reasoning", Type: model.PartReasoning, Text: d.ReasoningText})
		}
		if d.Content != "" {
			m.Parts = append(m.Parts, model.Part{ID: d.MessageID + "-text", Type: model.PartText, Text: d.Content})
		}
		for _, q := range d.ToolRequests {
			if _, dup := r.calls[q.ToolCallID]; dup {
				r.warnf(n, "skipped a second request of tool call %q", q.ToolCallID)
				continue
			}
			c := &model.ToolCall{Agent: Agent, CallID: q.ToolCallID, Tool: q.Name, Status: model.StatusRunning, Input: compact(q.Arguments), Title: q.IntentionSummary, Start: ts}
			r.calls[q.ToolCallID] = &callAt{sess: sess, msg: len(sess.Messages), part: len(m.Parts)}
			if sess == r.main {
				r.open[q.ToolCallID] = len(sess.Messages)
			}
			m.Parts = append(m.Parts, model.Part{ID: q.ToolCallID, Type: model.PartTool, Tool: c})
		}
		sess.Messages = append(sess.Messages, m)
	case "session.usage_record":
		var d usageData
		if data(&d) == nil && d.Usage.APIEndpoint != "" && d.Usage.APIEndpoint != "/chat/completions" && !r.otherWire {
			r.otherWire = true
			r.warnf(n, "a request went to %s: correx rebuilds only Copilot's OpenAI Chat requests, so its openai-chat wire is not what this session sent", d.Usage.APIEndpoint)
		}
	case "tool.execution_complete":
		var d completeData
		if bad(data(&d)) {
			return
		}
		at := r.calls[d.ToolCallID]
		if at == nil {
			r.warnf(n, "skipped the result of unknown tool call %q", d.ToolCallID)
			return
		}
		c := r.call(at)
		complete(c, d, ts)
		delete(r.open, d.ToolCallID)
		at.truncated = formatters.Visible(c, nil).Truncation != nil
		if r.elide && at.sess == r.main && d.Success && len(c.Output) > elideBytes {
			line := l
			at.at = &line
			c.OutputBytes, c.Output, c.Sent, c.Elided = len(c.Output), "", nil, true
		}
	}
}

// Stable is how many main-session messages come before the first whose
// calls have not all their result.
func (r *reader) Stable() int {
	n := len(r.main.Messages)
	for _, m := range r.open {
		n = min(n, m)
	}
	return n
}

// Session is the main session read so far.
func (r *reader) Session() (*model.Session, error) {
	if !r.started {
		return nil, sessions.NotSession(r.path, "no session.start event: not a Copilot CLI session log")
	}
	s := *r.main
	s.Messages = slices.Clone(r.main.Messages)
	s.Warnings = slices.Clone(r.main.Warnings)
	if s.Info.ID == "" {
		s.Info.ID = filepath.Base(filepath.Dir(r.path))
	}
	s.Info.Updated = r.last
	r.count(&s)
	return &s, nil
}

// count is sessions.CountDetected with the truncations found when each
// call completed (an elided call's output is not at hand).
func (r *reader) count(s *model.Session) {
	sessions.CountKnown(s, nil, func(c *model.ToolCall) (bool, bool) {
		at := r.calls[c.CallID]
		return at != nil && at.truncated, at != nil && c.Status != model.StatusRunning
	})
}

// kidSessions are the subagents' sessions read so far.
func (r *reader) kidSessions() []*model.Session {
	var out []*model.Session
	for _, k := range r.kidOrder {
		c := *k
		c.Messages = slices.Clone(k.Messages)
		c.Info.ParentID, c.Info.Version, c.Info.Directory = cmp.Or(r.main.Info.ID, filepath.Base(filepath.Dir(r.path))), r.main.Info.Version, r.main.Info.Directory
		sessions.CountDetected(&c)
		out = append(out, &c)
	}
	return out
}

// Output is main-session call partID whole, its completion read again.
func (r *reader) Output(partID string, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, error) {
	at := r.calls[partID]
	if at == nil || at.sess != r.main {
		return nil, fmt.Errorf("%w: tool call %q in %s", sessions.ErrNotFound, partID, r.path)
	}
	c := *at.sess.Messages[at.msg].Parts[at.part].Tool
	if at.at == nil {
		return &c, nil
	}
	line, err := read(*at.at)
	if err != nil {
		return nil, err
	}
	// the outline's call was completed from this line, its output then
	// left out: the output is all to read again, where the skim can
	// vouch for it (decoding the event again was most of a walk's time)
	if str, ok := contentString(line, []byte(partID)); ok {
		if text, ok := jsonskim.Text(str); ok {
			c.Output, c.Sent = text, &model.ToolResultValue{Type: model.ResultText, Text: text}
			c.Elided, c.OutputBytes = false, 0
			return &c, nil
		}
	}
	var ev struct {
		Data      completeData `json:"data"`
		Timestamp string       `json:"timestamp"`
	}
	if err := unmarshalCut(line, &ev, func() *string { return &ev.Data.Result.Content }); err != nil || ev.Data.ToolCallID != partID {
		return nil, fmt.Errorf("%s:%d: the file changed since it was read", r.path, at.at.N)
	}
	ts, _ := time.Parse(time.RFC3339Nano, ev.Timestamp)
	c.Elided, c.OutputBytes = false, 0
	complete(&c, ev.Data, ts)
	return &c, nil
}

// OutputString implements sessions.OutputStringer: an elided call's
// output as it lies in its completion's line (contentString), or, where
// the skim cannot vouch for it, the call read whole (Output).
func (r *reader) OutputString(partID string, read func(sessions.Line) ([]byte, error)) (*model.ToolCall, []byte, error) {
	at := r.calls[partID]
	if at == nil || at.sess != r.main || at.at == nil {
		c, err := r.Output(partID, read)
		return c, nil, err
	}
	line, err := read(*at.at)
	if err != nil {
		return nil, nil, err
	}
	if str, ok := contentString(line, []byte(partID)); ok {
		c := *at.sess.Messages[at.msg].Parts[at.part].Tool
		return &c, str, nil
	}
	c, err := r.Output(partID, read)
	return c, nil, err
}

// complete fills in a call from its tool.execution_complete event.
func complete(c *model.ToolCall, d completeData, ts time.Time) {
	c.End, c.Metadata = ts, compact(d.ToolTelemetry)
	if d.Success {
		c.Status = model.StatusCompleted
		if d.Result != nil {
			c.Output = d.Result.Content
		}
		c.Sent = &model.ToolResultValue{Type: model.ResultText, Text: c.Output}
		return
	}
	c.Status = model.StatusError
	if d.Error != nil {
		c.Error = d.Error.Message
	}
	c.Sent = &model.ToolResultValue{Type: model.ResultError, Text: c.Error}
	c.SentUnknown = FailedSentUnknown
}

// compact is raw without insignificant space (escapes kept as written),
// nil for nothing.
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// unmarshalCut is json.Unmarshal(line, v) for a tool.execution_complete
// event, whose data.result.content is most of its bytes: where the skim
// can vouch for that string's place (the line valid, each name on the
// way given once and exactly, the content a string), it is decoded by
// jsonskim.Text into content() and the rest of the line, the string cut
// to "", by encoding/json (decodePruned), which reads the string byte by
// byte.
func unmarshalCut(line []byte, v any, content func() *string) error {
	if str, text, ok := resultContent(line); ok {
		if decodePruned(line, str, v) == nil {
			*content() = text
			return nil
		}
		reflect.ValueOf(v).Elem().SetZero()
	}
	return unmarshalPruned(line, v)
}

// unmarshalPruned is json.Unmarshal(line, v) through decodePruned where
// the line is valid (jsonskim.Valid), else (or when it fails) by
// encoding/json whole.
func unmarshalPruned(line []byte, v any) error {
	if jsonskim.Valid(line) {
		if decodePruned(line, nil, v) == nil {
			return nil
		}
		reflect.ValueOf(v).Elem().SetZero()
	}
	return json.Unmarshal(line, v)
}

// decodePruned decodes valid JSON b into v (a pointer), encoding/json
// reading only the members v has fields for (jsonskim.Prune: an event's
// detailedContent, telemetry and ids it does not keep are most of the
// rest of its bytes), and the string at span cut, if any, as ""
// (jsonskim.PruneCut); an error when the skim or encoding/json says no,
// v then to be decoded again.
func decodePruned(b, cut []byte, v any) error {
	buf := prunedBufs.Get().(*[]byte)
	pruned, ok := jsonskim.PruneCut((*buf)[:0], b, reflect.TypeOf(v), cut)
	err := errNotPruned
	if ok {
		err = json.Unmarshal(pruned, v) // it keeps none of pruned
	}
	if cap(pruned) <= 64<<10 {
		*buf = pruned
		prunedBufs.Put(buf)
	}
	return err
}

// prunedBufs are decodePruned's buffers, none over 64 KiB kept: a scan
// decodes thousands of events one after another.
var prunedBufs = sync.Pool{New: func() any { return new([]byte) }}

var errNotPruned = errors.New("not pruned")

// resultContent is the data.result.content string of event line, as it
// lies and decoded, when the skim can vouch for it and it is large.
func resultContent(line []byte) (str []byte, text string, ok bool) {
	if len(line) < cutBytes {
		return nil, "", false
	}
	if str, ok = contentString(line, nil); !ok {
		return nil, "", false
	}
	text, ok = jsonskim.Text(str)
	return str, text, ok
}

// contentString is the data.result.content string of event line as it
// lies (quotes included), when the skim can vouch for it: the line valid,
// each name on the way given once and exactly, the content a string;
// with id, only in the completion of call id.
func contentString(line []byte, id []byte) ([]byte, bool) {
	if !jsonskim.Valid(line) {
		return nil, false
	}
	data := jsonskim.Member(line, "data")
	if id != nil {
		if got, ok := jsonskim.Text(jsonskim.Member(data, "toolCallId")); !ok || got != string(id) {
			return nil, false
		}
	}
	str := jsonskim.Member(jsonskim.Member(data, "result"), "content")
	if len(str) == 0 || str[0] != '"' {
		return nil, false
	}
	return str, true
}

// cutBytes is the least event unmarshalCut cuts; tests lower it.
var cutBytes = 4 << 10
