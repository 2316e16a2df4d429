package render

import (
	"encoding/json"
	"testing"
)

// Expectations come from convertToGoogleGenerativeAIMessages of the
// @ai-sdk/google bundled in opencode 1.18.33 and the wire literals observed
// in opencode-1.18-storage-and-wire.md and opencode-1.18-tool-output.md §6.1.

func TestGeminiStep(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{{kind: pText, text: "run it"}}},
		{role: "assistant", parts: []part{
			{kind: pReasoning, text: "I will run it."},
			{kind: pText, text: "Running."},
			{kind: pToolCall, callID: "oc_1", tool: "bash", input: json.RawMessage(`{"command":"echo hello"}`), meta: json.RawMessage(`{"google":{"thoughtSignature":"CiQB"}}`)},
			{kind: pToolCall, callID: "oc_2", tool: "read", input: json.RawMessage(`{"filePath":"/home/user/proj/nosuchfile.txt"}`)},
		}},
		{role: "tool", parts: []part{
			{kind: pToolResult, callID: "oc_1", tool: "bash", out: output{kind: outText, value: "hello\n"}},
			{kind: pToolResult, callID: "oc_2", tool: "read", out: output{kind: outErrorText, value: "File not found: /home/user/proj/nosuchfile.txt"}},
		}},
	}
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[`+
		`{"role":"user","parts":[{"text":"run it"}]},`+
		`{"role":"model","parts":[{"text":"I will run it.","thought":true},{"text":"Running."},`+
		`{"functionCall":{"name":"bash","args":{"command":"echo hello"}},"thoughtSignature":"CiQB"},`+
		`{"functionCall":{"name":"read","args":{"filePath":"/home/user/proj/nosuchfile.txt"}}}]},`+
		`{"role":"user","parts":[`+
		`{"functionResponse":{"name":"bash","response":{"name":"bash","content":"hello\n"}}},`+
		`{"functionResponse":{"name":"read","response":{"name":"read","content":"File not found: /home/user/proj/nosuchfile.txt"}}}]}]`)
}

func TestGeminiThoughtSignatures(t *testing.T) {
	// Every part carries its signature; google wins over vertex, vertex is
	// the fallback, and a null google entry falls through.
	prompt := []msg{{role: "assistant", parts: []part{
		{kind: pReasoning, text: "think", meta: json.RawMessage(`{"google":{"thoughtSignature":"R1"}}`)},
		{kind: pText, text: "say", meta: json.RawMessage(`{"google":{"thoughtSignature":"T1"},"vertex":{"thoughtSignature":"V1"}}`)},
		{kind: pToolCall, tool: "glob", input: json.RawMessage(`{}`), meta: json.RawMessage(`{"vertex":{"thoughtSignature":"V2"}}`)},
		{kind: pToolCall, tool: "grep", input: json.RawMessage(`{}`), meta: json.RawMessage(`{"google":null,"vertex":{"thoughtSignature":"V3"}}`)},
		{kind: pToolCall, tool: "read", input: json.RawMessage(`{}`), meta: json.RawMessage(`{"anthropic":{"signature":"x"}}`)},
	}}}
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[{"role":"model","parts":[`+
		`{"text":"think","thought":true,"thoughtSignature":"R1"},`+
		`{"text":"say","thoughtSignature":"T1"},`+
		`{"functionCall":{"name":"glob","args":{}},"thoughtSignature":"V2"},`+
		`{"functionCall":{"name":"grep","args":{}},"thoughtSignature":"V3"},`+
		`{"functionCall":{"name":"read","args":{}}}]}]`)
}

