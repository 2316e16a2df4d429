package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/model"
)

// checkWindowed checks that conversation step of outline on p for m,
// lowered a window at a time at window size n, is byte for byte the
// whole one, with its item count, and that the calls among the last
// window's items are placed where the whole conversation places them.
func checkWindowed(t *testing.T, full, outline *model.Session, l OutputLoader, p Provider, step int, m Model, n int, where string) bool {
	t.Helper()
	ctx := context.Background()
	if !Windowable(outline, p, step, m) {
		return false
	}
	r, err := Render(full, p, step, m)
	require.NoError(t, err, where)
	want, err := MarshalIndent(r.Value)
	require.NoError(t, err)
	defer func(k int) { WindowMessages = k }(WindowMessages)
	WindowMessages = n
	var got bytes.Buffer
	w, err := WriteWindowed(ctx, l, outline, nil, p, step, m, &got)
	require.NoError(t, err, where)
	defer w.Last.Close()
	require.Equal(t, string(want), got.String(), "%s window %d", where, n)
	items, _ := r.Value.([]Value)
	require.Equal(t, len(items), w.Items(), where)
	if w.Before > 0 {
		windowedSome++
	}
	counted, err := WriteWindowed(ctx, l, outline, nil, p, step, m, nil)
	require.NoError(t, err)
	require.Equal(t, w.Items(), counted.Items(), "%s: counted without writing", where)
	for id, pl := range w.Last.Places {
		whole := r.Places[id]
		require.NotNil(t, whole, "%s: %s", where, id)
		shifted := *pl
		shift := func(s Spot) Spot {
			if s.Item >= 0 {
				s.Item += w.Before
			}
			return s
		}
		shifted.Call = shift(pl.Call)
		shifted.Results, shifted.Media = nil, nil
		for _, s := range pl.Results {
			shifted.Results = append(shifted.Results, shift(s))
		}
		for _, s := range pl.Media {
			shifted.Media = append(shifted.Media, shift(s))
		}
		require.Equal(t, *whole, shifted, "%s window %d: %s", where, n, id)
	}
	// the calls whose results the request carries first are in the last
	// window: those of the step before
	at, _ := stepAt(full, step)
	var carried []string
	for k := at - 1; k >= 0; k-- {
		if full.Messages[k].Role != model.RoleAssistant {
			continue
		}
		carried = callIDs(full.Messages[k])
		for _, pt := range full.Messages[k].Parts {
			if pt.Tool != nil && r.Places[pt.Tool.CallID] != nil && len(r.Places[pt.Tool.CallID].Results) > 0 {
				require.Contains(t, w.Last.Places, pt.Tool.CallID, "%s window %d", where, n)
			}
		}
		break
	}
	require.Equal(t, carried, w.Carried, where)
	return true
}

// windowedSome counts the checks whose last window was not the whole.
var windowedSome int

// TestWindowedIsWhole checks every step of every recorded session lowered
// through opencode's prompt on every provider, at windows of 1 to 5
// prompt messages and the default: the conversation written a window at
// a time is the one lowered whole.
func TestWindowedIsWhole(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/opencode/*/data")
	kilo, _ := filepath.Glob("../testdata/kilo/*/data")
	checked := 0
	eachSession(t, append(dirs, kilo...), func(full *model.Session, where string) {
		outline, whole := outlineOf(full)
		for step := 1; step <= len(full.AssistantSteps()); step++ {
			for _, p := range Providers {
				for _, n := range []int{1, 3, 1024} {
					if checkWindowed(t, full, outline, whole, p, step, Model{}, n, where) {
						checked++
					}
				}
			}
		}
	})
	require.Greater(t, checked, 1000)
	require.Greater(t, windowedSome, checked/2, "most were lowered in one window")
	t.Logf("%d checked, %d in several windows", checked, windowedSome)
}

