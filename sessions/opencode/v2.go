package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"correx/model"
)

// This file reads sessions of opencode's v2 loop (`opencode serve`'s v2
// API, packages/core): they live in session_message, one row per user
// prompt and one per model call, ordered by seq; message and part stay
// empty. A row's data is the message without its id and type; the v2 API
// (GET /api/session/:id/message) returns the same object with "id" and
// "type" added, and decodeV2Message reads both.

// storedV2Message is a session_message data object (user or assistant).
type storedV2Message struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Time struct {
		Created   float64 `json:"created"`
		Completed float64 `json:"completed"`
	} `json:"time"`
	// user
	Text  string            `json:"text"`
	Files []json.RawMessage `json:"files"`
	// assistant
	Agent string `json:"agent"`
	Model struct {
		ID         string `json:"id"`
		ProviderID string `json:"providerID"`
	} `json:"model"`
	Content []json.RawMessage `json:"content"`
	Finish  string            `json:"finish"`
	Error   json.RawMessage   `json:"error"`
}

// storedV2Item is one item of an assistant message's content: reasoning,
// text or tool.
type storedV2Item struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Text             string          `json:"text"`
	Name             string          `json:"name"`
	ProviderMetadata json.RawMessage `json:"providerMetadata"`
	State            *storedV2State  `json:"state"`
	Time             struct {
		Created   float64 `json:"created"`
		Ran       float64 `json:"ran"`
		Completed float64 `json:"completed"`
	} `json:"time"`
}

// storedV2State is a tool item's state.
type storedV2State struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Content     []storedV2Out   `json:"content"`
	Structured  json.RawMessage `json:"structured"`
	OutputPaths []string        `json:"outputPaths"`
	Error       json.RawMessage `json:"error"`
}

// storedV2Out is a ToolContent item: {"type":"text","text"} or
// {"type":"file","uri","mime","name"}.
type storedV2Out struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URI  string `json:"uri"`
	Mime string `json:"mime"`
	Name string `json:"name"`
}

// loadV2 appends the session_message rows of session id to sess and marks
// it as a v2 session; it does nothing when the session has none.
func (s *sqliteStore) loadV2(ctx context.Context, tx *sql.Tx, sess *model.Session, d *decoder) error {
	rows, err := tx.QueryContext(ctx,
		`SELECT id, type, time_created, data FROM session_message WHERE session_id = ? ORDER BY seq, id`, sess.Info.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      string
			typ     sql.NullString
			created sql.NullInt64
			data    sql.RawBytes
		)
		if err := rows.Scan(&id, &typ, &created, &data); err != nil {
			return err
		}
		if m, ok := d.v2Message(id, typ.String, data, created.Int64, "table session_message, row "+id); ok {
			sess.Messages = append(sess.Messages, m)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(sess.Messages) > 0 {
		sess.Info.Pipeline = model.PipelineV2
	}
	return nil
}

// v2Message maps one v2 message object. id and typ are the row's (or ""
// to take the object's own, as the v2 API returns them); createdMS is the
// row's time_created, used when the object has no time.created.
func (d *decoder) v2Message(id, typ string, data []byte, createdMS int64, where string) (model.Message, bool) {
	var sm storedV2Message
	if !d.decode(data, &sm, where) {
		return model.Message{}, false
	}
	if id == "" {
		id = sm.ID
	}
	if typ == "" {
		typ = sm.Type
	}
	m := model.Message{
		ID:        id,
		Created:   msTime(sm.Time.Created),
		Completed: msTime(sm.Time.Completed),
	}
	if m.Created.IsZero() && createdMS != 0 {
		m.Created = time.UnixMilli(createdMS)
	}
	switch typ {
	case "user":
		m.Role = model.RoleUser
		m.Parts = append(m.Parts, model.Part{ID: id + "/text", Type: model.PartText, Text: sm.Text})
		if len(sm.Files) > 0 {
			d.warnf("%s: %d attached file(s) of a v2 prompt not shown", where, len(sm.Files))
		}
	case "assistant":
		m.Role = model.RoleAssistant
		m.ProviderID, m.ModelID = sm.Model.ProviderID, sm.Model.ID
		m.Agent, m.Finish, m.Error = sm.Agent, sm.Finish, errorName(sm.Error)
		for i, raw := range sm.Content {
			if p, ok := d.v2Item(raw, fmt.Sprintf("%s, content[%d]", where, i)); ok {
				m.Parts = append(m.Parts, p)
			}
		}
	default:
		// agent-switched, model-switched, compaction, ...: not sent as such;
		// kept out rather than guessed at.
		d.warnf("%s: v2 message %s of type %q skipped", where, id, typ)
		return model.Message{}, false
	}
	return m, true
}

// v2Item maps one content item of an assistant message.
func (d *decoder) v2Item(raw json.RawMessage, where string) (model.Part, bool) {
	var it storedV2Item
	if !d.decode(raw, &it, where) {
		return model.Part{}, false
	}
	p := model.Part{ID: it.ID, Metadata: rawJSON(it.ProviderMetadata)}
	switch it.Type {
	case "text":
		p.Type, p.Text = model.PartText, it.Text
	case "reasoning":
		p.Type, p.Text = model.PartReasoning, it.Text
	case "tool":
		p.Type = model.PartTool
		p.Tool = d.v2Tool(&it, where)
	default:
		d.warnf("%s: unknown v2 content item type %q", where, it.Type)
		return model.Part{}, false
	}
	return p, true
}

func (d *decoder) v2Tool(it *storedV2Item, where string) *model.ToolCall {
	tc := &model.ToolCall{
		Agent:   model.AgentOpencode,
		CallID:  it.ID,
		Tool:    it.Name,
		Start:   msTime(it.Time.Created),
		End:     msTime(it.Time.Completed),
		Content: []model.ToolContent{},
	}
	st := it.State
	if st == nil {
		d.warnf("%s: tool item %s without state", where, it.ID)
		return tc
	}
	tc.Status = model.ToolStatus(st.Status)
	tc.Input = rawJSON(st.Input)
	tc.Structured = rawJSON(st.Structured)
	tc.OutputPaths = st.OutputPaths
	for _, c := range st.Content {
		tc.Content = append(tc.Content, model.ToolContent{Type: model.ContentType(c.Type), Text: c.Text, URI: c.URI, Mime: c.Mime, Name: c.Name})
	}
	if e := rawJSON(st.Error); e != nil {
		tc.ErrorValue = e
		var msg struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e, &msg) == nil {
			tc.Error = msg.Message
		} else if err := json.Unmarshal(e, &tc.Error); err != nil {
			tc.Error = string(e)
		}
	}
	if st.Status == "" {
		d.warnf("%s: tool item %s without status", where, it.ID)
	}
	return tc
}

