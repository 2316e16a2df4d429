package render

import (
	"encoding/json"
	"testing"

	"correx/model"
)

// The native lowering (packages/llm) on small sessions. The expected wire
// JSON is cut from the recorded requests: testdata/opencode/v2 (OpenAI
// Chat), v2-anthropic, anthropic-native and responses-native; Gemini and
// Bedrock from the source (no recording).

const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAAEElEQVR4nGK64KAACAAA//8DHAEzlHn36wAAAABJRU5ErkJggg=="

func expectWire(t *testing.T, s *model.Session, p Provider, step int, m Model, want string) {
	t.Helper()
	v, err := Conversation(s, p, step, m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func v2Tool(id, name, input string, status model.ToolStatus, content ...model.ToolContent) model.Part {
	if content == nil {
		content = []model.ToolContent{}
	}
	return model.Part{ID: id, Type: model.PartTool, Tool: &model.ToolCall{CallID: id, Tool: name, Status: status, Input: json.RawMessage(input), Content: content}}
}

func text(s string) model.ToolContent { return model.ToolContent{Type: model.ContentText, Text: s} }

// v2Session is a v2 session of oracle-model: a prompt, a step with
// reasoning and three calls (two text items; text and an image; an unknown
// tool), a step with reasoning and text only, and a follow-up prompt.
func v2Session(providerID, modelID string) *model.Session {
	list := v2Tool("call_list", "list", `{"path":"/home/user/proj"}`, model.StatusError)
	list.Tool.Structured = json.RawMessage(`{}`)
	list.Tool.ErrorValue = json.RawMessage(`{"type":"unknown","message":"Unknown tool: list"}`)
	asst := func(parts ...model.Part) model.Message {
		return model.Message{Role: model.RoleAssistant, ProviderID: providerID, ModelID: modelID, Parts: parts}
	}
	return &model.Session{
		Info: model.SessionInfo{ID: "ses_v2", Pipeline: model.PipelineV2},
		Messages: []model.Message{
			{Role: model.RoleUser, Parts: []model.Part{{Type: model.PartText, Text: "Please run the correx oracle scenario."}}},
			asst(
				model.Part{Type: model.PartReasoning, Text: "Shell first.", Metadata: json.RawMessage(`{"anthropic":{"signature":"EqjT"}}`)},
				model.Part{Type: model.PartText, Text: "I'll start with a few shell commands."},
				v2Tool("call_bash", "bash", `{"command":"echo hello from bash; echo second line"}`, model.StatusCompleted,
					text("hello from bash\nsecond line\n"), text("Command exited with code 0.")),
				v2Tool("call_img", "read", `{"path":"/home/user/proj/pixel.png"}`, model.StatusCompleted,
					text("Image read successfully"), model.ToolContent{Type: model.ContentFile, URI: "data:image/png;base64," + pixel, Mime: "image/png", Name: "pixel.png"}),
				list,
			),
			asst(
				model.Part{Type: model.PartReasoning, Text: "Everything in the script has run; time to summarise."},
				model.Part{Type: model.PartText, Text: "All done."},
			),
			{Role: model.RoleUser, Parts: []model.Part{{Type: model.PartText, Text: "One more thing: show me the final contents of new.txt."}}},
			asst(model.Part{Type: model.PartText, Text: "new.txt holds alpha."}),
		},
	}
}

func TestV2OpenAIChat(t *testing.T) {
	s := v2Session("oracle-openai", "oracle-model")
	expectWire(t, s, OpenAIChat, 2, Model{}, `[`+
		`{"role":"user","content":"Please run the correx oracle scenario."},`+
		`{"role":"assistant","content":"I'll start with a few shell commands.","tool_calls":[`+
		`{"id":"call_bash","type":"function","function":{"name":"bash","arguments":"{\"command\":\"echo hello from bash; echo second line\"}"}},`+
		`{"id":"call_img","type":"function","function":{"name":"read","arguments":"{\"path\":\"/home/user/proj/pixel.png\"}"}},`+
		`{"id":"call_list","type":"function","function":{"name":"list","arguments":"{\"path\":\"/home/user/proj\"}"}}],"reasoning_content":"Shell first."},`+
		`{"role":"tool","tool_call_id":"call_bash","content":"hello from bash\nsecond line\n\nCommand exited with code 0."},`+
		`{"role":"tool","tool_call_id":"call_img","content":"Image read successfully"},`+
		`{"role":"tool","tool_call_id":"call_list","content":"{\"error\":{\"type\":\"unknown\",\"message\":\"Unknown tool: list\"},\"content\":[],\"structured\":{}}"},`+
		`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,`+pixel+`"}}]}]`)
	// a step without tool calls; content null without text
	expectWire(t, s, OpenAIChat, 3, Model{}, `[{"role":"user","content":"Please run the correx oracle scenario."},`+
		`{"role":"assistant","content":"I'll start with a few shell commands.","tool_calls":[`+
		`{"id":"call_bash","type":"function","function":{"name":"bash","arguments":"{\"command\":\"echo hello from bash; echo second line\"}"}},`+
		`{"id":"call_img","type":"function","function":{"name":"read","arguments":"{\"path\":\"/home/user/proj/pixel.png\"}"}},`+
		`{"id":"call_list","type":"function","function":{"name":"list","arguments":"{\"path\":\"/home/user/proj\"}"}}],"reasoning_content":"Shell first."},`+
		`{"role":"tool","tool_call_id":"call_bash","content":"hello from bash\nsecond line\n\nCommand exited with code 0."},`+
		`{"role":"tool","tool_call_id":"call_img","content":"Image read successfully"},`+
		`{"role":"tool","tool_call_id":"call_list","content":"{\"error\":{\"type\":\"unknown\",\"message\":\"Unknown tool: list\"},\"content\":[],\"structured\":{}}"},`+
		`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,`+pixel+`"}}]},`+
		`{"role":"assistant","content":"All done.","reasoning_content":"Everything in the script has run; time to summarise."},`+
		`{"role":"user","content":"One more thing: show me the final contents of new.txt."}]`)
	if _, err := Conversation(s, OpenAIChat, 2, Model{Lowering: model.LoweringAISDK}); err == nil {
		t.Error("a v2 session rendered through the AI SDK")
	}
}

func TestV2Anthropic(t *testing.T) {
	s := v2Session("anthropic", "claude-sonnet-4-5")
	// every tool result is its own user message; the newest user text
	// carries the one message cache marker
	expectWire(t, s, Anthropic, 3, Model{}, `[`+
		`{"role":"user","content":[{"type":"text","text":"Please run the correx oracle scenario."}]},`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Shell first.","signature":"EqjT"},`+
		`{"type":"text","text":"I'll start with a few shell commands."},`+
		`{"type":"tool_use","id":"call_bash","name":"bash","input":{"command":"echo hello from bash; echo second line"}},`+
		`{"type":"tool_use","id":"call_img","name":"read","input":{"path":"/home/user/proj/pixel.png"}},`+
		`{"type":"tool_use","id":"call_list","name":"list","input":{"path":"/home/user/proj"}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_bash","content":[{"type":"text","text":"hello from bash\nsecond line\n"},{"type":"text","text":"Command exited with code 0."}]}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_img","content":[{"type":"text","text":"Image read successfully"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+pixel+`"}}]}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_list","content":"{\"error\":{\"type\":\"unknown\",\"message\":\"Unknown tool: list\"},\"content\":[],\"structured\":{}}","is_error":true}]},`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Everything in the script has run; time to summarise."},{"type":"text","text":"All done."}]},`+
		`{"role":"user","content":[{"type":"text","text":"One more thing: show me the final contents of new.txt.","cache_control":{"type":"ephemeral"}}]}]`)
}

