// Package render lowers a session to the wire JSON each provider API
// received, following the converters opencode 1.18.33 runs (the Vercel AI
// SDK's), and highlights it.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"correx/formatters"
	"correx/model"
)

// Provider is a wire API.
type Provider string

const (
	OpenAIChat      Provider = "openai-chat"
	OpenAIResponses Provider = "openai-responses"
	Anthropic       Provider = "anthropic"
	Gemini          Provider = "gemini"
	Bedrock         Provider = "bedrock"
)

// Providers lists every wire API in display order.
var Providers = []Provider{OpenAIChat, OpenAIResponses, Anthropic, Gemini, Bedrock}

// ParseProvider checks a provider name.
func ParseProvider(s string) (Provider, error) {
	for _, p := range Providers {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown provider %q (want one of openai-chat, openai-responses, anthropic, gemini, bedrock)", s)
}

// Label is a provider's display name.
func (p Provider) Label() string {
	switch p {
	case OpenAIChat:
		return "OpenAI Chat"
	case OpenAIResponses:
		return "OpenAI Responses"
	case Anthropic:
		return "Anthropic"
	case Gemini:
		return "Gemini"
	case Bedrock:
		return "Bedrock"
	}
	return string(p)
}

// Native returns the provider API a stored opencode provider id and model
// spoke, or "" when it is not known.
func Native(providerID, modelID string) Provider {
	switch providerID {
	case "anthropic":
		return Anthropic
	case "openai":
		return OpenAIResponses
	case "amazon-bedrock":
		return Bedrock
	case "google", "google-vertex":
		return Gemini
	}
	return ""
}

// Conversation returns the conversation part of the request body that
// provider p received for step (1-based; 0 means the last) of the session:
// the model call that produced the step-th assistant message. m is the
// model the request is for; its zero value means the step's own model.
// The result is `messages` (OpenAI Chat without system messages, Anthropic,
// Bedrock), `input` (Responses, without system and developer items) or
// `contents` (Gemini). m.Lowering picks the AI SDK converters or the native
// lowering (native.go); by default v1 sessions use the AI SDK and v2
// sessions, which opencode always lowers natively, the native one
// (SessionLowering).
func Conversation(s *model.Session, p Provider, step int, m Model) (Value, error) {
	r, err := Render(s, p, step, m)
	if err != nil {
		return nil, err
	}
	return r.Value, nil
}

// Render is Conversation with where each call and its result sit in it
// (place.go), recorded by the lowering that built it.
func Render(s *model.Session, p Provider, step int, m Model) (*Rendered, error) {
	return render(s, p, step, m, false, nil)
}

// render is Render; with spend, the step's logged request is the
// caller's own, read for this rendering alone, and its messages are let
// go one by one as they are decoded (a request of many MB is not held
// beside its decoded form); with lazy, an own wire may leave its large
// strings in the store (Placer.Defer).
func render(s *model.Session, p Provider, step int, m Model, spend bool, lazy *LazyConversation) (*Rendered, error) {
	steps := s.AssistantSteps()
	if len(steps) == 0 {
		return nil, fmt.Errorf("session %s has no assistant step", s.Info.ID)
	}
	if step == 0 {
		step = len(steps)
	}
	if step < 1 || step > len(steps) {
		return nil, fmt.Errorf("session %s has %d steps, not %d", s.Info.ID, len(steps), step)
	}
	at := s.Messages[steps[step-1]]
	if m.ModelID == "" {
		m.ProviderID, m.ModelID = at.ProviderID, at.ModelID
	}
	if s.Info.Pipeline == model.PipelineV2 && m.Lowering == model.LoweringAISDK {
		return nil, fmt.Errorf("session %s is a v2 session: opencode's v2 loop always lowers natively (packages/llm), never through the AI SDK", s.Info.ID)
	}
	m.Lowering = SessionLowering(s.Info, m.Lowering)
	pl := newPlacer(m.Lowering)
	pl.lazy = lazy
	var v Value
	var err error
	own, registered := ownWireOf(s.Info.Agent)
	switch {
	case registered && p == own.Provider:
		v, err = own.Conversation(s, steps[step-1], pl)
	case at.Request != nil: // the agent logged its request (Claude Code)
		v, err = loggedProjection(at.Request, p, m, pl, spend)
	case registered:
		v = cliProjection(s, steps[step-1], p, m, pl)
	case m.Lowering == model.LoweringNative:
		v = nativeConversation(buildPrompt(s, steps[step-1], p, m), p, pl)
	default:
		v, err = lower(buildPrompt(s, steps[step-1], p, m), p, m.ModelID, pl)
	}
	if err != nil {
		return nil, err
	}
	return &Rendered{Value: v, Places: pl.places, Lowering: m.Lowering, Gaps: pl.gaps}, nil
}

// lower runs provider p's AI SDK converter over a prompt, recording the
// placements in pl; modelID matters to Gemini only.
func lower(prompt []msg, p Provider, modelID string, pl *Placer) (Value, error) {
	switch p {
	case OpenAIChat:
		return openAIChat(prompt, pl), nil
	case OpenAIResponses:
		return openAIResponses(prompt, pl), nil
	case Anthropic:
		return anthropic(prompt, pl), nil
	case Gemini:
		return gemini(prompt, modelID, pl), nil
	case Bedrock:
		return bedrock(prompt, pl), nil
	}
	return nil, fmt.Errorf("unknown provider %q", p)
}

// Value is a JSON value built with Obj for objects (keys in wire order),
// []Value for arrays, and Go strings, bools, numbers or json.RawMessage.
type Value = any

// Obj is a JSON object that keeps its keys in the order they were added,
// so output reads like the request the provider got.
type Obj []Field

// Field is one key of an Obj.
type Field struct {
	Key string
	Val Value
}

// KV is one field of an Obj, for the packages that build an agent's own
// wire (go vet wants another package's struct literals keyed).
func KV(key string, v Value) Field { return Field{key, v} }

// Set appends a key.
func (o *Obj) Set(key string, v Value) { *o = append(*o, Field{key, v}) }

// Get returns a key's value.
func (o Obj) Get(key string) (Value, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Val, true
		}
	}
	return nil, false
}

