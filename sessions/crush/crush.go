// Package crush reads Crush sessions (github.com/charmbracelet/crush,
// checked against v0.90.0): the SQLite database <project>/.crush/crush.db,
// whose `messages` rows hold their content as a JSON list of
// {"type","data"} parts. It registers the driver, the agent, its own
// OpenAI Chat wire (wire.go) and its truncation marker (markers.go).
//
// A Crush message row is a user prompt, one assistant step or one tool
// result. correx's model has no tool messages: each result is put on its
// call, and every row stays in Message.Stored (a user prompt's row, or an
// assistant step's row followed by the rows of its results) for the wire.
package crush

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"correx/model"
	"correx/sessions"
)

// Agent is Crush's id: testdata/crush/ holds its fixtures.
const Agent model.Agent = "crush"

// Version is the Crush release the reader and the wire were checked
// against (built from its source tag: the npm package downloads its
// binary from GitHub releases).
const Version = "0.90.0"

func init() {
	model.RegisterAgent(model.AgentSpec{Agent: Agent, Name: "Crush", Version: Version})
	sessions.Register(sessions.Driver{Agent: Agent, Locations: locations, Open: open})
}

const (
	dataDirName = ".crush" // options.data_directory's default
	dbName      = "crush.db"
)

// locations are the crush.db of the current directory's project and of
// every project Crush lists in projects.json ($CRUSH_GLOBAL_DATA, else
// $XDG_DATA_HOME/crush, else ~/.local/share/crush).
func locations() []string {
	var out []string
	if wd, err := os.Getwd(); err == nil {
		if db := filepath.Join(wd, dataDirName, dbName); sessions.IsFile(db) {
			out = append(out, db)
		}
	}
	list := filepath.Join(globalData(), "projects.json")
	if b, err := sessions.ReadHead(list, 4<<20); err == nil {
		var pl struct {
			Projects []struct {
				Path    string `json:"path"`
				DataDir string `json:"data_dir"`
			} `json:"projects"`
		}
		if json.Unmarshal(b, &pl) == nil {
			for _, p := range pl.Projects {
				dir := p.DataDir
				if dir == "" && p.Path != "" {
					dir = filepath.Join(p.Path, dataDirName)
				}
				if db := filepath.Join(dir, dbName); dir != "" && sessions.IsFile(db) {
					out = append(out, db)
				}
			}
		}
	}
	return out
}

func globalData() string {
	if d := os.Getenv("CRUSH_GLOBAL_DATA"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "crush")
	}
	return sessions.AgentDir("", filepath.Join(".local", "share", "crush"))
}

// open claims a crush.db file (by its schema, whatever its name), a Crush
// data dir holding one, or a project dir whose .crush holds one.
func open(path string, dir bool) (sessions.Store, bool, error) {
	db := path
	if dir {
		switch {
		case sessions.IsFile(filepath.Join(path, dbName)):
			db = filepath.Join(path, dbName)
		case sessions.IsFile(filepath.Join(path, dataDirName, dbName)):
			db = filepath.Join(path, dataDirName, dbName)
		default:
			return nil, false, nil
		}
	}
	head, err := sessions.ReadHead(db, 16)
	if err != nil || string(head) != "SQLite format 3\x00" {
		return nil, false, nil
	}
	conn, tables, _, err := sessions.OpenSQLite(db, "Crush")
	if err != nil {
		if filepath.Base(db) == dbName {
			return nil, true, fmt.Errorf("%s: %w", db, err)
		}
		return nil, false, nil
	}
	defer conn.Close()
	// Crush's tables are plural (opencode's and Kilo's are session,
	// message, part); its messages keep their content in `parts`
	if !tables["sessions"] || !tables["messages"] || tables["part"] {
		return nil, false, nil
	}
	if _, err := conn.Exec(`SELECT id, session_id, role, parts, model, provider, created_at, updated_at, finished_at FROM messages LIMIT 0`); err != nil {
		return nil, false, nil
	}
	return &store{path: db}, true, nil
}

// store reads one crush.db. Every List and Load opens the database for
// one read (Crush may be writing it; a WAL database without its -wal/-shm
// files is opened immutable, as sessions.OpenSQLite says).
type store struct {
	path string

	mu       sync.Mutex
	warnings []string
}

func (s *store) Path() string { return s.path }
func (s *store) Close() error { return nil }

