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
}

// CacheMark is one cache_control: on block Block of message Message's
// content (a string content becomes a one-text-block list to carry it).
type CacheMark struct {
	Message int
	Block   int
	Value   json.RawMessage
}