// MarshalJSON writes the keys in order.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(f.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(f.Val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Marshal encodes a Value as compact JSON without HTML escaping, the way
// JSON.stringify writes it.
func Marshal(v Value) ([]byte, error) { return marshal(v) }

// MarshalIndent encodes a Value indented by two spaces.
func MarshalIndent(v Value) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteIndent(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteIndent writes MarshalIndent(v) to w as it goes: objects and arrays
// are written a key or an item at a time, and only one leaf value (a
// string, a number, a json.RawMessage...) is encoded in memory at once, so
// a conversation of many large tool outputs is not copied whole, once for
// each level of nesting, as marshalling it in one piece does. The bytes
// are those of json.Indent over Marshal(v): a leaf is marshalled as Marshal
// does and indented with the prefix of its depth.
func WriteIndent(w io.Writer, v Value) error {
	return writeIndent(w, v, nil)
}

// WriteIndentStreamed is WriteIndent with each string of v that is a key
// of texts written from its function, a piece of whole runes at a time,
// as WriteIndent writes the string it writes: a huge text is never held.
func WriteIndentStreamed(w io.Writer, v Value, texts map[string]func(write func(string) error) error) error {
	return writeIndent(w, v, func(w io.Writer, s string) (bool, error) {
		text, ok := texts[s]
		if !ok {
			return false, nil
		}
		return true, writeString(w, text, false)
	})
}

// writeIndent is WriteIndent with a hook for the string leaves: leaf is
// given each string leaf and may write it itself (its JSON encoding, the
// bytes WriteIndent would write) and report true; it is how a lazy
// conversation writes a large text that is not held in v. An error from
// leaf stops the writing and is returned.
func writeIndent(w io.Writer, v Value, leaf func(w io.Writer, s string) (bool, error)) error {
	iw := &indentWriter{w: w, leaf: leaf}
	iw.value(v, 0)
	return iw.err
}

type indentWriter struct {
	w    io.Writer
	err  error
	buf  bytes.Buffer
	leaf func(w io.Writer, s string) (bool, error)
}

func (iw *indentWriter) write(s string) {
	if iw.err == nil {
		_, iw.err = io.WriteString(iw.w, s)
	}
}

func (iw *indentWriter) newline(depth int) {
	iw.write("\n")
	for range depth {
		iw.write("  ")
	}
}

func (iw *indentWriter) value(v Value, depth int) {
	if iw.err != nil {
		return
	}
	switch x := v.(type) {
	case Obj:
		if len(x) == 0 {
			iw.write("{}")
			return
		}
		iw.write("{")
		for i, f := range x {
			if i > 0 {
				iw.write(",")
			}
			iw.newline(depth + 1)
			k, err := marshal(f.Key)
			if err != nil {
				iw.err = err
				return
			}
			iw.write(string(k))
			iw.write(": ")
			iw.value(f.Val, depth+1)
		}
		iw.newline(depth)
		iw.write("}")
	case []Value:
		if x == nil {
			iw.write("null")
			return
		}
		if len(x) == 0 {
			iw.write("[]")
			return
		}
		iw.write("[")
		for i, it := range x {
			if i > 0 {
				iw.write(",")
			}
			iw.newline(depth + 1)
			iw.value(it, depth+1)
		}
		iw.newline(depth)
		iw.write("]")
	default:
		if s, ok := v.(string); ok && iw.leaf != nil {
			done, err := iw.leaf(iw.w, s)
			if err != nil {
				iw.err = err
				return
			}
			if done {
				return
			}
		}
		if s, ok := v.(string); ok && len(s) > stringChunk {
			// a piece at a time: encoded whole, a large text was held
			// twice more
			if iw.err == nil {
				iw.err = writeString(iw.w, func(write func(string) error) error { return write(s) }, false)
			}
			return
		}
		if raw, ok := v.(json.RawMessage); ok && iw.leaf != nil && bytes.Contains(raw, placeholderJSON) {
			// a logged message with placeholders: its strings are leaves
			dv, err := OrderedJSON(raw)
			if err != nil {
				iw.err = err
				return
			}
			iw.value(dv, depth)
			return
		}
		raw, err := marshal(v)
		if err != nil {
			iw.err = err
			return
		}
		if len(raw) > 0 && raw[0] != '{' && raw[0] != '[' {
			// a scalar: json.Indent copies it as it is
			if iw.err == nil {
				_, iw.err = iw.w.Write(raw)
			}
			return
		}
		iw.buf.Reset()
		if err := json.Indent(&iw.buf, raw, strings.Repeat("  ", depth), "  "); err != nil {
			iw.err = err
			return
		}
		if iw.err == nil {
			_, iw.err = iw.w.Write(iw.buf.Bytes())
		}
	}
}

func marshal(v Value) ([]byte, error) { return formatters.Stringify(v) }

// compactInput is JSON.stringify of a stored input: the stored JSON without
// whitespace, key order kept; "{}" when nothing was stored.
func compactInput(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// InputValue is a stored input as a JSON value ({} when nothing was stored).
func InputValue(raw json.RawMessage) Value {
	if len(raw) == 0 {
		return Obj{}
	}
	return raw
}
