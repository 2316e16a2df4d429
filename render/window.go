package render

import (
	"context"
	"fmt"
	"io"
	"slices"

	"correx/model"
)

// Windowed lowering: the conversation of a long session lowered and
// written a window of messages at a time, so that a request of 50,000
// calls is never held whole (its outline, its prompt, or its wire).
//
// On the AI SDK path every step of the lowering looks at one message
// alone, but for three that look further:
//   - the converters of Anthropic and Bedrock merge consecutive user and
//     tool messages, and consecutive assistant messages: a window starts
//     with an assistant message that follows a tool or user one (both
//     left by normalizeMessages' dropping of empty content), where none
//     merges (and Mistral's rule on a tool message followed by a user one
//     stays inside a window);
//   - applyCaching marks the prompt's last two messages: only the last
//     window is given its marks, and it holds at least two messages (it
//     starts at the last window start but one before the step);
//   - Bedrock's converter numbers documents across the prompt (carried
//     from window to window), and merges a user message into the one
//     before when the assistant message between them is left with nothing
//     but cache points: a window that does not start with its assistant
//     message is lowered again together with the one before it, which is
//     written only once the next is lowered.
//
// The native lowering is not windowed: its cache mark goes on the newest
// user text, wherever that is.

// Pages gives the messages of an outline from index lo on with their
// parts (those of a page of the outline, at least one), for a lowering a
// window at a time; what it returns is read, never changed.
type Pages func(ctx context.Context, lo int) ([]model.Message, error)

// WindowMessages is how many prompt messages a window gathers before it
// is lowered and written (tests lower it).
var WindowMessages = 256

// Windowed is a conversation lowered a window at a time (WriteWindowed).
type Windowed struct {
	// Last is the conversation's last window: its Value a list of the
	// conversation's last items, Places where the calls and results
	// among them sit (items counted from the first of them). The calls
	// whose results the step's request carries first are among them.
	Last *LazyConversation
	// Before is how many items come before Last's.
	Before int
	// Carried are the ids of the calls of the step before, whose results
	// the request carries first (all among Last's items).
	Carried []string
}

// Items is the number of the conversation's items.
func (w *Windowed) Items() int {
	items, _ := w.Last.Value.([]Value)
	return w.Before + len(items)
}

// Windowable says whether the conversation of step (0: the last) of s on
// p for m can be lowered a window at a time (WriteWindowed).
func Windowable(s *model.Session, p Provider, step int, m Model) bool {
	at, ok := stepAt(s, step)
	if !ok || s.Messages[at].Request != nil || s.Info.Pipeline == model.PipelineV2 {
		return false
	}
	if _, registered := ownWireOf(s.Info.Agent); registered {
		return false
	}
	return SessionLowering(s.Info, m.Lowering) == model.LoweringAISDK
}

// stepAt is the index of the assistant message of step (0: the last).
func stepAt(s *model.Session, step int) (int, bool) {
	steps := s.AssistantSteps()
	if step == 0 {
		step = len(steps)
	}
	if step < 1 || step > len(steps) {
		return 0, false
	}
	return steps[step-1], true
}

// WriteWindowed is ConversationLazy of s, an outline whose messages'
// parts pages gives (nil: s holds them), lowered a window at a time (when
// Windowable; else it gives nil and writes nothing). With w set, it
// writes the conversation to w as it goes, as WriteIndent writes it
// whole; else it only counts its items. What it gives is the last
// window, to be closed.
func WriteWindowed(ctx context.Context, l OutputLoader, s *model.Session, pages Pages, p Provider, step int, m Model, w io.Writer) (*Windowed, error) {
	if !Windowable(s, p, step, m) {
		return nil, nil
	}
	at, _ := stepAt(s, step)
	if pages == nil {
		pages = func(_ context.Context, lo int) ([]model.Message, error) {
			return s.Messages[lo:min(lo+WindowMessages, len(s.Messages))], nil
		}
	}
	return WriteWindowedAt(ctx, l, s.Info, at, &s.Messages[at], pages, p, m, w)
}

