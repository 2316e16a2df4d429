// Package cline reads Cline CLI sessions (npm cline 3.0.65):
// $CLINE_DIR/data/sessions/<id>/<id>.messages.json, the conversation as
// Anthropic-style blocks rewritten whole after every message, beside
// <id>.json, the session's metadata (title, model, cwd, times). It
// registers the driver, the agent, its own OpenAI Chat wire (wire.go) and
// its truncation markers (markers.go).
//
// Cline stores each tool result uncut and cuts it again every time it
// builds a request (sent.go), so a call's model-visible result (Sent) is
// the cut text and its Output the stored one.
package cline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"correx/model"
	"correx/sessions"
)

// Agent is Cline's agent id (the testdata folder's name).
const Agent model.Agent = "cline"

// Version is the Cline CLI version the reader and wire were checked against.
const Version = "3.0.65"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "Cline", Version: Version})
	sessions.Register(sessions.Driver{Agent: Agent, Locations: locations, Open: open})
}

// messagesSuffix ends a session's conversation file.
const messagesSuffix = ".messages.json"

// locations are the sessions dirs of the environment's Cline, each once:
// $CLINE_SESSION_DATA_DIR, $CLINE_DATA_DIR/sessions, $CLINE_DIR/data/sessions
// (default ~/.cline).
func locations() []string {
	var out []string
	seen := map[string]bool{}
	add := func(dir string) {
		if dir != "" && !seen[dir] && len(sessionFiles(dir)) > 0 {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	add(os.Getenv("CLINE_SESSION_DATA_DIR"))
	if d := os.Getenv("CLINE_DATA_DIR"); d != "" {
		add(filepath.Join(d, "sessions"))
	}
	if root := sessions.AgentDir("CLINE_DIR", ".cline"); root != "" {
		add(filepath.Join(root, "data", "sessions"))
	}
	return out
}

// open claims a Cline data root (CLINE_DIR), its data/ dir, its sessions/
// dir, one session dir, or one <id>.messages.json.
func open(path string, dir bool) (sessions.Store, bool, error) {
	if !dir {
		if !strings.HasSuffix(filepath.Base(path), messagesSuffix) {
			return nil, false, nil
		}
		return &sessions.FileStore{
			Root:  path,
			Files: func() ([]string, []string) { return []string{path}, nil },
			Read:  readSession,
		}, true, nil
	}
	for _, d := range []string{filepath.Join(path, "data", "sessions"), filepath.Join(path, "sessions"), path} {
		if len(sessionFiles(d)) > 0 {
			return &sessions.FileStore{
				Root:  path,
				Files: func() ([]string, []string) { return sessionFiles(d), nil },
				Read:  readSession,
			}, true, nil
		}
	}
	if f := filepath.Join(path, filepath.Base(path)+messagesSuffix); sessions.IsFile(f) {
		return &sessions.FileStore{
			Root:  path,
			Files: func() ([]string, []string) { return []string{f}, nil },
			Read:  readSession,
		}, true, nil
	}
	return nil, false, nil
}

// sessionFiles are the <id>/<id>.messages.json files of a sessions dir.
func sessionFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		f := filepath.Join(dir, e.Name(), e.Name()+messagesSuffix)
		if _, err := os.Lstat(f); err == nil {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// stored is messages.json.
type stored struct {
	Version   int               `json:"version"`
	UpdatedAt string            `json:"updated_at"`
	SessionID string            `json:"sessionId"`
	Messages  []json.RawMessage `json:"messages"`
	Origin    struct {
		Version string `json:"version"`
	} `json:"origin"`
}

// meta is <id>.json.
type meta struct {
	SessionID string `json:"session_id"`
	StartedAt string `json:"started_at"`
	EndedAt   string `json:"ended_at"`
	Model     string `json:"model"`
	Provider  string `json:"provider"`
	Cwd       string `json:"cwd"`
	Prompt    string `json:"prompt"`
	Metadata  struct {
		Title  string `json:"title"`
		Origin struct {
			Version string `json:"version"`
		} `json:"sessionHistoryOrigin"`
	} `json:"metadata"`
}

// message is one stored message.
type message struct {
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	TS        int64           `json:"ts"`
	ModelInfo struct {
		ID       string `json:"id"`
		Provider string `json:"provider"`
	} `json:"modelInfo"`
}

// block is one content block.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks reads a message's content: a string is one text block.
func blocks(raw json.RawMessage) ([]block, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		return []block{{Type: "text", Text: s}}, nil
	}
	var bs []block
	err := json.Unmarshal(raw, &bs)
	return bs, err
}

// readSession reads one messages.json (and its <id>.json beside it).
func readSession(path string) (*model.Session, error) {
	b, err := sessions.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc stored
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, sessions.NotSession(path, "not Cline's messages.json: "+err.Error())
	}
	if doc.Messages == nil {
		return nil, sessions.NotSession(path, "no \"messages\" list")
	}
	id := strings.TrimSuffix(filepath.Base(path), messagesSuffix)
	sessDir := filepath.Dir(path)
	sess := &model.Session{Info: model.SessionInfo{
		ID: id, Agent: Agent, Source: path, DataDir: filepath.Dir(filepath.Dir(sessDir)),
		Version: doc.Origin.Version, Updated: parseTime(doc.UpdatedAt),
	}}
	if doc.SessionID != "" {
		sess.Info.ID = doc.SessionID
	}
	var md meta
	if mb, err := sessions.ReadFile(filepath.Join(sessDir, id+".json")); err == nil {
		if err := json.Unmarshal(mb, &md); err != nil {
			sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: not JSON (%v): title, model and times left out", filepath.Join(sessDir, id+".json"), err))
		}
	}
	sess.Info.Title, sess.Info.Directory, sess.Info.Created = md.Metadata.Title, md.Cwd, parseTime(md.StartedAt)
	if sess.Info.Version == "" {
		sess.Info.Version = md.Metadata.Origin.Version
	}
	if sess.Info.Updated.IsZero() {
		sess.Info.Updated = parseTime(md.EndedAt)
	}
	calls := map[string]*model.ToolCall{}
	for i, raw := range doc.Messages {
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: message %d skipped: %v", path, i+1, err))
			continue
		}
		bs, err := blocks(m.Content)
		if err != nil {
			sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: message %d (%s) skipped: %v", path, i+1, m.ID, err))
			continue
		}
		at := time.UnixMilli(m.TS)
		if m.TS == 0 {
			at = time.Time{}
		}
		if onlyResults(bs) && len(sess.Messages) > 0 {
			// results go with their calls; the record stays with the
			// message before it for the wire
			last := &sess.Messages[len(sess.Messages)-1]
			last.Stored = append(last.Stored, raw)
			for _, bl := range bs {
				setResult(sess, calls, bl, at, path, i+1)
			}
			continue
		}
		msg := model.Message{ID: m.ID, Role: model.RoleUser, Created: at, Stored: []json.RawMessage{raw}}
		if m.Role == "assistant" {
			msg.Role, msg.ModelID, msg.ProviderID = model.RoleAssistant, m.ModelInfo.ID, m.ModelInfo.Provider
			if msg.ModelID == "" {
				msg.ModelID, msg.ProviderID = md.Model, md.Provider
			}
		}
		var results []block
		for j, bl := range bs {
			pid := fmt.Sprintf("%s:%d", m.ID, j)
			switch bl.Type {
			case "text":
				text := bl.Text
				if msg.Role == model.RoleUser {
					text = normalizeUserInput(text)
				}
				msg.Parts = append(msg.Parts, model.Part{ID: pid, Type: model.PartText, Text: text})
			case "thinking":
				msg.Parts = append(msg.Parts, model.Part{ID: pid, Type: model.PartReasoning, Text: bl.Thinking})
			case "tool_use":
				c := &model.ToolCall{Agent: Agent, CallID: bl.ID, Tool: bl.Name, Status: model.StatusPending, Input: compactInput(bl.Input), Start: at}
				calls[bl.ID] = c
				msg.Parts = append(msg.Parts, model.Part{ID: pid, Type: model.PartTool, Tool: c})
			case "tool_result":
				results = append(results, bl)
			default:
				sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: message %d (%s): block type %q not shown", path, i+1, m.ID, bl.Type))
			}
		}
		sess.Messages = append(sess.Messages, msg)
		for _, bl := range results {
			setResult(sess, calls, bl, at, path, i+1)
		}
	}
	if sess.Info.Title == "" {
		sess.Info.Title = sessions.FirstLine(md.Prompt)
	}
	if sess.Info.Created.IsZero() && len(sess.Messages) > 0 {
		sess.Info.Created = sess.Messages[0].Created
	}
	finishInfo(sess)
	return sess, nil
}