// Fingerprint lets a TUI left open skip the List while the database and
// its -wal are unchanged.
func (s *store) Fingerprint() (string, bool) {
	now := time.Now()
	db, ok := sessions.StatPrint(s.path, now, false)
	if !ok {
		return "", false
	}
	wal, ok := sessions.StatPrint(s.path+"-wal", now, true)
	return fmt.Sprintf("crush %q %s wal %s", s.path, db, wal), ok
}

func (s *store) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

func (s *store) conn() (*sql.DB, []string, error) {
	db, _, notes, err := sessions.OpenSQLite(s.path, "Crush")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.path, err)
	}
	s.mu.Lock()
	s.warnings = notes
	s.mu.Unlock()
	return db, notes, nil
}

// project is the directory Crush ran in: the parent of its data dir.
func (s *store) project() string {
	dir := filepath.Dir(s.path)
	if filepath.Base(dir) == dataDirName {
		return filepath.Dir(dir)
	}
	return ""
}

type sessionRow struct {
	id, parent, title string
	created, updated  int64
	messages          int
}

func (s *store) List(ctx context.Context) ([]model.SessionInfo, error) {
	db, _, err := s.conn()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := s.sessionRows(ctx, db, "")
	if err != nil {
		return nil, err
	}
	var infos []model.SessionInfo
	for _, r := range rows {
		sess, err := s.load(ctx, db, r)
		if err != nil {
			return nil, err
		}
		infos = append(infos, sess.Info)
	}
	sessions.SortInfos(infos)
	return infos, nil
}