// WriteWindowedAt is WriteWindowed of the request answered by message at
// of a session of info, stepMsg, once Windowable said it can be: what a
// caller that does not hold the session's messages gives (pages reads
// them).
func WriteWindowedAt(ctx context.Context, l OutputLoader, info model.SessionInfo, at int, stepMsg *model.Message, pages Pages, p Provider, m Model, w io.Writer) (*Windowed, error) {
	if m.ModelID == "" {
		m.ProviderID, m.ModelID = stepMsg.ProviderID, stepMsg.ModelID
	}
	m.Lowering = model.LoweringAISDK
	s := &model.Session{Info: info}
	wr := &windower{s: s, l: l, p: p, m: m, lw: &listWriter{w: w}}
	var carry []entry
	prompts := 0
	for lo := 0; lo < at; {
		msgs, err := pages(ctx, lo)
		if err != nil {
			return nil, err
		}
		if len(msgs) == 0 {
			return nil, fmt.Errorf("session %s: its outline ended at message %d of %d", s.Info.ID, lo, at)
		}
		for _, om := range msgs[:min(len(msgs), at-lo)] {
			e, err := wr.entry(ctx, om, true)
			if err != nil {
				return nil, err
			}
			carry = append(carry, e)
			prompts += len(e.prompt)
			if om.Role == model.RoleAssistant {
				wr.carried = callIDs(om)
			}
		}
		lo += len(msgs)
		if prompts < WindowMessages {
			continue
		}
		if cut := penultimateStart(carry); cut > 0 {
			if err := wr.push(ctx, carry[:cut], false); err != nil {
				return nil, err
			}
			carry = slices.Clone(carry[cut:]) // the window's messages let go
			prompts = 0
			for _, e := range carry {
				prompts += len(e.prompt)
			}
		}
	}
	if err := wr.push(ctx, carry, true); err != nil {
		return nil, err
	}
	last := wr.held
	if err := wr.lw.items(ctx, last.c, last.items); err != nil {
		return nil, err
	}
	if err := wr.lw.end(); err != nil {
		return nil, err
	}
	return &Windowed{Last: last.c, Before: wr.items - len(last.items), Carried: wr.carried}, nil
}

// callIDs are the ids of the calls of m.
func callIDs(m model.Message) []string {
	var ids []string
	for _, pt := range m.Parts {
		if pt.Tool != nil && pt.Tool.CallID != "" {
			ids = append(ids, pt.Tool.CallID)
		}
	}
	return ids
}

// entry is a message of the outline, its elided calls given placeholders
// (or read whole), and its prompt messages, prepared (prepPrompt).
type entry struct {
	outline model.Message // as the outline gave it
	prompt  []msg
	parts   map[string]lazyPart // its placeholders'
}

// windower lowers the windows of one conversation and writes them.
type windower struct {
	s    *model.Session
	l    OutputLoader
	p    Provider
	m    Model
	lw   *listWriter
	docs int // Bedrock's document count before the window lowered next
	// held is the window lowered last, written once the next is lowered
	// (or is the last)
	held    *window
	items   int      // of the windows lowered, held's included
	carried []string // the calls of the last assistant message read
}

// window is a lowered window.
type window struct {
	entries []entry
	c       *LazyConversation
	items   []Value
	docs    int // Bedrock's document count before it
}

// entry resolves om, with lazy its elided calls given placeholders where
// they can be, and prepares its prompt messages.
func (wr *windower) entry(ctx context.Context, om model.Message, lazy bool) (entry, error) {
	c := &LazyConversation{l: wr.l, sessionID: wr.s.Info.ID, parts: map[string]lazyPart{}}
	msg := om
	if err := c.resolveMessage(ctx, &msg, lazy); err != nil {
		return entry{}, err
	}
	e := entry{outline: om, prompt: prepPrompt(promptMsgs(wr.s, []model.Message{msg}, wr.p, wr.m), wr.p, wr.m)}
	if len(c.parts) > 0 {
		e.parts = c.parts
	}
	return e, nil
}

// penultimateStart is the start of the last window but one among entries
// (0: none): an entry whose prompt starts with an assistant message, after
// a tool or user message, where no converter merges two messages.
func penultimateStart(entries []entry) int {
	last, prev := 0, 0
	before := "" // the role of the last prompt message so far
	for j, e := range entries {
		if len(e.prompt) == 0 {
			continue
		}
		if j > 0 && e.prompt[0].role == "assistant" && (before == "tool" || before == "user") {
			last, prev = j, last
		}
		before = e.prompt[len(e.prompt)-1].role
	}
	return prev
}

