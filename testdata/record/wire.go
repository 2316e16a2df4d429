package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"strings"
	"time"
)

// answer is one scripted reply, ready to be encoded for a wire protocol.
type answer struct {
	step     step
	ids      ids
	inTokens int
	model    string
	oddIDs   bool // Chat tool call ids with ':' and '.' (scenario three: the per-model id rules)
}

func (a answer) outTokens() int {
	n := len(a.step.Text)
	for _, c := range a.step.Calls {
		n += len(c.Args) + len(c.Name)
	}
	return n/4 + 5
}

func (a answer) reasoningTokens() int { return len(a.step.Reasoning) / 4 }

// ids derives stable, realistic-looking ids from the flavour and the turn.
type ids struct{ seed string }

func newIDs(flavourName string, c *captured) ids {
	return ids{seed: fmt.Sprintf("%s/%s/%s/%d", flavourName, c.Kind, c.Scenario, c.Turn)}
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (x ids) raw(what string, n int) []byte {
	var out []byte
	for i := 0; len(out) < n; i++ {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%d", x.seed, what, i)))
		out = append(out, h[:]...)
	}
	return out[:n]
}

func (x ids) alnum(what string, n int) string {
	b := x.raw(what, n)
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}

func (x ids) hex(what string, n int) string { return fmt.Sprintf("%x", x.raw(what, (n+1)/2))[:n] }

func (x ids) b64(what string, n int) string { return base64.StdEncoding.EncodeToString(x.raw(what, n)) }

// chunks splits s into up to n pieces of similar size (at least one).
func chunks(s string, n int) []string {
	r := []rune(s)
	if len(r) == 0 {
		return []string{""}
	}
	if n > len(r) {
		n = len(r)
	}
	var out []string
	size := (len(r) + n - 1) / n
	for i := 0; i < len(r); i += size {
		j := min(i+size, len(r))
		out = append(out, string(r[i:j]))
	}
	return out
}

// sse writes server-sent events and flushes after each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) data(v rawJSON) { s.event("", v) }

func (s *sse) event(name string, v rawJSON) {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: " + string(v) + "\n\n")
	_, _ = s.w.Write([]byte(b.String()))
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sse) done() {
	_, _ = s.w.Write([]byte("data: [DONE]\n\n"))
	if s.f != nil {
		s.f.Flush()
	}
}

func writeStream(w http.ResponseWriter, wire string, a answer) {
	switch wire {
	case "chat":
		streamChat(w, a)
	case "anthropic":
		streamAnthropic(w, a)
	case "gemini":
		streamGemini(w, a)
	case "responses":
		streamResponses(w, a, nil)
	case "bedrock":
		streamBedrock(w, a)
	}
}

var created = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// ---- OpenAI Chat Completions ----

func streamChat(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	id := "chatcmpl-" + a.ids.alnum("chatcmpl", 29)
	chunk := func(choices rawJSON) rawJSON {
		return J("id", id, "object", "chat.completion.chunk", "created", created, "model", a.model,
			"system_fingerprint", "fp_oracle", "choices", choices)
	}
	delta := func(d rawJSON, finish any) rawJSON {
		return chunk(A(J("index", 0, "delta", d, "logprobs", nil, "finish_reason", finish)))
	}
	s.data(delta(J("role", "assistant", "content", ""), nil))
	if a.step.Reasoning != "" {
		// DeepSeek-style reasoning deltas, read by @ai-sdk/openai-compatible
		for _, piece := range chunks(a.step.Reasoning, 3) {
			s.data(delta(J("reasoning_content", piece), nil))
		}
	}
	if a.step.Text != "" {
		for _, piece := range chunks(a.step.Text, 3) {
			s.data(delta(J("content", piece), nil))
		}
	}
	for i, c := range a.step.Calls {
		callID := "call_" + a.ids.alnum(fmt.Sprintf("call%d", i), 24)
		if a.oddIDs {
			callID = "call:" + a.ids.alnum(fmt.Sprintf("call%d", i), 12) + ".v1"
		}
		s.data(delta(J("tool_calls", A(J("index", i, "id", callID, "type", "function",
			"function", J("name", c.Name, "arguments", "")))), nil))
		for _, piece := range chunks(c.Args, 2) {
			s.data(delta(J("tool_calls", A(J("index", i, "function", J("arguments", piece)))), nil))
		}
	}
	finish := "stop"
	if len(a.step.Calls) > 0 {
		finish = "tool_calls"
	}
	s.data(delta(J(), finish))
	out := a.outTokens()
	s.data(chunk(A()).withUsage(J("prompt_tokens", a.inTokens, "completion_tokens", out, "total_tokens", a.inTokens+out,
		"prompt_tokens_details", J("cached_tokens", 0), "completion_tokens_details", J("reasoning_tokens", 0))))
	s.done()
}

// withUsage appends a "usage" member to a JSON object.
func (r rawJSON) withUsage(u rawJSON) rawJSON {
	s := string(r)
	return rawJSON(s[:len(s)-1] + `,"usage":` + string(u) + "}")
}

// ---- Anthropic Messages ----

func streamAnthropic(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	msgID := "msg_01" + a.ids.alnum("msg", 22)
	s.event("message_start", J("type", "message_start", "message", J("id", msgID, "type", "message", "role", "assistant",
		"model", a.model, "content", A(), "stop_reason", nil, "stop_sequence", nil,
		"usage", J("input_tokens", a.inTokens, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", 1))))
	s.event("ping", J("type", "ping"))
	idx := 0
	if a.step.Reasoning != "" {
		s.event("content_block_start", J("type", "content_block_start", "index", idx, "content_block", J("type", "thinking", "thinking", "", "signature", "")))
		for _, piece := range chunks(a.step.Reasoning, 3) {
			s.event("content_block_delta", J("type", "content_block_delta", "index", idx, "delta", J("type", "thinking_delta", "thinking", piece)))
		}
		if !a.step.Unsigned {
			s.event("content_block_delta", J("type", "content_block_delta", "index", idx, "delta", J("type", "signature_delta", "signature", "Eq"+a.ids.b64("signature", 96))))
		}
		s.event("content_block_stop", J("type", "content_block_stop", "index", idx))
		idx++
	}
	if a.step.Text != "" {
		s.event("content_block_start", J("type", "content_block_start", "index", idx, "content_block", J("type", "text", "text", "")))
		for _, piece := range chunks(a.step.Text, 3) {
			s.event("content_block_delta", J("type", "content_block_delta", "index", idx, "delta", J("type", "text_delta", "text", piece)))
		}
		s.event("content_block_stop", J("type", "content_block_stop", "index", idx))
		idx++
	}
	for i, c := range a.step.Calls {
		id := "toolu_01" + a.ids.alnum(fmt.Sprintf("call%d", i), 22)
		s.event("content_block_start", J("type", "content_block_start", "index", idx, "content_block", J("type", "tool_use", "id", id, "name", c.Name, "input", J())))
		for _, piece := range chunks(c.Args, 2) {
			s.event("content_block_delta", J("type", "content_block_delta", "index", idx, "delta", J("type", "input_json_delta", "partial_json", piece)))
		}
		s.event("content_block_stop", J("type", "content_block_stop", "index", idx))
		idx++
	}
	stop := "end_turn"
	if len(a.step.Calls) > 0 {
		stop = "tool_use"
	}
	s.event("message_delta", J("type", "message_delta", "delta", J("stop_reason", stop, "stop_sequence", nil), "usage", J("output_tokens", a.outTokens()+a.reasoningTokens())))
	s.event("message_stop", J("type", "message_stop"))
}

// ---- Gemini streamGenerateContent?alt=sse ----

func streamGemini(w http.ResponseWriter, a answer) {
	s := newSSE(w)
	out := a.outTokens()
	usage := func(final bool) rawJSON {
		if !final {
			return J("promptTokenCount", a.inTokens, "totalTokenCount", a.inTokens)
		}
		return J("promptTokenCount", a.inTokens, "candidatesTokenCount", out, "totalTokenCount", a.inTokens+out+a.reasoningTokens(),
			"thoughtsTokenCount", a.reasoningTokens())
	}
	respID := a.ids.alnum("response", 22)
	emit := func(parts rawJSON, final bool) {
		cand := J("content", J("role", "model", "parts", parts), "index", 0)
		if final {
			cand = J("content", J("role", "model", "parts", parts), "finishReason", "STOP", "index", 0)
		}
		s.data(J("candidates", A(cand), "usageMetadata", usage(final), "modelVersion", a.model, "responseId", respID))
	}
	sig := a.ids.b64("thoughtSignature", 72)
	hasCalls := len(a.step.Calls) > 0
	if a.step.Reasoning != "" {
		for _, piece := range chunks(a.step.Reasoning, 2) {
			emit(A(J("text", piece, "thought", true)), false)
		}
	}
	if a.step.Text != "" {
		pieces := chunks(a.step.Text, 2)
		for i, piece := range pieces {
			last := i == len(pieces)-1 && !hasCalls
			if i == 0 && !hasCalls && a.step.Reasoning != "" {
				emit(A(J("text", piece, "thoughtSignature", sig)), last)
				continue
			}
			emit(A(J("text", piece)), last)
		}
	}
	if hasCalls {
		var parts []any
		for i, c := range a.step.Calls {
			if i == 0 {
				parts = append(parts, J("functionCall", J("name", c.Name, "args", rawJSON(c.Args)), "thoughtSignature", sig))
			} else {
				parts = append(parts, J("functionCall", J("name", c.Name, "args", rawJSON(c.Args))))
			}
		}
		emit(A(parts...), true)
	}
	if a.step.Text == "" && !hasCalls {
		emit(A(J("text", "")), true)
	}
}

// ---- OpenAI Responses ----

// streamResponses is the Responses SSE stream; calls of the tools in
// custom (Codex's freeform tools) are custom_tool_call items.
func streamResponses(w http.ResponseWriter, a answer, custom map[string]bool) {
	s := newSSE(w)
	seq := 0
	ev := func(typ string, kv ...any) {
		s.event(typ, J(append([]any{"type", typ, "sequence_number", seq}, kv...)...))
		seq++
	}
	respID := "resp_" + a.ids.hex("resp", 48)
	base := func(status string, output rawJSON, usage any) rawJSON {
		return J("id", respID, "object", "response", "created_at", created, "status", status, "background", false,
			"error", nil, "incomplete_details", nil, "instructions", nil, "model", a.model, "output", output,
			"parallel_tool_calls", true, "reasoning", J("effort", "medium", "summary", "detailed"),
			"store", false, "tool_choice", "auto", "usage", usage)
	}
	ev("response.created", "response", base("in_progress", A(), nil))
	ev("response.in_progress", "response", base("in_progress", A(), nil))
	var done []any
	oi := 0
	if a.step.Reasoning != "" {
		id := "rs_" + a.ids.hex("rs", 48)
		enc := "gAAAAAB" + strings.NewReplacer("+", "-", "/", "_").Replace(a.ids.b64("encrypted_content", 180))
		ev("response.output_item.added", "output_index", oi, "item", J("id", id, "type", "reasoning", "encrypted_content", enc, "summary", A()))
		ev("response.reasoning_summary_part.added", "item_id", id, "output_index", oi, "summary_index", 0, "part", J("type", "summary_text", "text", ""))
		for _, piece := range chunks(a.step.Reasoning, 3) {
			ev("response.reasoning_summary_text.delta", "item_id", id, "output_index", oi, "summary_index", 0, "delta", piece)
		}
		ev("response.reasoning_summary_text.done", "item_id", id, "output_index", oi, "summary_index", 0, "text", a.step.Reasoning)
		ev("response.reasoning_summary_part.done", "item_id", id, "output_index", oi, "summary_index", 0, "part", J("type", "summary_text", "text", a.step.Reasoning))
		item := J("id", id, "type", "reasoning", "encrypted_content", enc, "summary", A(J("type", "summary_text", "text", a.step.Reasoning)))
		ev("response.output_item.done", "output_index", oi, "item", item)
		done = append(done, item)
		oi++
	}
	if a.step.Text != "" {
		id := "msg_" + a.ids.hex("msg", 48)
		ev("response.output_item.added", "output_index", oi, "item", J("id", id, "type", "message", "status", "in_progress", "content", A(), "role", "assistant"))
		ev("response.content_part.added", "item_id", id, "output_index", oi, "content_index", 0, "part", J("type", "output_text", "annotations", A(), "logprobs", A(), "text", ""))
		for _, piece := range chunks(a.step.Text, 3) {
			ev("response.output_text.delta", "item_id", id, "output_index", oi, "content_index", 0, "delta", piece, "logprobs", A())
		}
		ev("response.output_text.done", "item_id", id, "output_index", oi, "content_index", 0, "text", a.step.Text, "logprobs", A())
		part := J("type", "output_text", "annotations", A(), "logprobs", A(), "text", a.step.Text)
		ev("response.content_part.done", "item_id", id, "output_index", oi, "content_index", 0, "part", part)
		item := J("id", id, "type", "message", "status", "completed", "content", A(part), "role", "assistant")
		ev("response.output_item.done", "output_index", oi, "item", item)
		done = append(done, item)
		oi++
	}
	for i, c := range a.step.Calls {
		callID := "call_" + a.ids.alnum(fmt.Sprintf("call%d", i), 24)
		if custom[c.Name] {
			id := "ctc_" + a.ids.hex(fmt.Sprintf("ctc%d", i), 48)
			ev("response.output_item.added", "output_index", oi, "item", J("id", id, "type", "custom_tool_call", "status", "in_progress", "call_id", callID, "input", "", "name", c.Name))
			for _, piece := range chunks(c.Args, 2) {
				ev("response.custom_tool_call_input.delta", "item_id", id, "output_index", oi, "delta", piece)
			}
			ev("response.custom_tool_call_input.done", "item_id", id, "output_index", oi, "input", c.Args)
			item := J("id", id, "type", "custom_tool_call", "status", "completed", "call_id", callID, "input", c.Args, "name", c.Name)
			ev("response.output_item.done", "output_index", oi, "item", item)
			done = append(done, item)
			oi++
			continue
		}
		id := "fc_" + a.ids.hex(fmt.Sprintf("fc%d", i), 48)
		// "namespace/name": a tool of a namespace (Codex's multi_agent_v1)
		name, nsKV := c.Name, []any{}
		if ns, n, ok := strings.Cut(c.Name, "/"); ok {
			name, nsKV = n, []any{"namespace", ns}
		}
		ev("response.output_item.added", "output_index", oi, "item", J(append([]any{"id", id, "type", "function_call", "status", "in_progress", "arguments", "", "call_id", callID, "name", name}, nsKV...)...))
		for _, piece := range chunks(c.Args, 2) {
			ev("response.function_call_arguments.delta", "item_id", id, "output_index", oi, "delta", piece)
		}
		ev("response.function_call_arguments.done", "item_id", id, "output_index", oi, "arguments", c.Args)
		item := J(append([]any{"id", id, "type", "function_call", "status", "completed", "arguments", c.Args, "call_id", callID, "name", name}, nsKV...)...)
		ev("response.output_item.done", "output_index", oi, "item", item)
		done = append(done, item)
		oi++
	}
	out := a.outTokens() + a.reasoningTokens()
	usage := J("input_tokens", a.inTokens, "input_tokens_details", J("cached_tokens", 0),
		"output_tokens", out, "output_tokens_details", J("reasoning_tokens", a.reasoningTokens()), "total_tokens", a.inTokens+out)
	ev("response.completed", "response", base("completed", A(done...), usage))
}

// ---- Amazon Bedrock ConverseStream (AWS event-stream framing) ----

// eventStreamFrame encodes one AWS event-stream message: prelude (total
// length, headers length, prelude CRC32), headers (name length, name, type
// 7 = string, value length, value), payload, message CRC32 (IEEE).
func eventStreamFrame(headers [][2]string, payload []byte) []byte {
	var hb bytes.Buffer
	for _, h := range headers {
		hb.WriteByte(byte(len(h[0])))
		hb.WriteString(h[0])
		hb.WriteByte(7)
		_ = binary.Write(&hb, binary.BigEndian, uint16(len(h[1])))
		hb.WriteString(h[1])
	}
	total := 12 + hb.Len() + len(payload) + 4
	msg := make([]byte, 0, total)
	msg = binary.BigEndian.AppendUint32(msg, uint32(total))
	msg = binary.BigEndian.AppendUint32(msg, uint32(hb.Len()))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg[:8]))
	msg = append(msg, hb.Bytes()...)
	msg = append(msg, payload...)
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(msg))
	return msg
}

func streamBedrock(w http.ResponseWriter, a answer) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("x-amzn-RequestId", a.ids.hex("reqid", 8)+"-"+a.ids.hex("reqid2", 4)+"-"+a.ids.hex("reqid3", 4)+"-"+a.ids.hex("reqid4", 4)+"-"+a.ids.hex("reqid5", 12))
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	ev := func(typ string, payload rawJSON) {
		frame := eventStreamFrame([][2]string{
			{":event-type", typ},
			{":content-type", "application/json"},
			{":message-type", "event"},
		}, []byte(payload))
		_, _ = w.Write(frame)
		if fl != nil {
			fl.Flush()
		}
	}
	ev("messageStart", J("role", "assistant"))
	idx := 0
	if a.step.Reasoning != "" {
		for _, piece := range chunks(a.step.Reasoning, 3) {
			ev("contentBlockDelta", J("contentBlockIndex", idx, "delta", J("reasoningContent", J("text", piece))))
		}
		if !a.step.Unsigned {
			ev("contentBlockDelta", J("contentBlockIndex", idx, "delta", J("reasoningContent", J("signature", a.ids.b64("bedrock-signature", 96)))))
		}
		ev("contentBlockStop", J("contentBlockIndex", idx))
		idx++
	}
	if a.step.Text != "" {
		for _, piece := range chunks(a.step.Text, 3) {
			ev("contentBlockDelta", J("contentBlockIndex", idx, "delta", J("text", piece)))
		}
		ev("contentBlockStop", J("contentBlockIndex", idx))
		idx++
	}
	for i, c := range a.step.Calls {
		id := "tooluse_" + a.ids.alnum(fmt.Sprintf("call%d", i), 22)
		ev("contentBlockStart", J("contentBlockIndex", idx, "start", J("toolUse", J("toolUseId", id, "name", c.Name))))
		for _, piece := range chunks(c.Args, 2) {
			ev("contentBlockDelta", J("contentBlockIndex", idx, "delta", J("toolUse", J("input", piece))))
		}
		ev("contentBlockStop", J("contentBlockIndex", idx))
		idx++
	}
	stop := "end_turn"
	if len(a.step.Calls) > 0 {
		stop = "tool_use"
	}
	ev("messageStop", J("stopReason", stop))
	out := a.outTokens() + a.reasoningTokens()
	ev("metadata", J("usage", J("inputTokens", a.inTokens, "outputTokens", out, "totalTokens", a.inTokens+out), "metrics", J("latencyMs", 321)))
}

// ---- non-streaming answers (text only; used if a title request does not stream) ----

func writeNonStream(w http.ResponseWriter, wire string, a answer) {
	text := a.step.Text
	out := a.outTokens()
	var body rawJSON
	switch wire {
	case "chat":
		body = J("id", "chatcmpl-"+a.ids.alnum("chatcmpl", 29), "object", "chat.completion", "created", created, "model", a.model,
			"choices", A(J("index", 0, "message", J("role", "assistant", "content", text), "finish_reason", "stop")),
			"usage", J("prompt_tokens", a.inTokens, "completion_tokens", out, "total_tokens", a.inTokens+out))
	case "anthropic":
		body = J("id", "msg_01"+a.ids.alnum("msg", 22), "type", "message", "role", "assistant", "model", a.model,
			"content", A(J("type", "text", "text", text)), "stop_reason", "end_turn", "stop_sequence", nil,
			"usage", J("input_tokens", a.inTokens, "output_tokens", out))
	case "gemini":
		body = J("candidates", A(J("content", J("role", "model", "parts", A(J("text", text))), "finishReason", "STOP", "index", 0)),
			"usageMetadata", J("promptTokenCount", a.inTokens, "candidatesTokenCount", out, "totalTokenCount", a.inTokens+out))
	case "responses":
		body = J("id", "resp_"+a.ids.hex("resp", 48), "object", "response", "created_at", created, "status", "completed", "model", a.model,
			"output", A(J("id", "msg_"+a.ids.hex("msg", 48), "type", "message", "status", "completed", "role", "assistant",
				"content", A(J("type", "output_text", "text", text, "annotations", A())))),
			"usage", J("input_tokens", a.inTokens, "output_tokens", out, "total_tokens", a.inTokens+out))
	case "bedrock":
		body = J("output", J("message", J("role", "assistant", "content", A(J("text", text)))), "stopReason", "end_turn",
			"usage", J("inputTokens", a.inTokens, "outputTokens", out, "totalTokens", a.inTokens+out), "metrics", J("latencyMs", 321))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}