// v2Counts returns, per session, the tool calls, truncated calls (as
// formatters.AgentFlagged: spilled, or a completed tool's own
// structured.truncated) and errors of its v2 messages, computed in SQL
// like the v1 list. Rows
// with malformed JSON count nothing.
func (s *sqliteStore) v2Counts(ctx context.Context) (map[string][3]int, error) {
	rows, err := s.c().db.QueryContext(ctx, `
SELECT m.session_id, count(*),
       sum(coalesce(json_array_length(c.value, '$.state.outputPaths'), 0) > 0
           OR (json_extract(c.value, '$.state.status') = 'completed' AND json_extract(c.value, '$.state.structured.truncated') IS 1)),
       sum(json_extract(c.value, '$.state.status') = 'error')
FROM session_message m,
     json_each(CASE WHEN json_valid(m.data) THEN m.data ELSE '{}' END, '$.content') c
WHERE json_extract(c.value, '$.type') = 'tool'
GROUP BY m.session_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][3]int{}
	for rows.Next() {
		var id string
		var n [3]sql.NullInt64
		if err := rows.Scan(&id, &n[0], &n[1], &n[2]); err != nil {
			return nil, err
		}
		out[id] = [3]int{int(n[0].Int64), int(n[1].Int64), int(n[2].Int64)}
	}
	return out, rows.Err()
}

// DecodeV2Messages reads message objects of the v2 API
// (GET /api/session/:id/message: each is the row's data plus "id" and
// "type"), given as one page ({"data":[...],"cursor":…}), a JSON array of
// pages, or a JSON array of messages, in the order given (the API pages
// newest first). What cannot be read is returned as warnings. Tests
// compare it with the rows Load reads.
func DecodeV2Messages(b []byte) ([]model.Message, []string, error) {
	type page struct {
		Data []json.RawMessage `json:"data"`
	}
	var list []json.RawMessage
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var p page
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, nil, err
		}
		list = p.Data
	} else {
		var items []json.RawMessage
		if err := json.Unmarshal(b, &items); err != nil {
			return nil, nil, err
		}
		for _, it := range items {
			var p struct {
				Data *[]json.RawMessage `json:"data"`
			}
			if json.Unmarshal(it, &p) == nil && p.Data != nil {
				list = append(list, *p.Data...)
				continue
			}
			list = append(list, it)
		}
	}
	var d decoder
	var msgs []model.Message
	for i, raw := range list {
		if m, ok := d.v2Message("", "", raw, 0, fmt.Sprintf("message %d", i)); ok {
			msgs = append(msgs, m)
		}
	}
	return msgs, d.warnings, nil
}
