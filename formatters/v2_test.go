package formatters

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
)

// ToolOutput.toResultValue of opencode 1.18.33's v2 loop. The states and
// the texts are those of testdata/opencode/v2 (stored in session_message,
// received by the fake provider as OpenAI Chat tool messages).

const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGK64KAACAAA//8DHAEzlHn36wAAAABJRU5ErkJggg=="

func TestV2ResultValue(t *testing.T) {
	cases := []struct {
		name string
		call model.ToolCall
		typ  model.ResultType
		text string // the tool message's content on the OpenAI Chat wire
	}{
		{"no content: structured as compact JSON", model.ToolCall{Tool: "read", Status: model.StatusCompleted, Content: []model.ToolContent{},
			Structured: json.RawMessage(`{"uri":"file:///home/user/proj/notes.txt","name":"notes.txt","content":"first note\nsecond note with a needle\nthird note\n","encoding":"utf8","mime":"text/plain"}`)},
			model.ResultJSON, `{"uri":"file:///home/user/proj/notes.txt","name":"notes.txt","content":"first note\nsecond note with a needle\nthird note\n","encoding":"utf8","mime":"text/plain"}`},
		{"one text item", model.ToolCall{Tool: "write", Status: model.StatusCompleted,
			Content:    []model.ToolContent{{Type: model.ContentText, Text: "Created file successfully: new.txt"}},
			Structured: json.RawMessage(`{"operation":"write","target":"/home/user/proj/new.txt","resource":"new.txt","existed":false}`)},
			model.ResultText, "Created file successfully: new.txt"},
		{"several text items", model.ToolCall{Tool: "bash", Status: model.StatusCompleted,
			Content:    []model.ToolContent{{Type: model.ContentText, Text: "hello from bash\nsecond line\n"}, {Type: model.ContentText, Text: "Command exited with code 0."}},
			Structured: json.RawMessage(`{"exit":0,"truncated":false}`)},
			model.ResultContent, "hello from bash\nsecond line\n\nCommand exited with code 0."},
		{"text and image", model.ToolCall{Tool: "read", Status: model.StatusCompleted,
			Content: []model.ToolContent{{Type: model.ContentText, Text: "Image read successfully"},
				{Type: model.ContentFile, URI: "data:image/png;base64," + pixel, Mime: "image/png", Name: "pixel.png"}}},
			model.ResultContent, "Image read successfully"},
		{"error", model.ToolCall{Tool: "list", Status: model.StatusError, Content: []model.ToolContent{}, Structured: json.RawMessage(`{}`),
			ErrorValue: json.RawMessage(`{"type":"unknown","message":"Unknown tool: list"}`), Error: "Unknown tool: list"},
			model.ResultError, `{"error":{"type":"unknown","message":"Unknown tool: list"},"content":[],"structured":{}}`},
		{"error message with newline and quotes", model.ToolCall{Tool: "read", Status: model.StatusError, Content: []model.ToolContent{}, Structured: json.RawMessage(`{}`),
			ErrorValue: json.RawMessage(`{"type":"unknown","message":"Invalid tool input: Missing key\n  at [\"path\"]"}`)},
			model.ResultError, `{"error":{"type":"unknown","message":"Invalid tool input: Missing key\n  at [\"path\"]"},"content":[],"structured":{}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.True(t, c.call.IsV2())
			v := Visible(&c.call, nil)
			assert.Equal(t, c.typ, v.Result.Type)
			assert.Equal(t, c.text, v.Text)
			assert.Nil(t, v.Truncation)
		})
	}
}

func TestV2UnsettledCallHasNoResult(t *testing.T) {
	call := model.ToolCall{Tool: "bash", Status: model.StatusRunning, Content: []model.ToolContent{}}
	v := Visible(&call, nil)
	assert.False(t, V2Settled(&call))
	assert.Equal(t, "", v.Text)
	assert.Contains(t, v.Why, "without a result")
}

func TestV2BoundTruncation(t *testing.T) {
	const spill = "/home/user/.local/share/opencode/tool-output/tool_22a983272001FSG0aO75TPvVvW"
	marker := "... output truncated; full content saved to " + spill + " ..."
	text := "1\n2\n\n" + marker + "\n\n100000\nCommand exited with code 0."
	call := model.ToolCall{Tool: "bash", Status: model.StatusCompleted,
		Content:     []model.ToolContent{{Type: model.ContentText, Text: text}},
		OutputPaths: []string{spill}, Structured: json.RawMessage(`{"exit":0,"truncated":false}`)}
	// the recorded spill file: 588922 bytes, 100001 lines (ends without a newline)
	v := Visible(&call, fakeSpill{spill: {100001, 588922}})
	require.NotNil(t, v.Truncation)
	tr := v.Truncation
	assert.Equal(t, model.TruncV2Bound, tr.Kind)
	assert.Equal(t, []model.Span{{Start: 3, End: 3 + len("\n\n"+marker+"\n\n")}}, tr.Markers)
	assert.Equal(t, marker, text[tr.Markers[0].Start+2:tr.Markers[0].End-2])
	assert.Equal(t, spill, tr.SpillPath)
	assert.Equal(t, spill, tr.SpillFound)
	fullLines, fullBytes := tr.Full()
	assert.Equal(t, [4]int{4, len("1\n2") + len("100000\nCommand exited with code 0."), 100001, 588922}, [4]int{tr.SeenLines, tr.SeenBytes, fullLines, fullBytes})

	// outputPaths is the recorded spill path even when the file is gone
	v = Visible(&call, fakeSpill{})
	assert.True(t, v.Truncation.SpillGone())

	// v1 markers mean nothing in a v2 result (v2 tools have no caps)
	grep := model.ToolCall{Tool: "grep", Status: model.StatusCompleted,
		Content: []model.ToolContent{{Type: model.ContentText, Text: "Found 100 matches (more matches available)\n/p/a:\n  Line 1: x"}}}
	assert.Nil(t, Visible(&grep, nil).Truncation)
}

func TestStringifyLikeJSON(t *testing.T) {
	b, err := Stringify(object{{"a", "<&>\u2028"}, {"b", json.RawMessage(`{"x":1}`)}, {"c", nil}, {"d", json.RawMessage(nil)}})
	require.NoError(t, err)
	assert.Equal(t, "{\"a\":\"<&>\u2028\",\"b\":{\"x\":1}}", string(b))
}