// v1Session is a v1 session of provider/model with an image read and an
// unknown tool (native: stored and replayed under its own name).
func v1Session(providerID, modelID, reasoningMeta string) *model.Session {
	asst := func(parts ...model.Part) model.Message {
		return model.Message{Role: model.RoleAssistant, ProviderID: providerID, ModelID: modelID, Parts: parts}
	}
	return &model.Session{
		Info: model.SessionInfo{ID: "ses_v1", Pipeline: model.PipelineV1, Version: "1.18.33"},
		Messages: []model.Message{
			{Role: model.RoleUser, Parts: []model.Part{{Type: model.PartText, Text: "Please run the correx oracle scenario."}}},
			asst(
				model.Part{Type: model.PartReasoning, Text: "Reads.", Metadata: json.RawMessage(reasoningMeta)},
				model.Part{Type: model.PartTool, Tool: &model.ToolCall{CallID: "call_img", Tool: "read", Status: model.StatusCompleted,
					Input: json.RawMessage(`{"filePath":"/home/user/proj/pixel.png"}`), Output: "Image read successfully",
					Attachments: []model.File{{Mime: "image/png", Filename: "pixel.png", URL: "data:image/png;base64," + pixel}}}},
				model.Part{Type: model.PartTool, Tool: &model.ToolCall{CallID: "call_list", Tool: "list", Status: model.StatusError,
					Input: json.RawMessage(`{"path":"/home/user/proj"}`), Error: "Unknown tool: list"}},
			),
			asst(model.Part{Type: model.PartText, Text: "Done."}),
		},
	}
}

