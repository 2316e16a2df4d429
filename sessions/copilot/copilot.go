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
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

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
	var home string
	var files func() ([]string, []string)
	switch {
	case !dir && filepath.Base(path) == eventsFile && isCopilotLog(path):
		home = filepath.Dir(filepath.Dir(filepath.Dir(path)))
		files = func() ([]string, []string) { return []string{path}, nil }
	case dir && sessions.IsFile(filepath.Join(path, eventsFile)) && isCopilotLog(filepath.Join(path, eventsFile)):
		home = filepath.Dir(filepath.Dir(path))
		files = func() ([]string, []string) { return []string{filepath.Join(path, eventsFile)}, nil }
	case dir && filepath.Base(path) == "session-state" && hasSessions(path):
		home = filepath.Dir(path)
		files = func() ([]string, []string) { return sessionLogs(path) }
	case dir && sessions.IsDir(filepath.Join(path, "session-state")):
		home = path
		files = func() ([]string, []string) { return sessionLogs(filepath.Join(path, "session-state")) }
	default:
		return nil, false, nil
	}
	st := &store{home: home, kids: map[string]string{}}
	st.FileStore = &sessions.FileStore{Root: path, Files: files, Read: func(f string) (*model.Session, error) {
		main, kids, err := read(f, home)
		st.note(f, kids)
		return main, err
	}}
	return st, true, nil
}

// store is a FileStore of the main sessions that also lists and loads the
// subagents' sessions each events.jsonl holds.
type store struct {
	*sessions.FileStore
	home     string // the COPILOT_HOME the store is under
	mu       sync.Mutex
	kids     map[string]string // subagent session id → its events.jsonl
	kidInfos map[string]model.SessionInfo
}

// note records the subagent sessions read from file f.
func (s *store) note(f string, kids []*model.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kidInfos == nil {
		s.kidInfos = map[string]model.SessionInfo{}
	}
	for _, k := range kids {
		s.kids[k.Info.ID], s.kidInfos[k.Info.ID] = f, k.Info
	}
}

