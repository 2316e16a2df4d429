package render

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/model"
	"correx/sessions"
)

// outputs is an OutputLoader over whole sessions.
type outputs map[string]*model.ToolCall

func (o outputs) LoadOutput(_ context.Context, sessionID, partID string) (*model.ToolCall, error) {
	if c, ok := o[partID]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("no part %s in session %s", partID, sessionID)
}

// outlineOf is s as an outline that left every call's output out, as
// sessions' outlines leave out large ones, and its calls whole.
func outlineOf(s *model.Session) (*model.Session, outputs) {
	o := *s
	whole := outputs{}
	o.Messages = append([]model.Message(nil), s.Messages...)
	for mi := range o.Messages {
		m := &o.Messages[mi]
		m.Parts = append([]model.Part(nil), m.Parts...)
		for pi, pt := range m.Parts {
			if pt.Tool == nil || pt.Tool.IsV2() {
				continue // v2 sessions are never paged
			}
			whole[pt.ID] = pt.Tool
			c := *pt.Tool
			c.Elided, c.ElidedFiles = true, len(c.Attachments) > 0
			c.Output, c.Error, c.Attachments = "", "", nil
			c.Metadata = stripMetadata(c.Metadata)
			m.Parts[pi].Tool = &c
		}
	}
	return &o, whole
}

// stripMetadata leaves out the members an outline leaves out.
func stripMetadata(raw []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	for _, k := range []string{"output", "display", "preview", "diff", "filediff", "files", "diagnostics"} {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return b
}

// eachSession calls fn with every session of the stores in dirs, read
// whole, and where it came from.
func eachSession(t *testing.T, dirs []string, fn func(full *model.Session, where string)) {
	t.Helper()
	ctx := context.Background()
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			full, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			fn(full, dir+" "+in.ID)
		}
		st.Close()
	}
}

// TestConversationLazyExact checks that the conversation of an outline
// whose every output was left out, written with its results read as it is
// written, is byte for byte the one of the whole session: every recorded
// opencode fixture, provider, lowering and a first, middle and last step.
func TestConversationLazyExact(t *testing.T) {
	defer func(n int) { stringChunk = n }(stringChunk)
	stringChunk = 7 // cut every large result many times
	ctx := context.Background()
	dirs, _ := filepath.Glob("../testdata/opencode/*/data")
	placeholders, streams := 0, 0
	eachSession(t, dirs, func(full *model.Session, where string) {
		outline, whole := outlineOf(full)
		lows := []model.Lowering{model.LoweringNative}
		if full.Info.Pipeline != model.PipelineV2 {
			lows = append(lows, model.LoweringAISDK)
		}
		n := len(full.AssistantSteps())
		for _, step := range []int{1, (n + 1) / 2, n} {
			for _, p := range Providers {
				for _, low := range lows {
					m := Model{Lowering: low}
					val, err := Conversation(full, p, step, m)
					if err != nil {
						continue
					}
					want, err := MarshalIndent(val)
					require.NoError(t, err)
					counted := countingLoader{outputs: whole}
					var l OutputLoader = &counted
					if step == n { // the streamed path on the last step
						l = &streamingLoader{countingLoader: counted, streams: &streams}
					}
					lc, err := ConversationLazy(ctx, l, outline, p, step, m)
					require.NoError(t, err)
					got, err := lc.MarshalIndent(ctx, lc.Value)
					require.NoError(t, err)
					require.Equal(t, string(want), string(got), "%s %s %s step %d", where, p, low, step)
					placeholders += len(lc.parts)
				}
			}
		}
	})
	require.Greater(t, placeholders, 1000)
	require.Greater(t, streams, 100, "the streamed path was not taken")
}

type countingLoader struct {
	outputs
	n int
}

// streamingLoader is a countingLoader that is a TextStreamer: it gives a
// text in pieces of a few runes.
type streamingLoader struct {
	countingLoader
	streams *int
}

func (s *streamingLoader) LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	c, err := s.LoadOutput(ctx, sessionID, partID)
	if err != nil {
		return nil, nil, err
	}
	*s.streams++
	return c, func(field string, write func(string) error) error {
		text := c.Output
		if field == "error" {
			text = c.Error
		}
		for _, piece := range strings.SplitAfter(text, "\n") {
			for len(piece) > 0 {
				_, n := utf8.DecodeRuneInString(piece)
				if err := write(piece[:n]); err != nil {
					return err
				}
				piece = piece[n:]
			}
		}
		return nil
	}, nil
}

func (c *countingLoader) LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error) {
	c.n++
	return c.outputs.LoadOutput(ctx, sessionID, partID)
}

