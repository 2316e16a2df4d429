package render

import "testing"

// Expectations come from @ai-sdk/amazon-bedrock's
// convertToBedrockChatMessages (the 4.0.159 source, and the 4.0.166 build
// bundled in opencode 1.18.33 where they differ) and the literals observed
// on the wire (shared/reference/opencode-1.18-*.md).

var bedrockCachePointJSON = `{"cachePoint":{"type":"default"}}`

// The observed call, result, error (no status, no flag) and image literals;
// cache points follow the last block of the last two messages.
func TestBedrockToolRoundTrip(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("run it")}},
		{role: "assistant", cache: true, parts: []part{
			fxCall("tooluse_1", "bash", `{"command":"echo hello"}`),
			fxCall("tooluse_2", "read", `{"filePath":"/home/user/proj/pixel.png"}`),
			fxCall("tooluse_3", "read", `{"filePath":"/home/user/proj/nosuchfile.txt"}`),
		}},
		{role: "tool", cache: true, parts: []part{
			fxResult("tooluse_1", "bash", outText, "hello\n"),
			fxImageResult("tooluse_2", "read", "Image read successfully", "image/png", "iVBORw0KGgo="),
			fxResult("tooluse_3", "read", outErrorText, "File not found: /home/user/proj/nosuchfile.txt"),
		}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"user","content":[{"text":"run it"}]},
		{"role":"assistant","content":[
			{"toolUse":{"toolUseId":"tooluse_1","name":"bash","input":{"command":"echo hello"}}},
			{"toolUse":{"toolUseId":"tooluse_2","name":"read","input":{"filePath":"/home/user/proj/pixel.png"}}},
			{"toolUse":{"toolUseId":"tooluse_3","name":"read","input":{"filePath":"/home/user/proj/nosuchfile.txt"}}},
			`+bedrockCachePointJSON+`]},
		{"role":"user","content":[
			{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"hello\n"}]}},
			{"toolResult":{"toolUseId":"tooluse_2","content":[{"text":"Image read successfully"},{"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}}]}},
			{"toolResult":{"toolUseId":"tooluse_3","content":[{"text":"File not found: /home/user/proj/nosuchfile.txt"}]}},
			`+bedrockCachePointJSON+`]}
	]`)
}

// groupIntoBlocks, with a cache point after every marked message of a
// block and after every marked part.
func TestBedrockGrouping(t *testing.T) {
	marked := fxText("d")
	marked.cache = true
	prompt := []msg{
		{role: "user", parts: []part{fxText("a")}},
		{role: "assistant", parts: []part{fxText("b")}},
		{role: "assistant", parts: []part{fxCall("c1", "glob", `{}`)}},
		{role: "tool", cache: true, parts: []part{fxResult("c1", "glob", outText, "No files found")}},
		{role: "user", cache: true, parts: []part{marked, fxText("e")}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"user","content":[{"text":"a"}]},
		{"role":"assistant","content":[{"text":"b"},{"toolUse":{"toolUseId":"c1","name":"glob","input":{}}}]},
		{"role":"user","content":[
			{"toolResult":{"toolUseId":"c1","content":[{"text":"No files found"}]}},`+bedrockCachePointJSON+`,
			{"text":"d"},`+bedrockCachePointJSON+`,
			{"text":"e"},`+bedrockCachePointJSON+`]}
	]`)
}

// Reasoning is replayed with a {"bedrock":{"signature"}} (text untrimmed),
// as redactedReasoning with redactedData; unsigned reasoning, and an
// Anthropic signature, are not replayed.
func TestBedrockReasoning(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", parts: []part{
			fxReasoning("plain", ""),
			fxReasoning("anthropic", `{"anthropic":{"signature":"x"}}`),
			fxReasoning(" think \n", `{"bedrock":{"signature":"sig=="}}`),
			fxReasoning("hidden", `{"bedrock":{"redactedData":"abc"}}`),
			fxText("answer"),
		}},
		{role: "user", parts: []part{fxText("next")}},
	}
	checkWireJSON(t, bedrock(prompt, nil)[1:2], `[
		{"role":"assistant","content":[
			{"reasoningContent":{"reasoningText":{"text":" think \n","signature":"sig=="}}},
			{"reasoningContent":{"redactedReasoning":{"data":"abc"}}},
			{"text":"answer"}]}
	]`)
}

// Blank texts are skipped unless their message has reasoning that is
// replayed (4.0.166; 4.0.159 counted any reasoning); a skipped part's cache
// point is still pushed. The last text of a prompt that ends with an
// assistant block is trimmed.
func TestBedrockBlankAndTrim(t *testing.T) {
	blank := fxText("  \n")
	blank.cache = true
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", parts: []part{blank, fxText(" kept \n")}},
		{role: "user", parts: []part{fxText("again")}},
		{role: "assistant", parts: []part{fxReasoning("r", ""), fxText(" \n")}},
		{role: "assistant", parts: []part{fxReasoning("s", `{"bedrock":{"signature":"x"}}`), fxText(" \n")}},
		{role: "assistant", parts: []part{fxText(" a \n"), fxText(" last \n")}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"user","content":[{"text":"q"}]},
		{"role":"assistant","content":[`+bedrockCachePointJSON+`,{"text":" kept \n"}]},
		{"role":"user","content":[{"text":"again"}]},
		{"role":"assistant","content":[
			{"reasoningContent":{"reasoningText":{"text":"s","signature":"x"}}},{"text":" \n"},
			{"text":" a \n"},{"text":"last"}]}
	]`)
}

// 4.0.166: an assistant message with nothing but cache points is not sent,
// and the user block after it joins the user message before.
func TestBedrockDropsEmptyAssistant(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", cache: true, parts: []part{fxReasoning("unsigned", ""), fxText(" ")}},
		{role: "user", parts: []part{fxText("again")}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"user","content":[{"text":"q"},{"text":"again"}]}
	]`)
}