// List lists the main sessions and then their subagents' sessions.
func (s *store) List(ctx context.Context) ([]model.SessionInfo, error) {
	s.mu.Lock()
	s.kids, s.kidInfos = map[string]string{}, nil
	s.mu.Unlock()
	infos, err := s.FileStore.List(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	for _, in := range s.kidInfos {
		infos = append(infos, in)
	}
	s.mu.Unlock()
	sessions.SortInfos(infos)
	return infos, nil
}

// Load loads a main session, or a subagent's from its parent's log.
func (s *store) Load(ctx context.Context, id string) (*model.Session, error) {
	sess, err := s.FileStore.Load(ctx, id)
	if !errors.Is(err, sessions.ErrNotFound) {
		return sess, err
	}
	s.mu.Lock()
	f, ok := s.kids[id]
	s.mu.Unlock()
	if !ok {
		if _, lerr := s.List(ctx); lerr != nil {
			return nil, err
		}
		s.mu.Lock()
		f, ok = s.kids[id]
		s.mu.Unlock()
	}
	if !ok {
		return nil, err
	}
	_, kids, rerr := read(f, s.home)
	if rerr != nil {
		return nil, rerr
	}
	for _, k := range kids {
		if k.Info.ID == id {
			return k, nil
		}
	}
	return nil, err
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
	ToolCallID string `json:"toolCallId"`
	Success    bool   `json:"success"`
	Result     *struct {
		Content string `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	ToolTelemetry json.RawMessage `json:"toolTelemetry"`
}

// FailedSentUnknown is why a failed call's result as its own run sent it
// is not known.
const FailedSentUnknown = "Copilot stores only the short error.message of a failed call; in the call's own run it sent the model a longer sentence that is stored nowhere (after a resume it sends this message)"

// read reads one events.jsonl into its main session (what FileStore
// lists) and the sessions of the subagents it ran; home is the
// COPILOT_HOME it is under. Each process that wrote to the log is a run
// (Message.Run): session.start begins the first, each session.resume the
// next. Copilot writes a subagent's events (its prompt, its turns, its
// calls) into the same log, each marked with the subagent's agentId; they
// are its own conversation, sent in requests of their own, so they go to
// a child session (ID the agentId, ParentID the main session) that the
// task call names (ChildSessionID).
func read(path, home string) (*model.Session, []*model.Session, error) {
	main := &model.Session{Info: model.SessionInfo{Agent: Agent, Source: path, DataDir: home}}
	warnf := sessions.LineWarner(&main.Warnings, path)
	calls := map[string]*model.ToolCall{}
	kids := map[string]*model.Session{}
	var kidOrder []*model.Session
	run, started, otherWire := 0, false, false
	var last time.Time
	err := sessions.ReadJSONL(path, func(n int, line []byte, _ bool) {
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			warnf(n, "skipped a line that is not JSON (%v)", err)
			return
		}
		ts, _ := time.Parse(time.RFC3339Nano, ev.Timestamp)
		if !ts.IsZero() {
			last = ts
		}
		bad := func(err error) bool {
			if err != nil {
				warnf(n, "skipped a %s event whose data is not the expected object (%v)", ev.Type, err)
			}
			return err != nil
		}
		sess := main
		if ev.AgentID != "" {
			if sess = kids[ev.AgentID]; sess == nil {
				sess = &model.Session{Info: model.SessionInfo{Agent: Agent, Source: path, DataDir: home, ID: ev.AgentID, Created: ts}}
				kids[ev.AgentID] = sess
				kidOrder = append(kidOrder, sess)
			}
			sess.Info.Updated = ts
		}
		switch ev.Type {
		case "session.start":
			var d startData
			if bad(json.Unmarshal(ev.Data, &d)) {
				return
			}
			if !started {
				started = true
				main.Info.ID, main.Info.Version, main.Info.Directory = d.SessionID, d.CopilotVersion, d.Context.Cwd
				main.Info.Created, _ = time.Parse(time.RFC3339Nano, d.StartTime)
			}
			run++
		case "session.resume":
			run++
		case "subagent.started":
			var d struct {
				ToolCallID  string `json:"toolCallId"`
				DisplayName string `json:"agentDisplayName"`
				Description string `json:"agentDescription"`
			}
			if bad(json.Unmarshal(ev.Data, &d)) || ev.AgentID == "" {
				return
			}
			if c := calls[d.ToolCallID]; c != nil {
				c.ChildSessionID = ev.AgentID
			}
			sess.Info.Title = strings.TrimSpace(d.DisplayName + ": " + d.Description)
		case "user.message":
			var d userData
			if bad(json.Unmarshal(ev.Data, &d)) {
				return
			}
			text := d.TransformedContent // what was sent: <current_datetime>…</current_datetime>\n\n + the text
			if text == "" {
				text = d.Content
			}
			if sess.Info.Title == "" {
				sess.Info.Title = sessions.FirstLine(d.Content)
			}
			sess.Messages = append(sess.Messages, model.Message{ID: d.MessageID, Role: model.RoleUser, Created: ts, Completed: ts, Run: run,
				Parts: []model.Part{{ID: d.MessageID + "-text", Type: model.PartText, Text: text}}})
		case "assistant.message":
			var d assistantData
			if bad(json.Unmarshal(ev.Data, &d)) {
				return
			}
			m := model.Message{ID: d.MessageID, Role: model.RoleAssistant, Created: ts, Completed: ts, ModelID: d.Model, Run: run}
			if d.ReasoningText != "" {
				m.Parts = append(m.Parts, model.Part{ID: d.MessageID + "-reasoning", Type: model.PartReasoning, Text: d.ReasoningText})
			}
			if d.Content != "" {
				m.Parts = append(m.Parts, model.Part{ID: d.MessageID + "-text", Type: model.PartText, Text: d.Content})
			}
			for _, r := range d.ToolRequests {
				if _, dup := calls[r.ToolCallID]; dup {
					warnf(n, "skipped a second request of tool call %q", r.ToolCallID)
					continue
				}
				c := &model.ToolCall{CallID: r.ToolCallID, Tool: r.Name, Status: model.StatusRunning, Input: compact(r.Arguments), Title: r.IntentionSummary, Start: ts}
				calls[r.ToolCallID] = c
				m.Parts = append(m.Parts, model.Part{ID: r.ToolCallID, Type: model.PartTool, Tool: c})
			}
			sess.Messages = append(sess.Messages, m)
		case "session.usage_record":
			var d struct {
				Usage struct {
					APIEndpoint string `json:"apiEndpoint"`
				} `json:"usage"`
			}
			if json.Unmarshal(ev.Data, &d) == nil && d.Usage.APIEndpoint != "" && d.Usage.APIEndpoint != "/chat/completions" && !otherWire {
				otherWire = true
				warnf(n, "a request went to %s: correx rebuilds only Copilot's OpenAI Chat requests, so its openai-chat wire is not what this session sent", d.Usage.APIEndpoint)
			}
		case "tool.execution_complete":
			var d completeData
			if bad(json.Unmarshal(ev.Data, &d)) {
				return
			}
			c := calls[d.ToolCallID]
			if c == nil {
				warnf(n, "skipped the result of unknown tool call %q", d.ToolCallID)
				return
			}
			complete(c, d, ts)
		}
	}, warnf)
	if err != nil {
		return nil, nil, err
	}
	if !started {
		return nil, nil, sessions.NotSession(path, "no session.start event: not a Copilot CLI session log")
	}
	if main.Info.ID == "" {
		main.Info.ID = filepath.Base(filepath.Dir(path))
	}
	main.Info.Updated = last
	sessions.CountDetected(main)
	for _, k := range kidOrder {
		k.Info.ParentID, k.Info.Version, k.Info.Directory = main.Info.ID, main.Info.Version, main.Info.Directory
		sessions.CountDetected(k)
	}
	return main, kidOrder, nil
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