// TestConversationLazyReadsOnlyWhatItMust checks which calls are read
// before writing: only those whose result the outline cannot vouch for.
func TestConversationLazyReadsOnlyWhatItMust(t *testing.T) {
	ctx := context.Background()
	call := func(id string, c model.ToolCall) model.Part {
		c.CallID, c.Tool, c.Input = "call_"+id, "bash", []byte(`{"command":"ls"}`)
		return model.Part{ID: id, Type: model.PartTool, Tool: &c}
	}
	s := &model.Session{Info: model.SessionInfo{ID: "ses_1"}, Messages: []model.Message{
		{ID: "msg_1", Role: model.RoleUser, Parts: []model.Part{{ID: "t", Type: model.PartText, Text: "go"}}},
		{ID: "msg_2", Role: model.RoleAssistant, ProviderID: "anthropic", ModelID: "claude", Parts: []model.Part{
			call("done", model.ToolCall{Status: model.StatusCompleted, Output: strings.Repeat("out\n", 300)}),
			call("failed", model.ToolCall{Status: model.StatusError, Error: "boom " + strings.Repeat("x", 2000)}),
			call("image", model.ToolCall{Status: model.StatusCompleted, Output: "Image read", Attachments: []model.File{{Mime: "image/png", URL: "data:image/png;base64,iVBOR"}}}),
			call("stopped", model.ToolCall{Status: model.StatusError, Error: "Tool execution aborted", Metadata: []byte(`{"interrupted":true,"output":"partial"}`)}),
			call("cleared", model.ToolCall{Status: model.StatusCompleted, Output: "old", Compacted: true}),
		}},
		{ID: "msg_3", Role: model.RoleAssistant, ProviderID: "anthropic", ModelID: "claude", Parts: []model.Part{{ID: "a", Type: model.PartText, Text: "done"}}},
	}}
	outline, whole := outlineOf(s)
	for _, p := range Providers {
		val, err := Conversation(s, p, 2, Model{})
		require.NoError(t, err)
		want, _ := MarshalIndent(val)
		counted := countingLoader{outputs: whole}
		lc, err := ConversationLazy(ctx, &counted, outline, p, 2, Model{})
		require.NoError(t, err)
		require.Equal(t, 2, counted.n, "%s: the image and the interrupted call are read first", p)
		require.Equal(t, 2, len(lc.parts), p)
		got, err := lc.MarshalIndent(ctx, lc.Value)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), p)
		require.Equal(t, 4, counted.n, "%s: the two placeholders are read as they are written", p)
	}
}

// TestConversationLazyEmbedded checks that a placeholder a converter put
// inside a larger string is caught, before anything is written.
func TestConversationLazyEmbedded(t *testing.T) {
	lc := &LazyConversation{parts: map[string]lazyPart{placeholderMark + "1\x00": {id: "prt_1", field: "output"}}}
	ok := Obj{{"content", placeholderMark + "1\x00"}}
	require.True(t, lc.standalone([]Value{ok}))
	// and in a logged message, as a DeferringRequestLoader leaves it
	ph, _ := formatters.Stringify(placeholderMark + "1\x00")
	require.True(t, lc.standalone(json.RawMessage(`{"content":[`+string(ph)+`]}`)))
	require.False(t, lc.standalone(json.RawMessage(`{"content":"x`+string(ph[1:])+`}`)))
	require.False(t, lc.standalone([]Value{Obj{{"content", "x" + placeholderMark + "1\x00"}}}))
	require.False(t, lc.standalone(Obj{{placeholderMark + "1\x00", 1}}))
	_, err := lc.MarshalIndent(context.Background(), Obj{{"content", "[" + placeholderMark + "1\x00]"}})
	require.ErrorIs(t, err, errEmbedded)
}

func TestWriteStringInPieces(t *testing.T) {
	defer func(n int) { stringChunk = n }(stringChunk)
	s := "a\"b\\c\n\u2028\u2029é漢\xe2\x80x\xff\x80\x80\x80\x80<>&\x00\x1f" + string(make([]byte, 40))
	want, err := Marshal(s)
	require.NoError(t, err)
	for n := 1; n < 9; n++ {
		stringChunk = n
		var b strings.Builder
		require.NoError(t, writeRunes(&b, s))
		require.Equal(t, string(want), `"`+b.String()+`"`, "chunk %d", n)
		// WriteIndent writes a string leaf over stringChunk so too
		var ind strings.Builder
		require.NoError(t, WriteIndent(&ind, Obj{{"k", []Value{s}}}))
		require.Equal(t, "{\n  \"k\": [\n    "+string(want)+"\n  ]\n}", ind.String(), "chunk %d", n)
	}
}

// TestRuneCut: runeCut cuts where decoding s from its start has a cut
// between runes, the last one at or before n (or the first rune's end),
// whatever the bytes, valid or not.
func TestRuneCut(t *testing.T) {
	cuts := func(s string) map[int]bool {
		at := map[int]bool{0: true}
		for i := 0; i < len(s); {
			_, k := utf8.DecodeRuneInString(s[i:])
			i += k
			at[i] = true
		}
		return at
	}
	for _, s := range []string{"abc", "é€😀x", "\x80\x80\x80\x80\x80a", "\xf0\x9f\x98", "😀😀", "\xe2\x82\xe2\x82\xac", "\xff\xfe😀\x80"} {
		at := cuts(s)
		for n := 1; n <= len(s)+1; n++ {
			got := runeCut(s, n)
			if !at[got] || got == 0 {
				t.Errorf("runeCut(%q, %d) = %d: not a cut between runes", s, n, got)
			}
			if n < len(s) && got > n {
				_, k := utf8.DecodeRuneInString(s)
				if got != k {
					t.Errorf("runeCut(%q, %d) = %d: past n and not the first rune's end", s, n, got)
				}
			}
		}
	}
}