// push lowers entries, the next window (last: the conversation's last),
// and writes the window held before it; a window whose first item would
// be merged with the one before (startsWell) is lowered again together
// with the held one.
func (wr *windower) push(ctx context.Context, entries []entry, last bool) error {
	win, err := wr.lower(ctx, entries, wr.docs, last)
	if err != nil {
		return err
	}
	if h := wr.held; h != nil && !startsWell(wr.p, win.items) {
		win.c.Close()
		h.c.Close()
		wr.held, wr.items = nil, wr.items-len(h.items)
		if win, err = wr.lower(ctx, append(slices.Clone(h.entries), entries...), h.docs, last); err != nil {
			return err
		}
	}
	if err := wr.write(ctx); err != nil {
		win.c.Close()
		return err
	}
	wr.held, wr.items = win, wr.items+len(win.items)
	return nil
}

// startsWell says whether a window's items start with its first message,
// an assistant one, as they do in the whole conversation: an assistant
// message Bedrock's converter leaves with nothing but cache points is not
// sent, and the user message after it joins the one before.
func startsWell(p Provider, items []Value) bool {
	if p != Bedrock || len(items) == 0 {
		return true
	}
	o, ok := items[0].(Obj)
	if !ok {
		return false
	}
	role, _ := o.Get("role")
	return role == "assistant"
}

// lower lowers entries as a window, Bedrock's document count at docs
// before it; a window whose converter embedded a placeholder in a larger
// string is lowered again with its calls read whole.
func (wr *windower) lower(ctx context.Context, entries []entry, docs int, last bool) (*window, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	win := &window{entries: entries, docs: docs}
	c := &LazyConversation{l: wr.l, sessionID: wr.s.Info.ID, parts: map[string]lazyPart{}}
	var prompt []msg
	for _, e := range entries {
		for _, pm := range e.prompt {
			pm.parts = slices.Clone(pm.parts) // finishPrompt rewrites them
			prompt = append(prompt, pm)
		}
		for t, lp := range e.parts {
			c.parts[t] = lp
		}
	}
	pl := newPlacer(model.LoweringAISDK)
	pl.lazy, pl.docs = c, docs
	v, err := lower(finishPrompt(prompt, wr.p, wr.m, last), wr.p, wr.m.ModelID, pl)
	if err != nil {
		return nil, err
	}
	if len(c.parts) > 0 && !c.standalone(v) {
		whole := make([]entry, len(entries))
		for i, e := range entries {
			if whole[i], err = wr.entry(ctx, e.outline, false); err != nil {
				return nil, err
			}
		}
		return wr.lower(ctx, whole, docs, last)
	}
	wr.docs = pl.docs
	win.items, _ = v.([]Value)
	c.Value, c.Places = win.items, pl.places
	win.c = c
	return win, nil
}

// write writes the held window's items and lets it go.
func (wr *windower) write(ctx context.Context) error {
	h := wr.held
	if h == nil {
		return nil
	}
	wr.held = nil
	defer h.c.Close()
	return wr.lw.items(ctx, h.c, h.items)
}

// listWriter writes the items of a list given a window at a time as
// WriteIndent writes the list whole: "[\n  A,\n  B\n]", "[]" when empty.
type listWriter struct {
	w io.Writer // nil: nothing is written
	n int       // items written
}

// items writes items, of c.
func (lw *listWriter) items(ctx context.Context, c *LazyConversation, items []Value) error {
	if lw.w == nil || len(items) == 0 {
		return nil
	}
	// WriteIndent(items) is "[" + "\n  A,\n  B" + "\n]"
	hw := &holdBack{w: &skipFirst{w: lw.w, with: lw.n > 0}, n: len("\n]")}
	if err := c.WriteIndent(ctx, hw, items); err != nil {
		return err
	}
	if string(hw.held) != "\n]" {
		return fmt.Errorf("render: a window's JSON ends in %q", hw.held)
	}
	lw.n += len(items)
	return nil
}

// end ends the list.
func (lw *listWriter) end() error {
	if lw.w == nil {
		return nil
	}
	end := "\n]"
	if lw.n == 0 {
		end = "[]"
	}
	_, err := io.WriteString(lw.w, end)
	return err
}

// skipFirst writes what is written to it to w, its first byte (a list's
// "[") replaced by a comma when with is set.
type skipFirst struct {
	w       io.Writer
	with    bool
	started bool
}

func (s *skipFirst) Write(p []byte) (int, error) {
	n := len(p)
	if !s.started && len(p) > 0 {
		s.started = true
		if s.with {
			if _, err := io.WriteString(s.w, ","); err != nil {
				return 0, err
			}
			p = p[1:]
		}
	}
	if _, err := s.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}
