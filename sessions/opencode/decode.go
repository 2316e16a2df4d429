package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"correx/model"
)

// This file is the one mapping from opencode's message and part JSON to the
// model types. The three sources store the same objects: the db's `data`
// column is the object without its ids, an export and a legacy file carry
// the ids as well, and a legacy file is pretty-printed. Every source goes
// through decoder.message and decoder.part.

// decoder maps stored JSON objects and collects warnings on the way.
type decoder struct {
	warnings []string
	// names holds one copy of each short name decoded (roles, types,
	// statuses, tools, models), which recur in every message of an outline
	names map[string]string
}

// name is s, or the copy of it decoded before.
func (d *decoder) name(s string) string {
	if len(s) > 64 {
		return s
	}
	if n, ok := d.names[s]; ok {
		return n
	}
	if d.names == nil {
		d.names = map[string]string{}
	}
	if len(d.names) < 256 {
		d.names[s] = s
	}
	return s
}

func (d *decoder) warnf(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// msTime turns opencode's Unix milliseconds into a time; 0 stays the zero time.
func msTime(ms float64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms))
}

// unmarshal decodes data into v. A syntax error (or anything else that makes
// the object unusable) is returned as fatal; a field of an unexpected type is
// reported through the returned warning while the other fields stay decoded
// (encoding/json goes on after an UnmarshalTypeError).
func unmarshal(data []byte, v any) (warning string, fatal error) {
	err := json.Unmarshal(data, v)
	if err == nil {
		return "", nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return err.Error(), nil
	}
	return "", describeJSONError(data, err)
}

// describeJSONError adds the line and column to a syntax error.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("%v (line %d, column %d)", err, line, col)
	}
	return err
}

// lineCol converts the offset of a json.SyntaxError (the number of bytes
// read when the error was found, so the offending byte is the one before)
// into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	pos := int(min(max(offset, 1), int64(len(data)))) - 1
	if pos < 0 {
		return 1, 1
	}
	before := data[:pos]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = pos - bytes.LastIndexByte(before, '\n')
	return line, col
}

// rawJSON returns a compact form of a stored JSON value, decoded into a
// json.RawMessage (which owns its bytes) (key order and string
// contents kept byte for byte; only insignificant whitespace, as in a legacy
// pretty-printed file, is dropped), or nil for an absent or null value.
func rawJSON(v json.RawMessage) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if compact(v) {
		// v is a decoded RawMessage, a copy already (json.RawMessage's
		// UnmarshalJSON copies): a big metadata is not copied twice more.
		return v
	}
	var buf bytes.Buffer
	buf.Grow(len(v))
	if err := json.Compact(&buf, v); err != nil {
		// Cannot happen for a value the decoder accepted; keep it as is.
		return append(json.RawMessage(nil), v...)
	}
	return json.RawMessage(buf.Bytes())
}

// compact tells whether v, a valid JSON value, has no whitespace outside
// its strings (json.Compact would give it back unchanged).
func compact(v []byte) bool {
	in := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

type msgTime struct {
	Created   float64 `json:"created"`
	Completed float64 `json:"completed"`
}

type storedModelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

// storedMessage is opencode's MessageV2.Info (user or assistant).
type storedMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Time       msgTime         `json:"time"`
	ProviderID string          `json:"providerID"`
	ModelID    string          `json:"modelID"`
	Model      *storedModelRef `json:"model"`
	Agent      string          `json:"agent"`
	Mode       string          `json:"mode"`
	Finish     string          `json:"finish"`
	Error      json.RawMessage `json:"error"`
	Summary    json.RawMessage `json:"summary"`
	// EditorContext: Kilo Code's user messages (model.Message)
	EditorContext json.RawMessage `json:"editorContext"`
}

// decode unmarshals a stored object into v; bad JSON is warned about and
// gives false, a field of the wrong type only a warning.
func (d *decoder) decode(data []byte, v any, where string) bool {
	warn, err := unmarshal(data, v)
	if err != nil {
		d.warnf("%s: bad JSON, skipped: %v", where, err)
		return false
	}
	if warn != "" {
		d.warnf("%s: %s", where, warn)
	}
	return true
}

// message maps one stored message object. id is the row id (db) or "" to
// take the object's own id (export, legacy). createdMS is the row's
// time_created, used when the object has no time.created. where names the
// row or file for warnings. ok is false when the object cannot be used.
func (d *decoder) message(id string, data []byte, createdMS int64, where string) (model.Message, bool) {
	var sm storedMessage
	if !d.decode(data, &sm, where) {
		return model.Message{}, false
	}
	if id == "" {
		id = sm.ID
	}
	m := model.Message{
		ID:         id,
		Role:       model.Role(d.name(sm.Role)),
		Created:    msTime(sm.Time.Created),
		Completed:  msTime(sm.Time.Completed),
		ProviderID: d.name(sm.ProviderID),
		ModelID:    d.name(sm.ModelID),
		Agent:      d.name(sm.Agent),
		Finish:     d.name(sm.Finish),
		Error:      errorName(sm.Error),
		// A user message's summary is an object ({title, diffs}); only an
		// assistant compaction summary is the literal true.
		Summary:       string(bytes.TrimSpace(sm.Summary)) == "true",
		EditorContext: rawJSON(sm.EditorContext),
	}
	if m.Created.IsZero() && createdMS != 0 {
		m.Created = time.UnixMilli(createdMS)
	}
	if sm.Model != nil {
		if m.ProviderID == "" {
			m.ProviderID = d.name(sm.Model.ProviderID)
		}
		if m.ModelID == "" {
			m.ModelID = d.name(sm.Model.ModelID)
		}
	}
	if m.Agent == "" {
		m.Agent = d.name(sm.Mode)
	}
	if m.ID == "" {
		d.warnf("%s: message without id", where)
	}
	if m.Role != model.RoleUser && m.Role != model.RoleAssistant {
		d.warnf("%s: message %s has unknown role %q", where, m.ID, sm.Role)
	}
	return m, true
}

