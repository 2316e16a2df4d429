// Package model holds the agent-neutral types correx works on: sessions,
// messages, parts and tool calls as an agent stored them, and the
// model-visible result of a tool call with its truncation facts.
//
// sessions/ fills these types, formatters/ and render/ read them, tui/ shows
// them. Nothing here does IO.
package model

import (
	"encoding/json"
	"time"
)

// Agent names the coding agent that recorded a session.
type Agent string

const (
	AgentOpencode   Agent = "opencode"
	AgentClaudeCode Agent = "claude-code"
	AgentCodex      Agent = "codex"
	AgentGeminiCLI  Agent = "gemini-cli"
)

// Name is the agent's display name ("" is opencode: sessions from before
// agents were told apart).
func (a Agent) Name() string {
	switch a {
	case AgentOpencode, "":
		return "opencode"
	}
	if s, ok := a.Spec(); ok {
		return s.Name
	}
	return string(a)
}

// Pipeline names which of an agent's result pipelines stored a session
// (opencode has the v1 message/part loop and the v2 session_message loop).
type Pipeline string

const (
	PipelineV1 Pipeline = "v1"
	PipelineV2 Pipeline = "v2"
)

// SessionInfo is what a session list needs; it is read without loading parts.
type SessionInfo struct {
	ID        string    `json:"id"`
	Agent     Agent     `json:"agent"`
	Title     string    `json:"title"`
	Directory string    `json:"directory"`
	ParentID  string    `json:"parent,omitempty"`
	Version   string    `json:"version,omitempty"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Messages  int       `json:"messages"`
	ToolCalls int       `json:"tool_calls"`
	Truncated int       `json:"truncated_calls"`
	Errors    int       `json:"errors"`
	// Source is the file the session was read from (a .db, an export, a
	// legacy storage dir); DataDir is the agent's data dir when known, where
	// spill files are looked up.
	Source  string `json:"source"`
	DataDir string `json:"-"`
	// Path is the session's directory relative to its project's worktree,
	// as opencode stores it (session.path; "" at the worktree or unknown).
	Path     string   `json:"-"`
	Pipeline Pipeline `json:"pipeline,omitempty"`
	// Damaged, when not empty, says which of the session's rows could not
	// be read (damaged pages of the store): ToolCalls, Truncated and Errors
	// then count only the rows that could (`correx ls --json`: null).
	Damaged string `json:"damaged,omitempty"`
	// Uncounted says the counts (Messages, ToolCalls, Truncated, Errors)
	// are not read yet: a quick list (sessions.ListQuick) for a first
	// screen, before List counts them.
	Uncounted bool `json:"-"`
}

// TruncatedBy says how Truncated was counted: "flagged" for opencode, whose
// readers count the agent's own record (metadata.truncated, v2's
// outputPaths) without reading any output; "detected" for Claude Code,
// Codex and Gemini CLI, whose readers load every result and count the
// truncations correx finds in the model-visible text.
func (i SessionInfo) TruncatedBy() string {
	if i.Agent.UsesOpencode() {
		return "flagged"
	}
	return "detected"
}

// Session is one loaded conversation.
type Session struct {
	Info     SessionInfo
	Messages []Message
	// Warnings collects problems met while loading (a corrupt row, an unknown
	// part type); the session still shows what could be read.
	Warnings []string
}

// Role of a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one user prompt or one assistant step (one model call).
type Message struct {
	ID         string
	Role       Role
	Created    time.Time
	Completed  time.Time
	ProviderID string
	ModelID    string
	Agent      string
	Finish     string
	// Error is the stored error name of a failed assistant step (empty if
	// none); opencode drops such steps from later requests unless aborted.
	Error   string
	Summary bool
	// EditorContext is what an opencode fork stored of the user's editor
	// with a user message (Kilo Code's editorContext: directory, worktree,
	// open files), compact; nil when none.
	EditorContext json.RawMessage
	Parts         []Part
	// Request is the conversation of the request that produced this
	// assistant step as the agent logged it, for agents that log requests
	// (Claude Code's api-request records; rebuilt from the transcript, and
	// saying so, when the log does not give it); nil otherwise.
	Request *LoggedRequest
	// Stored is what the agent stored for this message in its own format,
	// for agents whose own requests render replays from it (Codex: the
	// rollout's response items of a prompt, or of one model response and
	// the outputs of its calls, in order; Gemini CLI: each run's version
	// of the chat record, see sessions/geminicli). Nil otherwise.
	Stored []json.RawMessage
	// Run numbers the agent process that first wrote the message (Gemini
	// CLI: 1, then one more per resume); 0 when not known.
	Run int
}

// PartType is the stored type of a part.
type PartType string

const (
	PartText       PartType = "text"
	PartReasoning  PartType = "reasoning"
	PartTool       PartType = "tool"
	PartFile       PartType = "file"
	PartStepStart  PartType = "step-start"
	PartStepFinish PartType = "step-finish"
	PartPatch      PartType = "patch"
	PartCompaction PartType = "compaction"
	PartSubtask    PartType = "subtask"
	PartAgent      PartType = "agent"
)

// Part is one piece of a message. Only the fields of its type are set.
type Part struct {
	ID        string
	Type      PartType
	Text      string // text and reasoning
	Synthetic bool
	Ignored   bool
	// Metadata is the part's provider metadata as stored (Anthropic
	// signatures, OpenAI item ids, Gemini thought signatures).
	Metadata json.RawMessage
	Tool     *ToolCall
	File     *File
}

// ToolStatus is the state a tool call was stored in.
type ToolStatus string

const (
	StatusPending   ToolStatus = "pending"
	StatusRunning   ToolStatus = "running"
	StatusCompleted ToolStatus = "completed"
	StatusError     ToolStatus = "error"
)

// ToolCall is a tool part with its stored state.
type ToolCall struct {
	// Agent is the agent whose pipeline made the call's result (a fork
	// reading through its parent's names the parent): formatters look
	// for its truncation markers only; "" looks for every agent's.
	Agent  Agent
	CallID string
	Tool   string
	Status ToolStatus
	// Input is the call's arguments exactly as stored (key order kept).
	Input  json.RawMessage
	Output string
	Error  string
	Title  string
	// Metadata is the tool's own metadata (truncated, outputPath, exit, ...).
	Metadata    json.RawMessage
	Attachments []File
	Start, End  time.Time
	// Compacted is set when opencode pruned the output from later requests.
	Compacted bool
	// ChildSessionID links a task call to the subagent session it made.
	ChildSessionID string
	// Sent is the result exactly as the agent put it into the next request,
	// for agents that store that (Claude Code, Codex, Gemini CLI); when set,
	// formatters use it verbatim instead of deriving it from Output/Error.
	Sent *ToolResultValue
	// Notice is what the agent told the model about this call outside its
	// result (Claude Code's read_truncation_notice attachment); nil when
	// nothing.
	Notice *Notice
	// SentUnknown, when set, says why the result the agent sent in the
	// call's own run is not stored (Copilot keeps only a failed call's short
	// error.message, and sent a longer sentence until a resume); Sent is
	// then what later runs sent.
	SentUnknown string

	// The tool state of opencode's v2 loop (session_message), which stores
	// the tool's output items instead of an output string. Content is
	// non-nil exactly for v2 calls (empty when the state has no items);
	// formatters dispatch on it. Output and Error stay empty for v2, except
	// that Error repeats ErrorValue's message for display.
	Content     []ToolContent   // state.content: text and file items, in order
	Structured  json.RawMessage // state.structured, compact, nil when absent
	OutputPaths []string        // state.outputPaths: spill files of ToolOutputStore.bound
	ErrorValue  json.RawMessage // state.error as stored ({"type","message"}), nil unless error

	// OutputBytes and Elided are set only by outline loads
	// (sessions.OutlineLoader), which leave large outputs in the store.
	// OutputBytes is the length in bytes of Output; when Elided, of what
	// was left out as stored (the JSON-escaped output, error, attachments
	// and large metadata members, with their keys), an upper bound of the
	// output's size. Elided tells that Output, Error, Attachments and the
	// Metadata members opencode fills with outputs and file contents
	// ("output", "display", "preview", "diff", "filediff", "files",
	// "diagnostics") were left out because the stored part is large: the
	// whole call is read with sessions.OutputLoader. ElidedFiles tells that
	// the Attachments left out were not empty. A full Load leaves all three
	// zero.
	OutputBytes int
	Elided      bool
	ElidedFiles bool
}

// IsV2 reports whether the call was stored by opencode's v2 loop.
func (c *ToolCall) IsV2() bool { return c.Content != nil }

// File is an attachment or a file part: a data: URL or a file path.
type File struct {
	Mime     string
	Filename string
	URL      string
}

// ToolCalls returns the session's tool calls in order, with the message
// that holds each.
func (s *Session) ToolCalls() []CallRef {
	var refs []CallRef
	for mi := range s.Messages {
		for pi := range s.Messages[mi].Parts {
			if p := &s.Messages[mi].Parts[pi]; p.Tool != nil {
				refs = append(refs, CallRef{Message: mi, Part: pi, Call: p.Tool})
			}
		}
	}
	return refs
}

// CallRef locates a tool call in its session.
type CallRef struct {
	Message, Part int
	Call          *ToolCall
}

// FindCall returns the call with the given call id (or part id).
func (s *Session) FindCall(id string) (CallRef, bool) {
	for _, r := range s.ToolCalls() {
		if r.Call.CallID == id || s.Messages[r.Message].Parts[r.Part].ID == id {
			return r, true
		}
	}
	return CallRef{}, false
}

// StepRequest is the logged request of the step-th assistant message
// (1-based), or nil.
func (s *Session) StepRequest(step int) *LoggedRequest {
	// counted, not from AssistantSteps: the inspector asks on every key
	for i := range s.Messages {
		if s.Messages[i].Role != RoleAssistant {
			continue
		}
		if step--; step == 0 {
			return s.Messages[i].Request
		}
	}
	return nil
}

// CallsAnswered says m made calls and each has a result (it completed or
// failed): the messages that carry the results then follow it.
func (m *Message) CallsAnswered() bool {
	calls := 0
	for _, p := range m.Parts {
		if p.Tool == nil {
			continue
		}
		if p.Tool.Status != StatusCompleted && p.Tool.Status != StatusError {
			return false
		}
		calls++
	}
	return calls > 0
}

// DistinctCallIDs says no call id is made twice in the messages before
// upto (a converter that drops a call already sent looks back for it).
func (s *Session) DistinctCallIDs(upto int) bool {
	seen := map[string]bool{}
	for _, m := range s.Messages[:upto] {
		for _, p := range m.Parts {
			if p.Tool != nil {
				if seen[p.Tool.CallID] {
					return false
				}
				seen[p.Tool.CallID] = true
			}
		}
	}
	return true
}

// AssistantSteps returns the indexes of the assistant messages, in order;
// step N (1-based) of the session is AssistantSteps()[N-1].
func (s *Session) AssistantSteps() []int {
	var idx []int
	for i, m := range s.Messages {
		if m.Role == RoleAssistant {
			idx = append(idx, i)
		}
	}
	return idx
}
