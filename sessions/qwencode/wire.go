package qwencode

// Qwen Code's own wire: OpenAI Chat `messages`, rebuilt from the stored
// Gemini-form contents the way 0.24.4's converter
// (openaiContentGenerator/converter.ts, convertLlmRequestToOpenAI) and its
// default OpenAI-compatible provider build them, learnt from recorded
// request bodies (testdata/qwen-code):
//
//   - a user content is {"role":"user","content":[{"type":"text",…}…]};
//   - a model content is one assistant message: content the joined texts,
//     else "" when it has reasoning, else null; tool_calls with the stored
//     args re-serialised compactly (JSON.stringify); reasoning_content the
//     joined thoughts, mirrored into "reasoning" for models whose name
//     holds "qwen3" (a configured reasoning profile changes that, and is
//     not stored);
//   - the function responses of one batch are one content: a tool message
//     each, content [{"type":"text","text":output|error|JSON}] plus its
//     media parts; media (images, audio, video, files) split out of the
//     tool messages into one user message "(attached media from previous
//     tool call)" after the batch, the tool message then a string;
//   - consecutive assistant messages are merged, and calls without an
//     adjacent result (and results without a call) are dropped
//     (cleanOrphanedToolCalls); only the newest 250 images are kept.
//
// Qwen Code adds <system-reminder> text parts to user prompts when it
// sends them (the skills, the environment context, the deferred tools, the
// date; a subagent's prompt the first two) and stores only the typed text:
// the rebuild leaves them out and says so (unstored).

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"correx/model"
	"correx/render"
)

// splitMediaText heads the user message that carries a batch's media.
const splitMediaText = "(attached media from previous tool call)"

// maxImages is how many images a request keeps (evictOldestImagesBeyondCap).
const maxImages = 250

// evictedImage replaces an image over the cap (Qwen Code's text, as is).
const evictedImage = "[已淘汰较早的关键帧以控制单次请求的图片数量；如需重看该画面请重新抽帧或切片]"

// chatPart is one entry of a message's content list; of is the call whose
// result it belongs to, or "".
type chatPart struct {
	obj render.Obj
	of  string
}

// chatMsg is one message before it is written.
type chatMsg struct {
	role      string // user, assistant, tool
	parts     []chatPart
	text      *string // a string content (a tool message whose media moved; an assistant's)
	reasoning string
	calls     []chatCall
	callID    string // a tool message's call
	splitOf   bool   // the user message of split media
}

type chatCall struct {
	id, name, args string
}

func conversation(s *model.Session, upto int, pl *render.Placer) (render.Value, error) {
	var msgs []chatMsg
	for _, m := range s.Messages[:upto] {
		// an assistant message's stored contents: its model line(s), then
		// the tool_result lines of its calls
		var said, results []part
		for _, raw := range m.Stored {
			var c struct {
				Role string `json:"role"`
			}
			_ = json.Unmarshal(raw, &c)
			ps, _ := partsOf(raw)
			switch {
			case m.Role == model.RoleUser:
				msgs = append(msgs, userContent(ps)...)
			case c.Role == "model":
				said = append(said, ps...)
			default:
				results = append(results, ps...)
			}
		}
		if m.Role == model.RoleUser {
			continue
		}
		if a, ok := assistantContent(said); ok {
			msgs = append(msgs, a)
		}
		msgs = append(msgs, resultContent(results)...)
	}
	msgs = mergeAssistants(dropOrphans(mergeAssistants(msgs)))
	evictImages(msgs)
	mirror := strings.Contains(strings.ToLower(s.Messages[upto].ModelID), "qwen3")
	out := []render.Value{}
	for _, m := range msgs {
		out = append(out, m.value(len(out), pl, mirror))
	}
	return out, nil
}