func (s *store) sessionRows(ctx context.Context, db *sql.DB, id string) ([]sessionRow, error) {
	q := `SELECT id, COALESCE(parent_session_id, ''), title, created_at, updated_at, message_count FROM sessions`
	var args []any
	if id != "" {
		q += ` WHERE id = ?`
		args = append(args, id)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: sessions: %w", s.path, err)
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var r sessionRow
		if err := rows.Scan(&r.id, &r.parent, &r.title, &r.created, &r.updated, &r.messages); err != nil {
			return nil, fmt.Errorf("%s: sessions: %w", s.path, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *store) Load(ctx context.Context, id string) (*model.Session, error) {
	db, notes, err := s.conn()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := s.sessionRows(ctx, db, id)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %q in %s", sessions.ErrNotFound, id, s.path)
	}
	sess, err := s.load(ctx, db, rows[0])
	if err != nil {
		return nil, err
	}
	sess.Warnings = append(notes, sess.Warnings...)
	return sess, nil
}

// msgRow is one messages row.
type msgRow struct {
	id, role, parts, model, provider string
	created, updated, finished       int64
}

func (s *store) load(ctx context.Context, db *sql.DB, r sessionRow) (*model.Session, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, role, parts, COALESCE(model, ''), COALESCE(provider, ''), created_at, updated_at, COALESCE(finished_at, 0)
		FROM messages WHERE session_id = ? ORDER BY created_at, rowid`, r.id)
	if err != nil {
		return nil, fmt.Errorf("%s: messages: %w", s.path, err)
	}
	var msgs []msgRow
	for rows.Next() {
		var m msgRow
		if err := rows.Scan(&m.id, &m.role, &m.parts, &m.model, &m.provider, &m.created, &m.updated, &m.finished); err != nil {
			rows.Close()
			return nil, fmt.Errorf("%s: messages: %w", s.path, err)
		}
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: messages: %w", s.path, err)
	}
	children := map[string]bool{}
	crows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE parent_session_id = ?`, r.id)
	if err != nil {
		return nil, fmt.Errorf("%s: sessions: %w", s.path, err)
	}
	for crows.Next() {
		var id string
		if crows.Scan(&id) == nil {
			children[id] = true
		}
	}
	crows.Close()
	sess := &model.Session{Info: model.SessionInfo{
		ID: r.id, Agent: Agent, Title: r.title, Directory: s.project(), ParentID: r.parent,
		Created: msTime(r.created), Updated: msTime(r.updated), Source: s.path, DataDir: filepath.Dir(s.path),
	}}
	decode(sess, msgs, children, s.path)
	sessions.CountDetected(sess)
	if r.parent == "" {
		// the main agent's requests start with it (preparePrompt); a
		// sub-agent's do not
		reminder := model.Message{ID: r.id + "/todo-reminder", Role: model.RoleUser, Created: sess.Info.Created,
			Parts: []model.Part{{ID: r.id + "/todo-reminder/0", Type: model.PartText, Text: TodoReminder, Synthetic: true}}}
		sess.Messages = append([]model.Message{reminder}, sess.Messages...)
	}
	return sess, nil
}

// TodoReminder is the user message Crush puts first in every request of
// its main agent, stored nowhere (v0.90.0 writes it the same whatever the
// todo list holds).
const TodoReminder = "<system_reminder>This is a reminder that your todo list is currently empty. DO NOT mention this to the user explicitly because they are already aware.\nIf you are working on tasks that would benefit from a todo list please use the \"todos\" tool to create one.\nIf not, please feel free to ignore. Again do not mention this message to the user.</system_reminder>"

// msTime reads a Crush timestamp: milliseconds, but seconds where its
// update triggers wrote strftime('%s','now').
func msTime(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	if v < 100_000_000_000 {
		return time.Unix(v, 0).UTC()
	}
	return time.UnixMilli(v).UTC()
}

// part is one element of a row's parts.
type part struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// The part data Crush writes (internal/message/content.go).
type (
	textData      struct{ Text string }
	reasoningData struct {
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	binaryData struct {
		Path     string
		MIMEType string
		Data     []byte
	}
	imageURLData struct {
		URL string `json:"url"`
	}
	toolCallData struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Input string `json:"input"`
	}
	toolResultData struct {
		ToolCallID string `json:"tool_call_id"`
		Name       string `json:"name"`
		Content    string `json:"content"`
		Data       string `json:"data"`
		MIMEType   string `json:"mime_type"`
		Metadata   string `json:"metadata"`
		IsError    bool   `json:"is_error"`
	}
	finishData struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	shellData struct {
		Command  string `json:"command"`
		Output   string `json:"output"`
		ExitCode int    `json:"exit_code"`
	}
)

// Stored is one row as Message.Stored keeps it: its role and parts.
type Stored struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

// partData decodes a part's data as T; bad, if not nil, hears of a
// failure.
func partData[T any](p part, bad func(part, error)) (T, bool) {
	var d T
	if err := json.Unmarshal(p.Data, &d); err != nil {
		if bad != nil {
			bad(p, err)
		}
		return d, false
	}
	return d, true
}

// rowParts parses a row's parts; a damaged one is named in a warning.
func rowParts(m msgRow, path string, warn func(string)) []part {
	var ps []part
	if err := json.Unmarshal([]byte(m.parts), &ps); err != nil {
		warn(fmt.Sprintf("%s: message %s: parts are not a JSON list of parts (%v); the message is left out", path, m.id, err))
		return nil
	}
	return ps
}

func decode(sess *model.Session, msgs []msgRow, children map[string]bool, path string) {
	warn := func(w string) { sess.Warnings = append(sess.Warnings, w) }
	calls := map[string]*model.ToolCall{}
	step := -1 // the assistant step the next tool rows answer
	for _, m := range msgs {
		ps := rowParts(m, path, warn)
		if ps == nil {
			continue
		}
		raw, _ := json.Marshal(Stored{Role: m.role, Parts: ps})
		bad := func(p part, err error) {
			warn(fmt.Sprintf("%s: message %s: %s part: %v", path, m.id, p.Type, err))
		}
		switch m.role {
		case "user", "assistant":
			msg := model.Message{ID: m.id, Role: model.RoleUser, Created: msTime(m.created), Stored: []json.RawMessage{raw}}
			if m.role == "assistant" {
				msg.Role, msg.Completed, msg.ProviderID, msg.ModelID = model.RoleAssistant, msTime(m.finished), m.provider, m.model
			}
			for i, p := range ps {
				id := fmt.Sprintf("%s/%d", m.id, i)
				switch p.Type {
				case "text":
					if d, ok := partData[textData](p, bad); ok {
						msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartText, Text: d.Text})
					}
				case "reasoning":
					if d, ok := partData[reasoningData](p, bad); ok {
						msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartReasoning, Text: d.Thinking, Metadata: p.Data})
					}
				case "binary":
					if d, ok := partData[binaryData](p, bad); ok {
						msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartFile, File: &model.File{Mime: d.MIMEType, Filename: d.Path, URL: dataURL(d.MIMEType, d.Data)}})
					}
				case "image_url":
					if d, ok := partData[imageURLData](p, bad); ok {
						msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartFile, File: &model.File{URL: d.URL}})
					}
				case "shell_command":
					if d, ok := partData[shellData](p, bad); ok {
						msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartText, Text: shellText(d)})
					}
				case "tool_call":
					d, ok := partData[toolCallData](p, bad)
					if !ok {
						continue
					}
					call := &model.ToolCall{Agent: Agent, CallID: d.ID, Tool: d.Name, Status: model.StatusRunning, Input: inputJSON(d.Input), Start: msg.Created}
					if child := m.id + "$$" + d.ID; children[child] {
						call.ChildSessionID = child
					}
					calls[d.ID] = call
					msg.Parts = append(msg.Parts, model.Part{ID: id, Type: model.PartTool, Tool: call})
				case "finish":
					if d, ok := partData[finishData](p, bad); ok {
						msg.Finish = d.Reason
						if d.Reason == "error" {
							msg.Error = d.Message
						}
					}
				}
			}
			sess.Messages = append(sess.Messages, msg)
			step = -1
			if msg.Role == model.RoleAssistant {
				step = len(sess.Messages) - 1
			}
		case "tool":
			if step >= 0 {
				sess.Messages[step].Stored = append(sess.Messages[step].Stored, raw)
			}
			for _, p := range ps {
				if p.Type != "tool_result" {
					continue
				}
				d, ok := partData[toolResultData](p, bad)
				if !ok {
					continue
				}
				call := calls[d.ToolCallID]
				if call == nil {
					warn(fmt.Sprintf("%s: message %s: result of an unknown call %s (Crush drops it from its requests)", path, m.id, d.ToolCallID))
					continue
				}
				fillResult(call, d, msTime(m.created))
			}
		default:
			warn(fmt.Sprintf("%s: message %s: unknown role %q; left out", path, m.id, m.role))
		}
	}
	// Crush sends a placeholder error for a call without a result
	for _, c := range calls {
		if c.Status == model.StatusRunning {
			c.Status, c.Error = model.StatusError, interruptedResult
			c.Sent = &model.ToolResultValue{Type: model.ResultError, Text: interruptedResult}
		}
	}
}

