// Package formatters turns a stored tool call into what the model was shown:
// the model-visible result, byte for byte, and the facts of any truncation.
//
// The rules are opencode 1.18.33's (packages/opencode/src/session/message-v2.ts,
// toModelMessages): tools wrote the model-visible text themselves, so a
// completed call shows its stored output verbatim and an error its stored
// error; only a few states are rewritten on the way to the model. Calls of
// the v2 loop (session_message) store output items instead and go through
// ToolOutput.toResultValue (v2.go).
package formatters

import (
	"encoding/json"

	"correx/model"
)

// Literals opencode substitutes for stored outputs.
const (
	ClearedOutput     = "[Old tool result content cleared]"
	InterruptedOutput = "[Tool execution was interrupted]"
)

// Option tunes Visible.
type Option func(*options)

type options struct {
	lowered *model.ToolResultValue
	why     string
}

// WithLowered makes r the call's result: what a lowering sent instead of
// the result opencode's conversion makes (render.Visible supplies it, for
// opencode's native lowering, which rewrites a v1 result with
// attachments as each provider needs), with why it differs. The text and
// the truncation facts are then r's.
func WithLowered(r model.ToolResultValue, why string) Option {
	return func(o *options) { o.lowered, o.why = &r, why }
}

// LoweringMatters reports whether the lowering changes call's model-visible
// result: a completed, uncompacted v1 call with attachments, not stored as
// sent, whose AI SDK content output opencode's native lowering rewrites
// (render.Visible).
func LoweringMatters(call *model.ToolCall) bool {
	return call.Sent == nil && !call.IsV2() && call.Status == model.StatusCompleted && !call.Compacted && len(call.Attachments) > 0
}

// Visible returns what the model saw for call. spill, when not nil, finds
// spill files on disk (see Spill); without it truncation facts say nothing
// of the full output.
//
// It dispatches on the call: a result stored as sent (Sent) is used as it
// is; a v2 call (IsV2) goes through opencode's ToolOutput.toResultValue;
// a v1 call through message-v2.ts's toModelOutput and its placeholders.
func Visible(call *model.ToolCall, spill SpillFinder, opts ...Option) model.Visible {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	v := model.Visible{Call: model.ToolCallPart{ID: call.CallID, Name: call.Tool, Input: call.Input}}
	v.Result, v.Why = result(call, o.lowered, o.why)
	v.Text = ResultText(v.Result)
	if v.SentUnknown = call.SentUnknown; v.Why == "" {
		v.Why = call.SentUnknown
	}
	if call.IsV2() {
		v.Truncation = detectIn(v.Text, func() (string, int) { return spillPath(call), -1 }, spill, detectV2)
	} else {
		v.Truncation = detectIn(v.Text, func() (string, int) { return metaOutputPath(call.Metadata), appendedAt(call, v.Text) }, spill, func(text string) *model.Truncation {
			if t := detect(call.Agent, call.Tool, text); t != nil {
				fromRecord(call, t)
				return t
			}
			return claudePartial(call, text)
		})
	}
	if v.Truncation != nil && v.Truncation.AgentFlagged == nil { // an agent's Record may have said
		v.Truncation.AgentFlagged = AgentFlagged(call)
	}
	return v
}

// completedResult is opencode's toModelOutput: the output string, or, when
// the call has attachments, a content result of the text and the files.
func completedResult(output string, files []model.File) model.ToolResultValue {
	if len(files) == 0 {
		return model.ToolResultValue{Type: model.ResultText, Text: output}
	}
	items := []model.ToolContent{{Type: model.ContentText, Text: output}}
	for _, f := range files {
		items = append(items, model.ToolContent{Type: model.ContentFile, URI: f.URL, Mime: f.Mime, Name: f.Filename})
	}
	return model.ToolResultValue{Type: model.ResultContent, Content: items}
}

// interruptedOutput returns metadata.output of a call whose metadata says
// interrupted: true.
func interruptedOutput(meta json.RawMessage) (string, bool) {
	var m struct {
		Interrupted bool    `json:"interrupted"`
		Output      *string `json:"output"`
	}
	if json.Unmarshal(meta, &m) != nil || !m.Interrupted || m.Output == nil {
		return "", false
	}
	return *m.Output, true
}

// ResultText is the text a result shows: its text, the text items of a
// content result joined by newlines, or its JSON.
func ResultText(r model.ToolResultValue) string {
	switch r.Type {
	case model.ResultJSON:
		return string(r.JSON)
	case model.ResultContent:
		s, first := "", true
		for _, c := range r.Content {
			if c.Type != model.ContentText {
				continue
			}
			if !first {
				s += "\n"
			}
			s += c.Text
			first = false
		}
		return s
	}
	return r.Text
}

// Result is the result the model got for call, as Visible gives it,
// without its text or truncation facts: what a lowering writes.
func Result(call *model.ToolCall) model.ToolResultValue {
	r, _ := result(call, nil, "")
	return r
}

// result is call's model-visible result and why it is not the stored
// output, if it is not (lowered: a lowering's result, see WithLowered).
func result(call *model.ToolCall, lowered *model.ToolResultValue, loweredWhy string) (model.ToolResultValue, string) {
	switch {
	case lowered != nil:
		return *lowered, loweredWhy
	case call.Sent != nil:
		return *call.Sent, sentWhy(call)
	case call.IsV2():
		return v2Result(call)
	case call.Status == model.StatusCompleted:
		if call.Compacted {
			return model.ToolResultValue{Type: model.ResultText, Text: ClearedOutput}, "output pruned by compaction; opencode sends a placeholder"
		}
		return completedResult(call.Output, call.Attachments), ""
	case call.Status == model.StatusError:
		if out, ok := interruptedOutput(call.Metadata); ok {
			return model.ToolResultValue{Type: model.ResultText, Text: out}, "interrupted call: opencode sends the live output it had, as a normal result"
		}
		return model.ToolResultValue{Type: model.ResultError, Text: call.Error}, ""
	}
	// pending, running: the run stopped before the tool finished
	return model.ToolResultValue{Type: model.ResultError, Text: InterruptedOutput}, "call never finished (status " + string(call.Status) + "); opencode sends a placeholder error"
}