// setResult gives a call its stored result: Output (and Error when an
// entry failed) the stored text, Sent the text after the send-time cut.
func setResult(sess *model.Session, calls map[string]*model.ToolCall, bl block, at time.Time, path string, n int) {
	c := calls[bl.ToolUseID]
	if c == nil {
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: message %d: a result for unknown call %s", path, n, bl.ToolUseID))
		return
	}
	v, err := parseJS(bl.Content)
	if err != nil {
		sess.Warnings = append(sess.Warnings, fmt.Sprintf("%s: message %d: the result of %s is not JSON: %v", path, n, bl.ToolUseID, err))
		return
	}
	c.Output, c.End, c.Status = resultText(v), at, model.StatusCompleted
	if bl.IsError || failed(v) {
		c.Status, c.Error = model.StatusError, c.Output
	}
	c.Sent = &model.ToolResultValue{Type: model.ResultText, Text: resultText(sentContent(v, maxToolResultChars))}
}

// failed says whether a result reports a failure: an entry (or the
// string's JSON) with "success": false.
func failed(v jsValue) bool {
	if v.kind == jsString {
		inner, err := parseJS([]byte(utf8Of(v.str)))
		return err == nil && inner.kind == jsObject && failed(jsValue{kind: jsArray, items: []jsValue{inner}})
	}
	for _, it := range v.items {
		if s, ok := member(it, "success"); ok && s.kind == jsBool && s.lit == "false" {
			return true
		}
	}
	return false
}

