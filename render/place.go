package render

import (
	"context"
	"slices"

	"correx/model"
)

// Where each call and its result sit in a conversation, recorded by each
// lowering as it builds the wire (the tui's Wire, Compare and Pipeline
// panes show these items; nothing searches the JSON for ids or texts).

// Spot is a place in a conversation: top-level item Item (a message, or a
// Responses input item) and, inside it, Parts consecutive entries from
// Part of the item's list: `content` (OpenAI Chat user messages,
// Anthropic, Bedrock), `parts` (Gemini) or `tool_calls` (an OpenAI Chat
// call). Part is -1 when the item itself is the thing: an OpenAI Chat
// tool message, a Responses function_call or function_call_output.
type Spot struct{ Item, Part, Parts int }

// Placement is where one call of the session and its result sit.
type Placement struct {
	// Call is where the call is; Item -1 when it is not in the conversation.
	Call Spot
	// Results are where its result is: none when no result was sent for
	// it; usually one (a result of several parts, Gemini before 3's
	// content results, is one Spot); Gemini CLI sends an earlier function
	// response again after a resume.
	Results []Spot
	// Media are the entries of the synthetic user message that carries
	// media moved out of the result (OpenAI Chat and Gemini before 3:
	// "Attached media from tool result:"; the native OpenAI Chat lowering:
	// a user message of images after the tool messages).
	Media []Spot
	// Lowering decided it: ai-sdk or native for opencode sessions, "" for
	// agents that build their own requests.
	Lowering model.Lowering
}

// Items are the top-level items that carry the call, its result or its
// media, in order, each once.
func (pl *Placement) Items() []int {
	var out []int
	seen := map[int]bool{}
	add := func(s Spot) {
		if s.Item >= 0 && !seen[s.Item] {
			seen[s.Item] = true
			out = append(out, s.Item)
		}
	}
	add(pl.Call)
	for _, s := range pl.Results {
		add(s)
	}
	for _, s := range pl.Media {
		add(s)
	}
	slices.Sort(out)
	return out
}

// ResultItems are the top-level items that carry the result and its
// media, in order, each once.
func (pl *Placement) ResultItems() []int {
	p := *pl
	p.Call = Spot{Item: -1}
	return p.Items()
}

// Placements are a conversation's placements by the call's stored id
// (model.ToolCall.CallID).
type Placements map[string]*Placement

// Rendered is a conversation and where each call sits in it.
type Rendered struct {
	Value    Value
	Places   Placements
	Lowering model.Lowering
	// Gaps are the places of an agent's own wire its store does not hold
	// as sent (OwnWireGaps); nil on a projection.
	Gaps []Gap
}

// SessionLowering is the one rule for the lowering a session's requests
// are rendered under: "" for agents that build their own requests (Claude
// Code, Codex, Gemini CLI), native for opencode v2 sessions (the v2 loop
// always lowers natively), and for v1 sessions the one chosen, ai-sdk by
// default (the native flag is not recorded in the store).
func SessionLowering(info model.SessionInfo, chosen model.Lowering) model.Lowering {
	switch {
	case !info.Agent.UsesOpencode():
		return ""
	case info.Pipeline == model.PipelineV2:
		return model.LoweringNative
	case chosen == "":
		return model.LoweringAISDK
	}
	return chosen
}

// Placer records placements as a lowering builds the wire.
type Placer struct {
	places Placements
	low    model.Lowering
	gaps   []Gap
	lazy   *LazyConversation // the conversation is written lazily
	// docs is Bedrock's document count before the prompt lowered: one
	// count for the whole conversation, lowered a window at a time or not
	docs int
}

// Lazy tells whether the conversation is written lazily: an own wire may
// then leave its large strings in the store (Defer).
func (pl *Placer) Lazy() bool { return pl != nil && pl.lazy != nil }

// Defer is the placeholder an own wire puts in the conversation in the
// place of a large string the store holds in the form the wire writes,
// as the body of its JSON string, which body writes (a piece at a time)
// when the conversation is written; only when Lazy.
func (pl *Placer) Defer(body func(ctx context.Context, write func(body string) error) error) string {
	return pl.lazy.placeholderFor(body)
}

// OnClose makes closed run once the lazy conversation is no longer
// written (LazyConversation.Close); only when Lazy.
func (pl *Placer) OnClose(closed func() error) {
	pl.lazy.closers = append(pl.lazy.closers, closed)
}

// Gap records places of an agent's own wire its store does not hold as
// sent.
func (pl *Placer) Gap(gs ...Gap) {
	if pl != nil {
		pl.gaps = append(pl.gaps, gs...)
	}
}

func newPlacer(low model.Lowering) *Placer {
	return &Placer{places: Placements{}, low: low}
}

func (pl *Placer) of(id string) *Placement {
	p := pl.places[id]
	if p == nil {
		p = &Placement{Call: Spot{Item: -1}, Lowering: pl.low}
		pl.places[id] = p
	}
	return p
}

// Call records call id at entry at of item.
func (pl *Placer) Call(id string, item, at int) {
	if pl == nil || id == "" {
		return
	}
	if p := pl.of(id); p.Call.Item < 0 {
		p.Call = Spot{item, at, 1}
	}
}

// Result records n entries of the result of call id from entry at of item.
func (pl *Placer) Result(id string, item, at, n int) {
	if pl != nil && id != "" && n > 0 {
		p := pl.of(id)
		p.Results = extend(p.Results, Spot{item, at, n})
	}
}

// Media records entry at of item as media moved out of call id's result.
func (pl *Placer) Media(id string, item, at int) {
	if pl != nil && id != "" {
		p := pl.of(id)
		p.Media = extend(p.Media, Spot{item, at, 1})
	}
}

// put records prompt part pt, now n entries from entry at of item: a
// call, a result, or media moved out of a result (pt.of set); other parts
// are not placed.
func (pl *Placer) put(pt part, item, at, n int) {
	switch {
	case pt.kind == pToolCall:
		pl.Call(pt.of, item, at)
	case pt.kind == pToolResult:
		pl.Result(pt.of, item, at, n)
	case pt.of != "":
		for k := range n {
			pl.Media(pt.of, item, at+k)
		}
	}
}

// pending are puts whose item (and offset in it) is known later.
type pending []pendingPut

type pendingPut struct {
	pt    part
	at, n int
}

func (ps *pending) add(pt part, at, n int) { *ps = append(*ps, pendingPut{pt, at, n}) }

// commit records the pending puts in item, their entries offset by off.
func (pl *Placer) commit(ps pending, item, off int) {
	for _, p := range ps {
		pl.put(p.pt, item, p.at+off, p.n)
	}
}

// extend adds s to spots, joining it to the last when it continues it.
func extend(spots []Spot, s Spot) []Spot {
	if n := len(spots); n > 0 {
		last := &spots[n-1]
		if last.Item == s.Item && last.Part >= 0 && last.Part+last.Parts == s.Part {
			last.Parts += s.Parts
			return spots
		}
		if *last == s {
			return spots
		}
	}
	return append(spots, s)
}
