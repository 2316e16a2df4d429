package render

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Expectations come from @ai-sdk/anthropic 3.0.111's
// convertToAnthropicMessagesPrompt and the literals observed on the wire
// (shared/reference/opencode-1.18-*.md).

// checkWireJSON compares a converter's output with the expected JSON byte
// for byte, key order included (want may be indented).
func checkWireJSON(t *testing.T, got []Value, want string) {
	t.Helper()
	raw, err := Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := json.Compact(&w, []byte(want)); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !bytes.Equal(raw, w.Bytes()) {
		t.Errorf("got\n%s\nwant\n%s", raw, w.Bytes())
	}
}

func fxText(s string) part { return part{kind: pText, text: s} }

func fxCall(id, tool, input string) part {
	return part{kind: pToolCall, callID: id, tool: tool, input: json.RawMessage(input)}
}

func fxResult(id, tool string, kind outputKind, value string) part {
	return part{kind: pToolResult, callID: id, tool: tool, out: output{kind: kind, value: value}}
}

func fxReasoning(s, meta string) part {
	p := part{kind: pReasoning, text: s}
	if meta != "" {
		p.meta = json.RawMessage(meta)
	}
	return p
}

func fxImageResult(id, tool, text, mediaType, data string) part {
	return part{kind: pToolResult, callID: id, tool: tool, out: output{kind: outContent, items: []outputItem{
		{text: text}, {media: true, mediaType: mediaType, data: data},
	}}}
}

// The observed call, result and error literals; opencode's message-level
// cache markers land on the last block of the last two messages.
func TestAnthropicToolRoundTrip(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("run it")}},
		{role: "assistant", cache: true, parts: []part{
			fxCall("toolu_01", "bash", `{"command": "echo hello"}`),
			fxCall("toolu_02", "read", `{"filePath":"/home/user/proj/nosuchfile.txt"}`),
		}},
		{role: "tool", cache: true, parts: []part{
			fxResult("toolu_01", "bash", outText, "hello\n"),
			fxResult("toolu_02", "read", outErrorText, "File not found: /home/user/proj/nosuchfile.txt"),
		}},
	}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[{"type":"text","text":"run it"}]},
		{"role":"assistant","content":[
			{"type":"tool_use","id":"toolu_01","name":"bash","input":{"command":"echo hello"}},
			{"type":"tool_use","id":"toolu_02","name":"read","input":{"filePath":"/home/user/proj/nosuchfile.txt"},"cache_control":{"type":"ephemeral"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_01","content":"hello\n"},
			{"type":"tool_result","tool_use_id":"toolu_02","content":"File not found: /home/user/proj/nosuchfile.txt","is_error":true,"cache_control":{"type":"ephemeral"}}]}
	]`)
}

// groupIntoBlocks: a tool message and the user message after it share one
// user message, consecutive assistant messages one assistant message, and
// each message's own last part takes its message-level marker.
func TestAnthropicGrouping(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("a")}},
		{role: "assistant", parts: []part{fxText("b")}},
		{role: "assistant", parts: []part{fxCall("c1", "glob", `{}`)}},
		{role: "tool", cache: true, parts: []part{fxResult("c1", "glob", outText, "No files found")}},
		{role: "user", cache: true, parts: []part{fxText("d"), fxText("e")}},
	}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[{"type":"text","text":"a"}]},
		{"role":"assistant","content":[{"type":"text","text":"b"},{"type":"tool_use","id":"c1","name":"glob","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"c1","content":"No files found","cache_control":{"type":"ephemeral"}},
			{"type":"text","text":"d"},
			{"type":"text","text":"e","cache_control":{"type":"ephemeral"}}]}
	]`)
}

// A part-level marker stays on its part; the message-level one only goes
// to the last part.
func TestAnthropicPartCache(t *testing.T) {
	first := fxText("x")
	first.cache = true
	prompt := []msg{{role: "user", parts: []part{first, fxText("y")}}}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}},{"type":"text","text":"y"}]}
	]`)
}

// Reasoning: signature → thinking, redactedData → redacted_thinking, any
// other reasoning is left out ("unsupported reasoning metadata"). Thinking
// blocks never take cache_control, even as a cached message's last part.
func TestAnthropicReasoning(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", cache: true, parts: []part{
			fxReasoning("plain", ""),
			fxReasoning("other", `{"openai":{"itemId":"rs_1"}}`),
			fxReasoning("redacted", `{"anthropic":{"redactedData":"abc"}}`),
			fxText("answer"),
			fxReasoning("think", `{"anthropic":{"signature":"sig=="}}`),
		}},
		{role: "user", parts: []part{fxText("next")}},
	}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[{"type":"text","text":"q"}]},
		{"role":"assistant","content":[
			{"type":"redacted_thinking","data":"abc"},
			{"type":"text","text":"answer"},
			{"type":"thinking","thinking":"think","signature":"sig=="}]},
		{"role":"user","content":[{"type":"text","text":"next"}]}
	]`)
}