// randomSession is an opencode session of random messages, among them
// those where converters merge or drop: empty texts and user messages,
// assistant messages without calls one after the other, reasoning with
// and without a signature, aborted and failed steps, unanswered and failed
// calls, images and PDFs in prompts and results.
func randomSession(r *rand.Rand) *model.Session {
	s := &model.Session{Info: model.SessionInfo{ID: "ses_random", Agent: model.AgentOpencode, Version: "1.18.33"}}
	calls := 0
	pdf := "data:application/pdf;base64," + pixel
	png := "data:image/png;base64," + pixel
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for range 4 + r.IntN(30) {
		if r.IntN(3) == 0 {
			var parts []model.Part
			for range r.IntN(3) {
				switch r.IntN(5) {
				case 0:
					parts = append(parts, model.Part{Type: model.PartText, Text: ""})
				case 1:
					parts = append(parts, model.Part{Type: model.PartFile, File: &model.File{Mime: pick("image/png", "application/pdf"), URL: pick(png, pdf), Filename: pick("", "a.pdf")}})
				case 2:
					parts = append(parts, model.Part{Type: model.PartText, Text: "ignored", Ignored: true})
				default:
					parts = append(parts, model.Part{Type: model.PartText, Text: pick("go on", "  look  ")})
				}
			}
			s.Messages = append(s.Messages, model.Message{Role: model.RoleUser, Parts: parts})
			continue
		}
		m := model.Message{Role: model.RoleAssistant, ProviderID: "anthropic", ModelID: pick("claude-sonnet-4-5", "claude-haiku-4-5")}
		switch r.IntN(8) {
		case 0:
			m.Error = pick("MessageAbortedError", "APIError")
		case 1:
			m.ProviderID, m.ModelID = "openai", "gpt-5"
		}
		for range r.IntN(4) {
			switch r.IntN(6) {
			case 0:
				m.Parts = append(m.Parts, model.Part{Type: model.PartText, Text: pick("", "done ", "Let me look.")})
			case 1:
				m.Parts = append(m.Parts, model.Part{Type: model.PartReasoning, Text: pick("", "hmm"), Metadata: json.RawMessage(pick(`{}`, `{"anthropic":{"signature":"EqjT"}}`))})
			default:
				calls++
				id := fmt.Sprintf("toolu_%02d", calls)
				c := &model.ToolCall{CallID: id, Tool: pick("bash", "read"), Input: json.RawMessage(`{"command":"ls"}`), Status: model.StatusCompleted, Output: pick("", "a\nb\n", "out")}
				switch r.IntN(6) {
				case 0:
					c.Status, c.Output, c.Error = model.StatusError, "", "boom"
				case 1:
					c.Status = model.ToolStatus(pick(string(model.StatusPending), string(model.StatusRunning)))
				case 2:
					c.Attachments = []model.File{{Mime: pick("image/png", "application/pdf"), URL: pick(png, pdf), Filename: "r.png"}}
				}
				m.Parts = append(m.Parts, model.Part{ID: "prt_" + id, Type: model.PartTool, Tool: c})
			}
		}
		s.Messages = append(s.Messages, m)
	}
	return s
}

// TestWindowedIsWholeRandom is TestWindowedIsWhole on random sessions,
// for the step's model, a Mistral one and one with an interleaved
// reasoning field, and without image or PDF input.
func TestWindowedIsWholeRandom(t *testing.T) {
	checked := 0
	models := []Model{{}, {ProviderID: "mistral", ModelID: "mistral-large-latest"},
		{ProviderID: "amazon-bedrock", ModelID: "anthropic.claude-sonnet-4-5"},
		{ProviderID: "local", ModelID: "text-only", Caps: model.SessionCapabilities{Models: []model.Capabilities{
			{ProviderID: "local", ModelID: "text-only", Input: []model.InputKind{}, Interleaved: "reasoning_content"}}}}}
	for seed := range uint64(100) {
		full := randomSession(rand.New(rand.NewPCG(seed, 7)))
		outline, whole := outlineOf(full)
		for step := 1; step <= len(full.AssistantSteps()); step++ {
			for _, p := range Providers {
				for _, m := range models {
					for _, n := range []int{1, 3} {
						if checkWindowed(t, full, outline, whole, p, step, m, n, fmt.Sprintf("seed %d step %d %s %s", seed, step, p, m.ModelID)) {
							checked++
						}
					}
				}
			}
		}
	}
	require.Greater(t, checked, 10000)
}
