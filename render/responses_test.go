package render

import (
	"encoding/json"
	"testing"
)

// Expectations come from @ai-sdk/openai's convertToOpenAIResponsesInput
// (the build bundled in opencode 1.18.33) and the wire literals observed in
// opencode-1.18-storage-and-wire.md and opencode-1.18-tool-output.md §6.1.

// expectConv compares a converter's output, as JSON.stringify would write
// it, with the expected JSON text.
func expectConv(t *testing.T, got []Value, want string) {
	t.Helper()
	b, err := Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestResponsesUser(t *testing.T) {
	prompt := []msg{{role: "user", parts: []part{
		{kind: pText, text: "look"},
		{kind: pFile, mime: "image/png", url: "data:image/png;base64,iVBOR"},
		{kind: pFile, mime: "application/pdf", url: "data:application/pdf;base64,JVBER"},
		{kind: pFile, mime: "application/pdf", url: "data:application/pdf;base64,JVBER", filename: "spec.pdf"},
		{kind: pFile, mime: "image/png", url: "https://example.com/a.png"},
	}}}
	expectConv(t, openAIResponses(prompt, nil), `[{"role":"user","content":[`+
		`{"type":"input_text","text":"look"},`+
		`{"type":"input_image","image_url":"data:image/png;base64,iVBOR"},`+
		`{"type":"input_file","filename":"part-2.pdf","file_data":"data:application/pdf;base64,JVBER"},`+
		`{"type":"input_file","filename":"spec.pdf","file_data":"data:application/pdf;base64,JVBER"},`+
		`{"type":"input_image","image_url":"https://example.com/a.png"}]}]`)
}

func TestResponsesUserDataURLTypeWins(t *testing.T) {
	// convertToLanguageModelPrompt takes a data: URL's own media type.
	prompt := []msg{{role: "user", parts: []part{{kind: pFile, mime: "image/png", url: "data:image/jpeg;base64,/9j/"}}}}
	expectConv(t, openAIResponses(prompt, nil), `[{"role":"user","content":[{"type":"input_image","image_url":"data:image/jpeg;base64,/9j/"}]}]`)
}

func TestResponsesStep(t *testing.T) {
	// The stored item ids are stripped by opencode: no id, no item_reference.
	prompt := []msg{
		{role: "user", parts: []part{{kind: pText, text: "run it"}}},
		{role: "assistant", parts: []part{
			{kind: pReasoning, text: "I will run it.", meta: json.RawMessage(`{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"gAAAA"}}`)},
			{kind: pText, text: "Running.", meta: json.RawMessage(`{"openai":{"itemId":"msg_1"}}`)},
			{kind: pToolCall, callID: "call_1", tool: "bash", input: json.RawMessage(`{"command": "echo hello"}`), meta: json.RawMessage(`{"openai":{"itemId":"fc_1"}}`)},
			{kind: pToolCall, callID: "call_2", tool: "read", input: json.RawMessage(`{"filePath":"/home/user/proj/nosuchfile.txt"}`)},
		}},
		{role: "tool", parts: []part{
			{kind: pToolResult, callID: "call_1", tool: "bash", out: output{kind: outText, value: "hello\n"}},
			{kind: pToolResult, callID: "call_2", tool: "read", out: output{kind: outErrorText, value: "File not found: /home/user/proj/nosuchfile.txt"}},
		}},
	}
	expectConv(t, openAIResponses(prompt, nil), `[`+
		`{"role":"user","content":[{"type":"input_text","text":"run it"}]},`+
		`{"type":"reasoning","encrypted_content":"gAAAA","summary":[{"type":"summary_text","text":"I will run it."}]},`+
		`{"role":"assistant","content":[{"type":"output_text","text":"Running."}]},`+
		`{"type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"command\":\"echo hello\"}"},`+
		`{"type":"function_call","call_id":"call_2","name":"read","arguments":"{\"filePath\":\"/home/user/proj/nosuchfile.txt\"}"},`+
		`{"type":"function_call_output","call_id":"call_1","output":"hello\n"},`+
		`{"type":"function_call_output","call_id":"call_2","output":"File not found: /home/user/proj/nosuchfile.txt"}]`)
}

func TestResponsesReasoning(t *testing.T) {
	// Without item ids every reasoning part is its own item; empty text
	// gives an empty summary; reasoning without encrypted content (another
	// model's, whose metadata is dropped) is skipped.
	prompt := []msg{{role: "assistant", parts: []part{
		{kind: pReasoning, text: "first", meta: json.RawMessage(`{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"A"}}`)},
		{kind: pReasoning, text: "second", meta: json.RawMessage(`{"openai":{"itemId":"rs_1","reasoningEncryptedContent":"B"}}`)},
		{kind: pReasoning, text: "", meta: json.RawMessage(`{"openai":{"itemId":"rs_2","reasoningEncryptedContent":"C"}}`)},
		{kind: pReasoning, text: "foreign"},
		{kind: pReasoning, text: "null content", meta: json.RawMessage(`{"openai":{"reasoningEncryptedContent":null}}`)},
	}}}
	expectConv(t, openAIResponses(prompt, nil), `[`+
		`{"type":"reasoning","encrypted_content":"A","summary":[{"type":"summary_text","text":"first"}]},`+
		`{"type":"reasoning","encrypted_content":"B","summary":[{"type":"summary_text","text":"second"}]},`+
		`{"type":"reasoning","encrypted_content":"C","summary":[]}]`)
}

func TestResponsesAssistantText(t *testing.T) {
	// An empty text is dropped unless it has provider options; phase and
	// namespace are passed on.
	prompt := []msg{{role: "assistant", parts: []part{
		{kind: pText, text: ""},
		{kind: pText, text: "", meta: json.RawMessage(`{"openai":{"itemId":"msg_1"}}`)},
		{kind: pText, text: "done", meta: json.RawMessage(`{"openai":{"itemId":"msg_2","phase":"final_answer"}}`)},
		{kind: pToolCall, callID: "call_1", tool: "lookup", meta: json.RawMessage(`{"openai":{"namespace":"mcp"}}`)},
	}}}
	expectConv(t, openAIResponses(prompt, nil), `[`+
		`{"role":"assistant","content":[{"type":"output_text","text":""}]},`+
		`{"role":"assistant","content":[{"type":"output_text","text":"done"}],"phase":"final_answer"},`+
		`{"type":"function_call","call_id":"call_1","name":"lookup","arguments":"{}","namespace":"mcp"}]`)
}

func TestResponsesContentOutput(t *testing.T) {
	prompt := []msg{{role: "tool", parts: []part{
		{kind: pToolResult, callID: "call_3", tool: "read", out: output{kind: outContent, items: []outputItem{
			{text: "Image read successfully"},
			{media: true, mediaType: "image/png", data: "iVBOR"},
			{media: true, mediaType: "application/pdf", data: "JVBER"},
		}}},
	}}}
	expectConv(t, openAIResponses(prompt, nil), `[{"type":"function_call_output","call_id":"call_3","output":[`+
		`{"type":"input_text","text":"Image read successfully"},`+
		`{"type":"input_image","image_url":"data:image/png;base64,iVBOR"},`+
		`{"type":"input_file","filename":"data","file_data":"data:application/pdf;base64,JVBER"}]}]`)
}