// moveToolUseBlocksToEnd: between thinking blocks, tool_use blocks go after
// the other blocks.
func TestAnthropicToolUseLast(t *testing.T) {
	sig := `{"anthropic":{"signature":"s"}}`
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", parts: []part{
			fxReasoning("t1", sig), fxCall("a", "bash", `{"command":"ls"}`), fxText("one"),
			fxReasoning("t2", sig), fxCall("b", "bash", `{"command":"pwd"}`), fxText("two"), fxCall("c", "read", `{}`), fxText("three"),
		}},
		{role: "tool", parts: []part{fxResult("a", "bash", outText, "x"), fxResult("b", "bash", outText, "y"), fxResult("c", "read", outText, "z")}},
	}
	got := anthropic(prompt, nil)
	checkWireJSON(t, got[1:2], `[
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"t1","signature":"s"},
			{"type":"text","text":"one"},
			{"type":"tool_use","id":"a","name":"bash","input":{"command":"ls"}},
			{"type":"thinking","thinking":"t2","signature":"s"},
			{"type":"text","text":"two"},
			{"type":"text","text":"three"},
			{"type":"tool_use","id":"b","name":"bash","input":{"command":"pwd"}},
			{"type":"tool_use","id":"c","name":"read","input":{}}]}
	]`)
}

// The last text part of the last message, when the prompt ends with an
// assistant block, is trim()med on both sides; earlier texts are not.
func TestAnthropicTrimsLastAssistantText(t *testing.T) {
	prompt := []msg{
		{role: "user", parts: []part{fxText("q")}},
		{role: "assistant", parts: []part{fxText(" keep \n")}},
		{role: "user", parts: []part{fxText("again")}},
		{role: "assistant", parts: []part{fxText(" first \n"), fxText("\ufeff  last \n\t")}},
	}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[{"type":"text","text":"q"}]},
		{"role":"assistant","content":[{"type":"text","text":" keep \n"}]},
		{"role":"user","content":[{"type":"text","text":"again"}]},
		{"role":"assistant","content":[{"type":"text","text":" first \n"},{"type":"text","text":"last"}]}
	]`)
}

// A content result (read of an image): text and image blocks; the observed
// literal is [{"type":"text","text":"Image read successfully"},
// {"type":"image","source":{"type":"base64","media_type":"image/png","data":…}}].
// A PDF is a document; other media are dropped.
func TestAnthropicContentResult(t *testing.T) {
	res := fxImageResult("toolu_03", "read", "Image read successfully", "image/png", "iVBORw0KGgo=")
	res.out.items = append(res.out.items,
		outputItem{media: true, mediaType: "application/pdf", data: "JVBERi0="},
		outputItem{media: true, mediaType: "audio/wav", data: "UklGRg=="})
	prompt := []msg{
		{role: "assistant", parts: []part{fxCall("toolu_03", "read", `{"filePath":"/home/user/proj/pixel.png"}`)}},
		{role: "tool", parts: []part{res}},
	}
	checkWireJSON(t, anthropic(prompt, nil)[1:], `[
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_03","content":[
			{"type":"text","text":"Image read successfully"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}]}
	]`)
}

// User files: an image from a data: URL is a base64 image block with the
// URL's media type, a PDF a document titled with the file name, an http
// URL a url source.
func TestAnthropicUserFiles(t *testing.T) {
	prompt := []msg{{role: "user", cache: true, parts: []part{
		fxText("look"),
		{kind: pFile, mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "pixel.png"},
		{kind: pFile, mime: "application/pdf", url: "data:application/pdf;base64,JVBERi0=", filename: "doc.pdf"},
		{kind: pFile, mime: "image/jpeg", url: "https://example.com/cat.jpg"},
	}}}
	checkWireJSON(t, anthropic(prompt, nil), `[
		{"role":"user","content":[
			{"type":"text","text":"look"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"doc.pdf"},
			{"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"},"cache_control":{"type":"ephemeral"}}]}
	]`)
}

func TestTrimJS(t *testing.T) {
	for in, want := range map[string]string{
		"  a b \n":       "a b",
		"\ufeffa\u3000":  "a",
		"\u0085a\u0085":  "\u0085a\u0085", // NEL is not JavaScript white space
		"\u2028a\u200a":  "a",
		"\t\v\f\r\u00a0": "",
	} {
		if got := trimJS(in); got != want {
			t.Errorf("trimJS(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMoveToolUseToEnd: over every sequence of up to six text, tool_use
// and thinking blocks, the tool_use blocks between thinking blocks come
// after the others, each kind in its order, and content already so
// ordered is kept as it is (the fast path).
func TestMoveToolUseToEnd(t *testing.T) {
	kinds := []string{"text", "tool_use", "thinking"}
	var each func(prefix []string)
	checked := 0
	each = func(prefix []string) {
		content := make([]fromPart, len(prefix))
		for i, k := range prefix {
			content[i] = fromPart{o: Obj{{"type", k}, {"i", i}}}
		}
		// want: each run between thinking blocks, its others then its tool_uses
		var want []int
		var others, uses []int
		flush := func() { want, others, uses = append(append(want, others...), uses...), nil, nil }
		for i, k := range prefix {
			switch k {
			case "thinking":
				flush()
				want = append(want, i)
			case "tool_use":
				uses = append(uses, i)
			default:
				others = append(others, i)
			}
		}
		flush()
		got := moveToolUseToEnd(content)
		if len(got) != len(want) {
			t.Fatalf("%v: %d blocks, want %d", prefix, len(got), len(want))
		}
		for j, c := range got {
			if i, _ := c.o.Get("i"); i != want[j] {
				t.Fatalf("%v: block %d is %v, want %d", prefix, j, i, want[j])
			}
		}
		checked++
		if len(prefix) < 6 {
			for _, k := range kinds {
				each(append(prefix[:len(prefix):len(prefix)], k))
			}
		}
	}
	each(nil)
	if checked != 1093 { // 3^0 + … + 3^6
		t.Fatalf("checked %d sequences", checked)
	}
}