// interruptedResult is what Crush sends for a call that has no result
// (syntheticToolResultsForOrphanedCalls).
const interruptedResult = "tool call was interrupted and did not produce a result, you may retry this call if the result is still needed"

// mediaPlaceholder is what Crush sends in place of a result's image on a
// provider without media in tool results (workaroundProviderMediaLimitations):
// the image follows in a user message of its own (wire.go).
const mediaPlaceholder = "[Image/media content loaded - see attached file]"

// fillResult puts a stored tool_result on its call: the content as sent
// (is_error is Crush's flag, not sent on OpenAI Chat), and for media the
// placeholder with the image.
func fillResult(call *model.ToolCall, d toolResultData, at time.Time) {
	call.End = at
	call.Status = model.StatusCompleted
	call.Output = d.Content
	sent := model.ToolResultValue{Type: model.ResultText, Text: d.Content}
	if d.IsError {
		call.Status, call.Output, call.Error = model.StatusError, "", d.Content
		sent.Type = model.ResultError
	}
	if d.Data != "" && !d.IsError {
		call.Attachments = []model.File{{Mime: d.MIMEType, URL: "data:" + d.MIMEType + ";base64," + d.Data}}
		sent = model.ToolResultValue{Type: model.ResultContent, Content: []model.ToolContent{
			{Type: model.ContentText, Text: mediaPlaceholder},
			{Type: model.ContentFile, URI: call.Attachments[0].URL, Mime: d.MIMEType},
		}}
	}
	call.Sent = &sent
	if json.Valid([]byte(d.Metadata)) {
		call.Metadata = json.RawMessage(d.Metadata)
	}
}

// inputJSON is a call's argument string as the model sent it, or, when it
// is not JSON, that string as a JSON string.
func inputJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func dataURL(mime string, data []byte) string {
	b, _ := json.Marshal(data) // base64 in quotes
	return "data:" + mime + ";base64," + strings.Trim(string(b), `"`)
}

// shellText is a bang-mode shell command as Crush puts it into the prompt.
func shellText(d shellData) string {
	return fmt.Sprintf("$ %s\n%s\n(exit code %d)", d.Command, d.Output, d.ExitCode)
}