// keptRequests is a RequestLoader that gives a copy of each session's
// logged requests, as a store reads them, and keeps what it gave.
type keptRequests struct {
	outputs
	whole *model.Session
	given []*model.LoggedRequest
}

func (k *keptRequests) LoadRequest(_ context.Context, _ string, msg int) (*model.LoggedRequest, error) {
	req := *k.whole.Messages[msg].Request
	req.Messages = append([]json.RawMessage(nil), req.Messages...)
	k.given = append(k.given, &req)
	return &req, nil
}

// TestLoggedRequestSpentOnlyWhenRead checks that a lowering lets go of a
// logged request's messages as it decodes them only when the request was
// read for it (a lazy conversation's), never the caller's: every Claude
// Code fixture, every step, every provider but its own.
func TestLoggedRequestSpentOnlyWhenRead(t *testing.T) {
	ctx := context.Background()
	dirs, _ := filepath.Glob("../testdata/claude-code/*")
	spent := 0
	eachSession(t, dirs, func(whole *model.Session, where string) {
		outline := *whole
		outline.Messages = append([]model.Message(nil), whole.Messages...)
		for i := range outline.Messages {
			if outline.Messages[i].Request != nil {
				outline.Messages[i].Request = &model.LoggedRequest{Provider: "anthropic", Elided: true}
			}
		}
		for step, at := range whole.AssistantSteps() {
			req := whole.Messages[at].Request
			if req == nil {
				continue
			}
			before := append([]json.RawMessage(nil), req.Messages...)
			for _, p := range []Provider{OpenAIChat, OpenAIResponses, Gemini, Bedrock} {
				val, err := Conversation(whole, p, step+1, Model{})
				require.NoError(t, err)
				require.Equal(t, before, req.Messages, "%s step %d %s: Render changed the caller's request", where, step+1, p)
				want, err := MarshalIndent(val)
				require.NoError(t, err)
				l := &keptRequests{whole: whole}
				lc, err := ConversationLazy(ctx, l, &outline, p, step+1, Model{})
				require.NoError(t, err)
				got, err := lc.MarshalIndent(ctx, lc.Value)
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "%s step %d %s", where, step+1, p)
				require.Len(t, l.given, 1)
				for i, m := range l.given[0].Messages {
					require.True(t, m == nil, "%s step %d %s: message %d of the request read for the lowering was kept", where, step+1, p, i)
				}
				spent++
			}
		}
	})
	require.Greater(t, spent, 20)
}

// FuzzStandaloneSkim: where the skim of a logged message is sure, it
// says what decoding the message says (standalone on OrderedJSON's value).
func FuzzStandaloneSkim(f *testing.F) {
	phb, _ := formatters.Stringify(placeholderMark + "1\x00")
	otherb, _ := formatters.Stringify(placeholderMark + "2\x00")
	ph, other := string(phb), string(otherb)
	for _, s := range []string{
		`{"content":[` + ph + `]}`, `{"content":"x` + ph[1:] + `}`, `{` + ph + `:1}`, `[` + ph + `,` + ph + `]`,
		`{"a":[{"b":` + ph + `}],"c":"` + ph[1:len(ph)-1] + ph[1:] + `}`, `{"content":` + other + `}`, `{"content":[` + ph,
		`{"content":"\u0041` + ph[1:] + `}`, `{"content":` + ph + `,"content":"x"}`, `"` + ph[1:], `[1,true,null,` + ph + `]`,
	} {
		f.Add(s)
	}
	lc := &LazyConversation{parts: map[string]lazyPart{placeholderMark + "1\x00": {id: "prt_1", field: "output"}}}
	f.Fuzz(func(t *testing.T, s string) {
		raw := json.RawMessage(s)
		ok, sure := lc.standaloneSkim(raw)
		if !sure {
			return
		}
		v, err := OrderedJSON(raw)
		if want := err == nil && lc.standalone(v); ok != want {
			t.Fatalf("skim says %v, decoding %v: %q", ok, want, s)
		}
	})
}

// TestStandaloneSkimSure: the skim decides the logged messages the lazy
// lowering meets (placeholders as values, whole or not) without decoding.
func TestStandaloneSkimSure(t *testing.T) {
	phb, _ := formatters.Stringify(placeholderMark + "1\x00")
	ph := string(phb)
	lc := &LazyConversation{parts: map[string]lazyPart{placeholderMark + "1\x00": {id: "prt_1", field: "output"}}}
	for raw, want := range map[string]bool{
		`{"role":"user","content":[{"type":"tool_result","content":` + ph + `}]}`: true,
		`{"content":[` + ph + `,{"text":"x"},` + ph + `]}`:                        true,
		`{"content":"x` + ph[1:] + `}`:                                            false,
	} {
		ok, sure := lc.standaloneSkim(json.RawMessage(raw))
		require.True(t, sure, raw)
		require.Equal(t, want, ok, raw)
	}
}