func TestGeminiEmptyParts(t *testing.T) {
	// Empty text and reasoning are dropped, and a model content left
	// without parts is dropped (3.0.73); texts are not trimmed. A tool
	// message is always a user content.
	prompt := []msg{
		{role: "user", parts: []part{{kind: pText, text: "go "}}},
		{role: "assistant", parts: []part{{kind: pReasoning, text: ""}, {kind: pText, text: ""}}},
		{role: "assistant", parts: []part{{kind: pText, text: "ok \n"}}},
		{role: "tool"},
	}
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[`+
		`{"role":"user","parts":[{"text":"go "}]},`+
		`{"role":"model","parts":[{"text":"ok \n"}]},`+
		`{"role":"user","parts":[]}]`)
}

func TestGeminiAttachedMedia(t *testing.T) {
	// Before gemini-3 opencode moves the image out of the tool result into
	// its own user message; it stays a content of its own.
	prompt := []msg{
		{role: "assistant", parts: []part{{kind: pToolCall, tool: "read", input: json.RawMessage(`{"filePath":"/home/user/proj/pixel.png"}`)}}},
		{role: "tool", parts: []part{{kind: pToolResult, tool: "read", out: output{kind: outText, value: "Image read successfully"}}}},
		{role: "user", parts: []part{
			{kind: pText, text: "Attached media from tool result:"},
			{kind: pFile, mime: "image/png", url: "data:image/png;base64,iVBOR"},
		}},
	}
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[`+
		`{"role":"model","parts":[{"functionCall":{"name":"read","args":{"filePath":"/home/user/proj/pixel.png"}}}]},`+
		`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"name":"read","content":"Image read successfully"}}}]},`+
		`{"role":"user","parts":[{"text":"Attached media from tool result:"},{"inlineData":{"mimeType":"image/png","data":"iVBOR"}}]}]`)
}

func TestGeminiUserFiles(t *testing.T) {
	prompt := []msg{{role: "user", parts: []part{
		{kind: pFile, mime: "application/pdf", url: "data:application/pdf;base64,JVBER"},
		// a URL the model takes as it is (the Files API); others are downloaded
		{kind: pFile, mime: "image/*", url: "https://generativelanguage.googleapis.com/v1beta/files/abc"},
	}}}
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[{"role":"user","parts":[`+
		`{"inlineData":{"mimeType":"application/pdf","data":"JVBER"}},`+
		`{"fileData":{"mimeType":"image/jpeg","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]`)
}

func contentResult(items ...outputItem) []msg {
	return []msg{{role: "tool", parts: []part{{kind: pToolResult, tool: "read", out: output{kind: outContent, items: items}}}}}
}

func TestGeminiContentResultGemini3(t *testing.T) {
	prompt := contentResult(outputItem{text: "Image read successfully"}, outputItem{media: true, mediaType: "image/png", data: "iVBOR"})
	expectConv(t, gemini(prompt, "gemini-3-pro-preview", nil), `[{"role":"user","parts":[`+
		`{"functionResponse":{"name":"read","response":{"name":"read","content":"Image read successfully"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBOR"}}]}}]}]`)

	// texts are joined by newlines; no text gives the stock sentence
	prompt = contentResult(outputItem{text: "a"}, outputItem{text: "b"})
	expectConv(t, gemini(prompt, "gemini-3.1-pro", nil), `[{"role":"user","parts":[`+
		`{"functionResponse":{"name":"read","response":{"name":"read","content":"a\nb"}}}]}]`)
	prompt = contentResult(outputItem{media: true, mediaType: "application/pdf", data: "JVBER"})
	expectConv(t, gemini(prompt, "gemini-3-flash", nil), `[{"role":"user","parts":[`+
		`{"functionResponse":{"name":"read","response":{"name":"read","content":"Tool executed successfully."},"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBER"}}]}}]}]`)
}

func TestGeminiContentResultLegacy(t *testing.T) {
	prompt := contentResult(
		outputItem{text: "Image read successfully"},
		outputItem{media: true, mediaType: "image/png", data: "iVBOR"},
		outputItem{media: true, mediaType: "application/pdf", data: "JVBER"},
	)
	expectConv(t, gemini(prompt, "gemini-2.5-pro", nil), `[{"role":"user","parts":[`+
		`{"functionResponse":{"name":"read","response":{"name":"read","content":"Image read successfully"}}},`+
		`{"inlineData":{"mimeType":"image/png","data":"iVBOR"}},`+
		`{"text":"Tool executed successfully and returned this image as a response"},`+
		`{"text":"{\"type\":\"file-data\",\"data\":\"JVBER\",\"mediaType\":\"application/pdf\"}"}]}]`)
}