func TestV1NativeAnthropic(t *testing.T) {
	s := v1Session("anthropic", "claude-sonnet-4-5", `{"anthropic":{"signature":"EqiN"}}`)
	native := Model{Lowering: model.LoweringNative}
	// the image result is the JSON string of the AI SDK content output;
	// one cache marker, on the newest user text (AI SDK: the last two
	// messages)
	expectWire(t, s, Anthropic, 2, native, `[`+
		`{"role":"user","content":[{"type":"text","text":"Please run the correx oracle scenario.","cache_control":{"type":"ephemeral"}}]},`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Reads.","signature":"EqiN"},{"type":"tool_use","id":"call_img","name":"read","input":{"filePath":"/home/user/proj/pixel.png"}},`+
		`{"type":"tool_use","id":"call_list","name":"list","input":{"path":"/home/user/proj"}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_img","content":"[{\"type\":\"text\",\"text\":\"Image read successfully\"},{\"type\":\"media\",\"mediaType\":\"image/png\",\"data\":\"`+pixel+`\"}]"},`+
		`{"type":"tool_result","tool_use_id":"call_list","content":"Unknown tool: list","is_error":true}]}]`)
	expectWire(t, s, Anthropic, 2, Model{}, `[`+
		`{"role":"user","content":[{"type":"text","text":"Please run the correx oracle scenario."}]},`+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Reads.","signature":"EqiN"},{"type":"tool_use","id":"call_img","name":"read","input":{"filePath":"/home/user/proj/pixel.png"}},`+
		`{"type":"tool_use","id":"call_list","name":"list","input":{"path":"/home/user/proj"},"cache_control":{"type":"ephemeral"}}]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_img","content":[{"type":"text","text":"Image read successfully"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+pixel+`"}}]},`+
		`{"type":"tool_result","tool_use_id":"call_list","content":"Unknown tool: list","is_error":true,"cache_control":{"type":"ephemeral"}}]}]`)
}

func TestV1NativeResponses(t *testing.T) {
	s := v1Session("openai", "gpt-5", `{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"gAAAA"}}`)
	// no reasoning item (the AI SDK replays it with its encrypted content)
	expectWire(t, s, OpenAIResponses, 2, Model{Lowering: model.LoweringNative}, `[`+
		`{"role":"user","content":[{"type":"input_text","text":"Please run the correx oracle scenario."}]},`+
		`{"type":"function_call","call_id":"call_img","name":"read","arguments":"{\"filePath\":\"/home/user/proj/pixel.png\"}"},`+
		`{"type":"function_call","call_id":"call_list","name":"list","arguments":"{\"path\":\"/home/user/proj\"}"},`+
		`{"type":"function_call_output","call_id":"call_img","output":"[{\"type\":\"text\",\"text\":\"Image read successfully\"},{\"type\":\"media\",\"mediaType\":\"image/png\",\"data\":\"`+pixel+`\"}]"},`+
		`{"type":"function_call_output","call_id":"call_list","output":"Unknown tool: list"}]`)
}