// userContent is a prompt's content: its texts (thoughts are not sent).
func userContent(ps []part) []chatMsg {
	var parts []chatPart
	for _, p := range ps {
		if p.Text != nil && *p.Text != "" && !p.Thought {
			parts = append(parts, chatPart{obj: textObj(*p.Text)})
		}
		if p.InlineData != nil {
			parts = append(parts, chatPart{obj: mediaObj(p.InlineData)})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []chatMsg{{role: "user", parts: parts}}
}

// assistantContent is a model content as one assistant message.
func assistantContent(ps []part) (chatMsg, bool) {
	a := chatMsg{role: "assistant"}
	var text strings.Builder
	seen := map[string]bool{}
	hasText := false
	for _, p := range ps {
		switch {
		case p.Text != nil && p.Thought:
			a.reasoning += *p.Text
		case p.Text != nil && *p.Text != "":
			text.WriteString(*p.Text)
			hasText = true
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id != "" && seen[id] {
				continue
			}
			seen[id] = true
			if id == "" {
				id = "call_" + strconv.Itoa(len(a.calls))
			}
			a.calls = append(a.calls, chatCall{id: id, name: p.FunctionCall.Name, args: compact(p.FunctionCall.Args)})
		}
	}
	if !hasText && len(a.calls) == 0 && a.reasoning == "" {
		return a, false
	}
	if t := text.String(); t != "" || a.reasoning != "" {
		a.text = &t
	}
	return a, true
}

// resultContent is a batch of function responses: a tool message each,
// then the media split out of them.
func resultContent(ps []part) []chatMsg {
	var out []chatMsg
	var split []chatPart
	seen := map[string]bool{}
	for _, p := range ps {
		fr := p.FunctionResponse
		if fr == nil {
			continue
		}
		if fr.ID != "" && seen[fr.ID] {
			continue
		}
		seen[fr.ID] = true
		t := chatMsg{role: "tool", callID: fr.ID}
		if s := responseText(fr.Response); s != "" {
			t.parts = append(t.parts, chatPart{obj: textObj(s), of: fr.ID})
		}
		var texts []string
		var moved []chatPart
		for _, q := range fr.Parts {
			switch {
			case q.Text != nil:
				if *q.Text != "" {
					t.parts = append(t.parts, chatPart{obj: textObj(*q.Text), of: fr.ID})
				}
			case q.InlineData != nil:
				moved = append(moved, chatPart{obj: mediaObj(q.InlineData), of: fr.ID})
			}
		}
		if len(moved) > 0 {
			for _, cp := range t.parts {
				texts = append(texts, cp.text())
			}
			s := strings.Join(texts, "\n")
			if s == "" {
				s = "[media attached in following user message]"
			}
			t.parts, t.text = nil, &s
			split = append(split, moved...)
		} else if len(t.parts) == 0 {
			empty := ""
			t.text = &empty
		}
		out = append(out, t)
	}
	if len(split) > 0 {
		out = append(out, chatMsg{role: "user", parts: append([]chatPart{{obj: textObj(splitMediaText)}}, split...), splitOf: true})
	}
	return out
}

// responseText is what the tool message says: output, else error, else
// the response as JSON.
func responseText(resp json.RawMessage) string {
	var s string
	if json.Unmarshal(resp, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) == nil {
		for _, k := range []string{"output", "error"} {
			if json.Unmarshal(m[k], &s) == nil && m[k] != nil {
				return s
			}
		}
	}
	if len(resp) == 0 || string(resp) == "null" {
		return ""
	}
	return compact(resp)
}

func textObj(s string) render.Obj {
	return render.Obj{{Key: "type", Val: "text"}, {Key: "text", Val: s}}
}

// mediaObj is an inline media part as the converter sends it to a model
// that takes it (read_file checks the model's modalities itself and
// stores a placeholder text for one that does not).
func mediaObj(d *media) render.Obj {
	url := "data:" + d.MimeType + ";base64," + d.Data
	switch kind, _, _ := strings.Cut(d.MimeType, "/"); {
	case kind == "image":
		return render.Obj{{Key: "type", Val: "image_url"}, {Key: "image_url", Val: render.Obj{{Key: "url", Val: url}}}}
	case d.MimeType == "application/pdf":
		name := d.DisplayName
		if name == "" {
			name = "document.pdf"
		}
		return render.Obj{{Key: "type", Val: "file"}, {Key: "file", Val: render.Obj{{Key: "filename", Val: name}, {Key: "file_data", Val: url}}}}
	case kind == "video":
		return render.Obj{{Key: "type", Val: "video_url"}, {Key: "video_url", Val: render.Obj{{Key: "url", Val: url}}}}
	case kind == "audio" && audioFormat(d.MimeType) != "":
		return render.Obj{{Key: "type", Val: "input_audio"}, {Key: "input_audio", Val: render.Obj{{Key: "data", Val: url}, {Key: "format", Val: audioFormat(d.MimeType)}}}}
	}
	name := d.DisplayName
	if name == "" {
		name = d.MimeType
	}
	return textObj("Unsupported inline media type: " + d.MimeType + " (" + name + ").")
}

func audioFormat(mime string) string {
	switch {
	case strings.Contains(mime, "wav"):
		return "wav"
	case strings.Contains(mime, "mp3"), strings.Contains(mime, "mpeg"):
		return "mp3"
	case strings.Contains(mime, "flac"):
		return "flac"
	case strings.Contains(mime, "ogg"):
		return "ogg"
	case mime == "audio/mp4", strings.Contains(mime, "m4a"):
		return "m4a"
	}
	return ""
}

func (p chatPart) text() string {
	if len(p.obj) == 2 && p.obj[0].Val == "text" {
		s, _ := p.obj[1].Val.(string)
		return s
	}
	return ""
}

func (p chatPart) isImage() bool { return len(p.obj) > 0 && p.obj[0].Val == "image_url" }

// mergeAssistants joins consecutive assistant messages
// (mergeConsecutiveAssistantMessages): texts joined ("" becomes null),
// calls and reasoning appended.
func mergeAssistants(msgs []chatMsg) []chatMsg {
	var out []chatMsg
	for _, m := range msgs {
		if n := len(out); n > 0 && m.role == "assistant" && out[n-1].role == "assistant" {
			last := &out[n-1]
			t := deref(last.text) + deref(m.text)
			last.text = nil
			if t != "" {
				last.text = &t
			}
			last.calls = append(last.calls, m.calls...)
			last.reasoning += m.reasoning
			continue
		}
		out = append(out, m)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// dropOrphans keeps each assistant's calls that have a tool message right
// after it (tool messages, split media and call-less assistants between),
// with those messages; an assistant left without calls stays if it has
// text or reasoning (cleanOrphanedToolCalls).
func dropOrphans(msgs []chatMsg) []chatMsg {
	var out []chatMsg
	emitted := map[int]bool{}
	surviving := map[string]bool{}
	for i, m := range msgs {
		if emitted[i] {
			continue
		}
		switch {
		case m.role == "assistant" && len(m.calls) > 0:
			want := map[string]bool{}
			for _, c := range m.calls {
				if c.id != "" && !surviving[c.id] {
					want[c.id] = true
				}
			}
			got := map[string]bool{}
			var tools, media []int
			lastMatches := false
			for j := i + 1; j < len(msgs); j++ {
				n := msgs[j]
				if n.role == "tool" {
					lastMatches = n.callID != "" && want[n.callID] && !got[n.callID]
					if lastMatches {
						got[n.callID] = true
						tools = append(tools, j)
					}
					continue
				}
				if n.splitOf {
					if lastMatches {
						media = append(media, j)
					}
					continue
				}
				if n.role == "assistant" && len(n.calls) == 0 {
					continue
				}
				break
			}
			var kept []chatCall
			seen := map[string]bool{}
			for _, c := range m.calls {
				if got[c.id] && !seen[c.id] {
					seen[c.id] = true
					kept = append(kept, c)
					surviving[c.id] = true
				}
			}
			if len(kept) > 0 {
				m.calls = kept
				out = append(out, m)
				for _, j := range append(tools, media...) {
					out = append(out, msgs[j])
					emitted[j] = true
				}
			} else if strings.TrimSpace(deref(m.text)) != "" || m.reasoning != "" {
				m.calls = nil
				out = append(out, m)
			}
		case m.role == "tool", m.splitOf:
			// an orphan: dropped
		default:
			out = append(out, m)
		}
	}
	return out
}

// evictImages replaces the oldest images over the cap with Qwen Code's
// placeholder text.
func evictImages(msgs []chatMsg) {
	total := 0
	for _, m := range msgs {
		for _, p := range m.parts {
			if p.isImage() {
				total++
			}
		}
	}
	for i := range msgs {
		for j := range msgs[i].parts {
			if total > maxImages && msgs[i].parts[j].isImage() {
				msgs[i].parts[j].obj = textObj(evictedImage)
				total--
			}
		}
	}
}

// value writes the message as item of the conversation, placing calls,
// results and media.
func (m chatMsg) value(item int, pl *render.Placer, mirror bool) render.Value {
	o := render.Obj{{Key: "role", Val: m.role}}
	content := func() render.Value {
		if m.text != nil {
			return *m.text
		}
		list := []render.Value{}
		for _, p := range m.parts {
			list = append(list, p.obj)
		}
		return list
	}
	switch m.role {
	case "tool":
		o.Set("tool_call_id", m.callID)
		o.Set("content", content())
		pl.Result(m.callID, item, -1, 1)
	case "assistant":
		var c render.Value
		if m.text != nil {
			c = *m.text
		}
		o.Set("content", c)
		if len(m.calls) > 0 {
			calls := []render.Value{}
			for i, c := range m.calls {
				pl.Call(c.id, item, i)
				calls = append(calls, render.Obj{{Key: "id", Val: c.id}, {Key: "type", Val: "function"},
					{Key: "function", Val: render.Obj{{Key: "name", Val: c.name}, {Key: "arguments", Val: c.args}}}})
			}
			o.Set("tool_calls", calls)
		}
		if m.reasoning != "" {
			o.Set("reasoning_content", m.reasoning)
			if mirror {
				o.Set("reasoning", m.reasoning)
			}
		}
	default:
		o.Set("content", content())
		for i, p := range m.parts {
			if m.splitOf && p.of != "" {
				pl.Media(p.of, item, i)
			}
		}
	}
	return o
}

// compact is JSON.stringify of stored args: no whitespace, key order
// kept; "{}" for none.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// unstored names what each request carried that Qwen Code does not store,
// and a compression before the step, which correx does not rebuild.
func unstored(s *model.Session, upto int) string {
	note := "Qwen Code sends <system-reminder> text parts with user prompts (the available skills, the environment context, the deferred tools, the date) and stores only the typed text: they are left out of this rebuild"
	for _, m := range s.Messages[:upto] {
		for _, raw := range m.Stored {
			if bytes.Equal(raw, compressedMark) {
				return note + "; Qwen Code compressed the conversation before this step and sent the compressed history it recorded, not the whole conversation shown here"
			}
		}
	}
	return note
}
