package model

import "encoding/json"

// LoggedRequest is the conversation part of one model request as the agent
// itself logged it: Claude Code 2.1.x writes, per request, the messages it
// kept from the previous request, hashes of the new ones (stored as
// transcript lines or as api-request-blob records) and where it put
// cache_control. Messages of different steps share their bytes.
type LoggedRequest struct {
	// Provider is the wire API the messages are in ("anthropic").
	Provider string
	// Messages are the request's messages without cache_control, each a
	// JSON object {"role","content"} exactly as logged.
	Messages []json.RawMessage
	// Cache lists the places cache_control was put.
	Cache []CacheMark
	// Missing counts messages the log names but the transcript does not
	// hold (left out of Messages).
	Missing int
	// Rebuilt is empty when Messages are as the agent logged them; else
	// Messages were rebuilt from the transcript (no record, or one whose
	// messages could not all be found) and Rebuilt says why, naming the
	// file and line. Such a request is not known to be as sent.
	Rebuilt string
	// Elided is set by outline loads (sessions.OutlineLoader), which leave
	// Messages, Cache and Missing in the store: the whole request is read
	// with sessions.RequestLoader. Provider and Rebuilt are kept.
	Elided bool
}

// RebuiltLabel is what correx shows for a request rebuilt from the
// transcript.
const RebuiltLabel = "rebuilt from the transcript, not as sent"

// CacheMark is one cache_control: on block Block of message Message's
// content (a string content becomes a one-text-block list to carry it).
type CacheMark struct {
	Message int
	Block   int
	Value   json.RawMessage
}

// AnthropicBlock is an Anthropic content block as Claude Code writes it, in
// its transcript and in the requests it logs.
type AnthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature *string         `json:"signature"`
	Data      *string         `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	ToolName  string          `json:"tool_name"` // tool_reference
	Content   json.RawMessage `json:"content"`
	IsError   *bool           `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

// Errored reports is_error: true.
func (b AnthropicBlock) Errored() bool { return b.IsError != nil && *b.IsError }