// sanitizeToolName drops characters outside [a-zA-Z0-9_-]; an input that is
// not an object is wrapped as rawInvalidInput.
func TestBedrockToolUse(t *testing.T) {
	prompt := []msg{
		{role: "assistant", parts: []part{
			fxCall("a", "mcp.server/tool", `{"k":1}`),
			fxCall("b", "...", `"text"`),
			fxCall("c", "bash", ``),
		}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"assistant","content":[
			{"toolUse":{"toolUseId":"a","name":"mcpservertool","input":{"k":1}}},
			{"toolUse":{"toolUseId":"b","name":"_","input":{"rawInvalidInput":"text"}}},
			{"toolUse":{"toolUseId":"c","name":"bash","input":{}}}]}
	]`)
}

// Documents are named after the file name up to its first dot, else
// document-N counted over the whole prompt; images take Bedrock's format
// names.
func TestBedrockFiles(t *testing.T) {
	res := fxImageResult("t1", "read", "two files", "image/jpeg", "/9j/")
	res.out.items = append(res.out.items, outputItem{media: true, mediaType: "application/pdf", data: "JVBERi0="})
	prompt := []msg{
		{role: "user", parts: []part{
			{kind: pFile, mime: "application/pdf", url: "data:application/pdf;base64,JVBERi0=", filename: "report.v2.pdf"},
			{kind: pFile, mime: "text/csv", url: "data:text/csv;base64,YSxi"},
			{kind: pFile, mime: "image/webp", url: "data:image/webp;base64,UklGRg=="},
		}},
		{role: "assistant", parts: []part{fxCall("t1", "read", `{}`)}},
		{role: "tool", parts: []part{res}},
	}
	checkWireJSON(t, bedrock(prompt, nil), `[
		{"role":"user","content":[
			{"document":{"format":"pdf","name":"report","source":{"bytes":"JVBERi0="}}},
			{"document":{"format":"csv","name":"document-1","source":{"bytes":"YSxi"}}},
			{"image":{"format":"webp","source":{"bytes":"UklGRg=="}}}]},
		{"role":"assistant","content":[{"toolUse":{"toolUseId":"t1","name":"read","input":{}}}]},
		{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[
			{"text":"two files"},
			{"image":{"format":"jpeg","source":{"bytes":"/9j/"}}},
			{"document":{"format":"pdf","name":"document-2","source":{"bytes":"JVBERi0="}}}]}}]}
	]`)
}

func TestStripFileExtension(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf": "report", "archive.tar.gz": "archive", "filename": "filename",
		".env": ".env", ".hidden.txt": ".hidden",
	} {
		if got := stripFileExtension(in); got != want {
			t.Errorf("stripFileExtension(%q) = %q, want %q", in, got, want)
		}
	}
}

// opencode 1.18.33's supportsMediaInToolResults for @ai-sdk/amazon-bedrock:
// images only, for Anthropic, Nova and Llama 4 models; the rest goes to the
// "Attached media" user message.
func TestBedrockMediaInToolResults(t *testing.T) {
	for _, c := range []struct {
		model, mime string
		want        bool
	}{
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", "image/png", true},
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", "application/pdf", false},
		{"amazon.nova-pro-v1:0", "image/jpeg", true},
		{"meta.llama4-maverick-17b-instruct-v1:0", "image/png", true},
		{"meta.llama3-70b-instruct-v1:0", "image/png", false},
	} {
		if got := mediaInToolResults(Bedrock, Model{ProviderID: "amazon-bedrock", ModelID: c.model}, c.mime); got != c.want {
			t.Errorf("%s %s: got %v, want %v", c.model, c.mime, got, c.want)
		}
	}
}

// opencode 1.18.33's normalizeMessages: empty texts go; reasoning stays for
// Anthropic with non-blank text, a signature or redacted data, for Bedrock
// only with a signature or redacted content/data under the provider id or
// "bedrock"; a message left empty goes.
func TestNormalizeReasoning(t *testing.T) {
	m := Model{ProviderID: "amazon-bedrock", ModelID: "anthropic.claude-sonnet-4-5-20250929-v1:0"}
	in := func() []msg {
		return []msg{
			{role: "assistant", parts: []part{fxText("")}},
			{role: "assistant", parts: []part{
				fxReasoning("", `{"anthropic":{"signature":"a"}}`),
				fxReasoning("  ", ""),
				fxReasoning("text", ""),
				fxReasoning("", `{"bedrock":{"signature":"b"}}`),
				fxReasoning("", `{"amazon-bedrock":{"redactedContent":"c"}}`),
			}},
		}
	}
	reasoningTexts := func(msgs []msg) (out []string) {
		for _, ms := range msgs {
			for _, pt := range ms.parts {
				out = append(out, string(pt.meta)+pt.text)
			}
		}
		return out
	}
	got := normalize(in(), Anthropic, m)
	if len(got) != 1 || len(got[0].parts) != 2 || got[0].parts[0].meta == nil || got[0].parts[1].text != "text" {
		t.Errorf("anthropic: %q", reasoningTexts(got))
	}
	got = normalize(in(), Bedrock, m)
	if len(got) != 1 || len(got[0].parts) != 2 || string(got[0].parts[0].meta) != `{"bedrock":{"signature":"b"}}` ||
		string(got[0].parts[1].meta) != `{"amazon-bedrock":{"redactedContent":"c"}}` {
		t.Errorf("bedrock: %q", reasoningTexts(got))
	}
}