// Unverified against a recording: packages/llm's gemini and
// bedrock-converse lowering as read from the source (§6.2).
func TestV2GeminiAndBedrockFromSource(t *testing.T) {
	s := v2Session("google", "gemini-2.5-pro")
	s.Messages = s.Messages[:3]
	s.Messages[1].Parts = s.Messages[1].Parts[1:] // no reasoning
	expectWire(t, s, Gemini, 2, Model{}, `[`+
		`{"role":"user","parts":[{"text":"Please run the correx oracle scenario."}]},`+
		`{"role":"model","parts":[{"text":"I'll start with a few shell commands."},`+
		`{"functionCall":{"name":"bash","args":{"command":"echo hello from bash; echo second line"}}},`+
		`{"functionCall":{"name":"read","args":{"path":"/home/user/proj/pixel.png"}}},`+
		`{"functionCall":{"name":"list","args":{"path":"/home/user/proj"}}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"bash","response":{"name":"bash","content":"hello from bash\nsecond line\n\nCommand exited with code 0."}}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"name":"read","content":"Image read successfully"}}},{"inlineData":{"mimeType":"image/png","data":"`+pixel+`"}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"list","response":{"name":"list","content":"{\"error\":{\"type\":\"unknown\",\"message\":\"Unknown tool: list\"},\"content\":[],\"structured\":{}}"}}}]}]`)
	expectWire(t, s, Bedrock, 2, Model{}, `[`+
		`{"role":"user","content":[{"text":"Please run the correx oracle scenario."},{"cachePoint":{"type":"default"}}]},`+
		`{"role":"assistant","content":[{"text":"I'll start with a few shell commands."},`+
		`{"toolUse":{"toolUseId":"call_bash","name":"bash","input":{"command":"echo hello from bash; echo second line"}}},`+
		`{"toolUse":{"toolUseId":"call_img","name":"read","input":{"path":"/home/user/proj/pixel.png"}}},`+
		`{"toolUse":{"toolUseId":"call_list","name":"list","input":{"path":"/home/user/proj"}}}]},`+
		`{"role":"user","content":[{"toolResult":{"toolUseId":"call_bash","content":[{"text":"hello from bash\nsecond line\n"},{"text":"Command exited with code 0."}],"status":"success"}}]},`+
		`{"role":"user","content":[{"toolResult":{"toolUseId":"call_img","content":[{"text":"Image read successfully"},{"image":{"format":"png","source":{"bytes":"`+pixel+`"}}}],"status":"success"}}]},`+
		`{"role":"user","content":[{"toolResult":{"toolUseId":"call_list","content":[{"text":"{\"error\":{\"type\":\"unknown\",\"message\":\"Unknown tool: list\"},\"content\":[],\"structured\":{}}"}],"status":"error"}}]}]`)
}

// Under the native lowering a v1 read of an image is sent as the JSON
// string of its text and media (testdata/opencode/anthropic-native), unless
// the v1 conversion moved the media out first, for providers that take
// none in tool results: then the text alone. Visible says the same as the
// wire, provider by provider.
func TestVisibleNativeFollowsMovedMedia(t *testing.T) {
	call := &model.ToolCall{CallID: "c1", Tool: "read", Status: model.StatusCompleted, Output: "Image read successfully",
		Attachments: []model.File{{Mime: "image/png", URL: "data:image/png;base64," + pixel, Filename: "pixel.png"}}}
	asJSON := `[{"type":"text","text":"Image read successfully"},{"type":"media","mediaType":"image/png","data":"` + pixel + `"}]`
	for _, c := range []struct {
		p     Provider
		model string
		want  string
	}{
		{Anthropic, "claude-sonnet-4-5", asJSON},
		{OpenAIResponses, "gpt-5", asJSON},
		{OpenAIChat, "gpt-4o", "Image read successfully"},
		{Gemini, "gemini-2.5-flash", "Image read successfully"},
		{Gemini, "gemini-3-pro", asJSON},
		{Bedrock, "anthropic.claude-sonnet-4-5-20250929-v1:0", asJSON},
		{Bedrock, "mistral.mistral-large", "Image read successfully"},
	} {
		v := Visible(call, nil, c.p, Model{ModelID: c.model, Lowering: model.LoweringNative})
		if v.Text != c.want || v.Result.Type != model.ResultText || v.Why == "" {
			t.Errorf("%s %s: %q (%s; %s)", c.p, c.model, v.Text, v.Result.Type, v.Why)
		}
		if ai := Visible(call, nil, c.p, Model{ModelID: c.model}); ai.Text != "Image read successfully" || ai.Result.Type != model.ResultContent {
			t.Errorf("%s %s ai-sdk: %q (%s)", c.p, c.model, ai.Text, ai.Result.Type)
		}
	}
}