// errorName returns the name of a stored error ({"name":"APIError","data":…});
// a bare string is taken as it is.
func errorName(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var named struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &named) == nil && named.Name != "" {
		return named.Name
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return "error"
}

type storedFile struct {
	Mime     string `json:"mime"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
}

type toolTime struct {
	Start     float64 `json:"start"`
	End       float64 `json:"end"`
	Compacted float64 `json:"compacted"`
}

type storedToolState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Output      string          `json:"output"`
	Error       string          `json:"error"`
	Title       string          `json:"title"`
	Metadata    json.RawMessage `json:"metadata"`
	Attachments []storedFile    `json:"attachments"`
	Time        toolTime        `json:"time"`
}

// storedPart is opencode's MessageV2.Part, the fields correx maps.
type storedPart struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Synthetic bool            `json:"synthetic"`
	Ignored   bool            `json:"ignored"`
	Metadata  json.RawMessage `json:"metadata"`
	// tool
	CallID string           `json:"callID"`
	Tool   string           `json:"tool"`
	State  *storedToolState `json:"state"`
	// file
	storedFile
}

// partTypes are the part types opencode defines. The ones without a model
// constant (snapshot, retry) are kept with their type and no fields.
var partTypes = map[string]bool{
	string(model.PartText): true, string(model.PartReasoning): true,
	string(model.PartTool): true, string(model.PartFile): true,
	string(model.PartStepStart): true, string(model.PartStepFinish): true,
	string(model.PartPatch): true, string(model.PartCompaction): true,
	string(model.PartSubtask): true, string(model.PartAgent): true,
	"snapshot": true, "retry": true,
}

// part maps one stored part object; id and where as for message.
func (d *decoder) part(id string, data []byte, where string) (model.Part, bool) {
	var sp storedPart
	if !d.decode(data, &sp, where) {
		return model.Part{}, false
	}
	if id == "" {
		id = sp.ID
	}
	p := model.Part{
		ID:       id,
		Type:     model.PartType(d.name(sp.Type)),
		Metadata: rawJSON(sp.Metadata),
	}
	if !partTypes[sp.Type] {
		d.warnf("part %s: unknown part type %q (%s)", id, sp.Type, where)
		return p, true
	}
	switch p.Type {
	case model.PartText, model.PartReasoning:
		p.Text = sp.Text
		p.Synthetic = sp.Synthetic
		p.Ignored = sp.Ignored
	case model.PartFile:
		f := model.File(sp.storedFile)
		p.File = &f
	case model.PartTool:
		p.Tool = d.toolCall(id, &sp, where)
	}
	return p, true
}

func (d *decoder) toolCall(id string, sp *storedPart, where string) *model.ToolCall {
	tc := &model.ToolCall{Agent: model.AgentOpencode, CallID: sp.CallID, Tool: d.name(sp.Tool)}
	st := sp.State
	if st == nil {
		d.warnf("part %s: tool part without state (%s)", id, where)
		return tc
	}
	tc.Status = model.ToolStatus(d.name(st.Status))
	tc.Input = rawJSON(st.Input)
	tc.Output = st.Output
	tc.Error = st.Error
	tc.Title = st.Title
	tc.Metadata = rawJSON(st.Metadata)
	tc.Start = msTime(st.Time.Start)
	tc.End = msTime(st.Time.End)
	tc.Compacted = st.Time.Compacted != 0
	for _, a := range st.Attachments {
		tc.Attachments = append(tc.Attachments, model.File(a))
	}
	if len(tc.Metadata) > 0 && tc.Metadata[0] == '{' {
		var meta struct {
			SessionID any `json:"sessionId"`
		}
		if json.Unmarshal(tc.Metadata, &meta) == nil {
			if s, ok := meta.SessionID.(string); ok {
				tc.ChildSessionID = s
			}
		}
	}
	return tc
}

// storedSession is the session object of an export or a legacy file.
type storedSession struct {
	ID        string `json:"id"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
	Directory string `json:"directory"`
	Version   string `json:"version"`
	Time      struct {
		Created float64 `json:"created"`
		Updated float64 `json:"updated"`
	} `json:"time"`
}

func (s *storedSession) info(source, dataDir string) model.SessionInfo {
	return model.SessionInfo{
		ID:        s.ID,
		Agent:     model.AgentOpencode,
		Title:     s.Title,
		Directory: s.Directory,
		ParentID:  s.ParentID,
		Version:   s.Version,
		Created:   msTime(s.Time.Created),
		Updated:   msTime(s.Time.Updated),
		Source:    source,
		DataDir:   dataDir,
		Pipeline:  model.PipelineV1,
	}
}