func onlyResults(bs []block) bool {
	for _, b := range bs {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(bs) > 0
}

// compactInput is a call's input as JSON.stringify writes it (the
// arguments Cline sends).
func compactInput(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	v, err := parseJS(raw)
	if err != nil {
		return raw
	}
	return json.RawMessage(stringify(v))
}

func finishInfo(sess *model.Session) {
	sessions.CountDetected(sess)
	if sess.Info.Title == "" {
		for _, m := range sess.Messages {
			for _, p := range m.Parts {
				if m.Role == model.RoleUser && p.Type == model.PartText && sess.Info.Title == "" {
					sess.Info.Title = sessions.FirstLine(p.Text)
				}
			}
		}
	}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// normalizeUserInput is @cline/shared's normalizeUserInput, which the
// message builder applies to every user text: the <user_input> and
// <user_command> wrappers are taken off (their opening tags dropped when
// unclosed), then the text is trimmed.
func normalizeUserInput(s string) string {
	s = jsTrim(s)
	if s == "" {
		return ""
	}
	for _, tag := range []*wrapper{userInput, userCommand} {
		if t := tag.whole.ReplaceAllString(s, "$1"); t != s {
			s = t
		} else {
			s = tag.open.ReplaceAllString(s, "")
		}
		s = jsTrim(s)
	}
	return s
}

type wrapper struct{ whole, open *regexp.Regexp }

var (
	userInput   = &wrapper{regexp.MustCompile(`<user_input\b[^>]*>([\s\S]*?)</user_input>`), regexp.MustCompile(`<user_input[^>]*>`)}
	userCommand = &wrapper{regexp.MustCompile(`<user_command\b[^>]*>([\s\S]*?)</user_command>`), regexp.MustCompile(`<user_command[^>]*>`)}
)

// jsTrim is String.prototype.trim: white space, line terminators and BOM.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' })
}
