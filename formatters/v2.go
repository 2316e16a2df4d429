package formatters

import (
	"encoding/json"

	"correx/model"
)

// v2Result is what opencode 1.18.33's v2 loop sends for a tool state
// (packages/core session → packages/llm, ToolOutput.toResultValue):
//
//   - completed, no content items: {type: "json", value: structured}, which
//     every protocol sends as JSON.stringify(structured), compact;
//   - completed, exactly one text item: {type: "text", value: text};
//   - completed, anything else: {type: "content", value: items};
//   - error: {type: "error", value: {error, content, structured}}, sent as
//     JSON.stringify of that object (keys in that order, undefined ones
//     left out), e.g. {"error":{"type":"unknown","message":"Unknown tool: list"},"content":[],"structured":{}}.
//
// A call that never settled (pending, running) gets no result at all: the
// v2 history replays the call alone (read from packages/core's
// to-llm-message.ts; no recording has one).
func v2Result(call *model.ToolCall) (model.ToolResultValue, string) {
	switch call.Status {
	case model.StatusCompleted:
		switch {
		case len(call.Content) == 0:
			structured := call.Structured
			if structured == nil {
				structured = json.RawMessage("null")
			}
			return model.ToolResultValue{Type: model.ResultJSON, JSON: structured},
				"v2: the tool returned no content items, so the model is sent its structured output as JSON"
		case len(call.Content) == 1 && call.Content[0].Type == model.ContentText:
			return model.ToolResultValue{Type: model.ResultText, Text: call.Content[0].Text}, ""
		}
		return model.ToolResultValue{Type: model.ResultContent, Content: call.Content}, ""
	case model.StatusError:
		return model.ToolResultValue{Type: model.ResultError, Text: V2ErrorString(call)},
			"v2: an error is sent as JSON.stringify({error, content, structured}) of the tool state"
	}
	return model.ToolResultValue{Type: model.ResultError},
		"v2: the call never settled (status " + string(call.Status) + "); opencode replays the call without a result"
}

// V2ErrorString is JSON.stringify({error, content, structured}) of a v2
// error state.
func V2ErrorString(call *model.ToolCall) string {
	content := []any{}
	for _, c := range call.Content {
		if c.Type == model.ContentText {
			content = append(content, object{{"type", "text"}, {"text", c.Text}})
			continue
		}
		f := object{{"type", string(c.Type)}, {"uri", c.URI}, {"mime", c.Mime}}
		if c.Name != "" {
			f = append(f, field{"name", c.Name})
		}
		content = append(content, f)
	}
	return stringify(object{{"error", call.ErrorValue}, {"content", content}, {"structured", call.Structured}})
}

// V2Settled reports whether a v2 call has a result to send.
func V2Settled(call *model.ToolCall) bool {
	return call.Status == model.StatusCompleted || call.Status == model.StatusError
}

// spillPath is the spill file an agent recorded for a call: v1's
// metadata.outputPath, else v2's first outputPaths entry.
func spillPath(call *model.ToolCall) string {
	if p := metaOutputPath(call.Metadata); p != "" {
		return p
	}
	if len(call.OutputPaths) > 0 {
		return call.OutputPaths[0]
	}
	return ""
}
