package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
)

// Lazy conversations: the wire JSON of a session outline (whose large tool
// outputs were left in the store, model.ToolCall.Elided) written without
// holding those outputs. A call whose model-visible result is its output
// or error text is lowered with a placeholder, a unique string, in the
// place of that text; every converter puts the result text in the JSON as
// a string leaf of its own, so the writer replaces each placeholder leaf
// by the real text, streamed from the store then (TextStreamer) and
// escaped a piece at a time. Whatever the outline cannot vouch for
// (attachments, interrupted calls, a placeholder found inside a larger
// string) is read whole first.

// OutputLoader reads a tool call whole (sessions.OutputLoader).
type OutputLoader interface {
	LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error)
}

// RequestLoader reads a logged request an outline left in the store
// (sessions.RequestLoader), a copy of its own for each call.
type RequestLoader interface {
	LoadRequest(ctx context.Context, sessionID string, msg int) (*model.LoggedRequest, error)
}

// LazyConversation is a conversation whose large results are read as it is
// written.
type LazyConversation struct {
	// Value is the conversation, placeholders included: write it (or any
	// part of it) with WriteIndent or MarshalIndent, not the package's.
	Value Value
	// Places are where each call and its result sit in Value; Gaps as in
	// Rendered.
	Places    Placements
	Gaps      []Gap
	l         OutputLoader
	sessionID string
	mu        sync.Mutex          // parts: an own wire may read its records side by side
	parts     map[string]lazyPart // by placeholder
	closers   []func() error
}

// DeferringRequestLoader is a RequestLoader that can leave the large
// strings of a logged request in its store (sessions.DeferringRequestLoader):
// it puts in the request, in the place of each, the placeholder place
// returns for the body writer that writes it (as the body of the JSON
// string formatters.Stringify writes for it, a piece at a time) when the
// conversation is written; closed, once no longer written, closes what
// the writers read from.
type DeferringRequestLoader interface {
	LoadRequestDeferred(ctx context.Context, sessionID string, msg int, place func(body func(ctx context.Context, write func(body string) error) error) string) (req *model.LoggedRequest, closed func() error, err error)
}

// Close lets go of what the conversation's writes read from; it may be
// written again after.
func (c *LazyConversation) Close() error {
	var errs []error
	for _, f := range c.closers {
		errs = append(errs, f())
	}
	return errors.Join(errs...)
}

// lazyPart is the part whose output or error (field) a placeholder stands
// for, or (body set) a string a DeferringRequestLoader left in its store.
type lazyPart struct {
	id, field string
	body      func(ctx context.Context, write func(body string) error) error
}

// placeholderSeq makes every placeholder of the process unique.
var placeholderSeq atomic.Int64

// newPlaceholder is a placeholder no other is.
func newPlaceholder() string {
	return placeholderMark + strconv.FormatInt(placeholderSeq.Add(1), 10) + "\x00"
}

// placeholderMark starts every placeholder: NUL bytes and the start time
// of the process, which no stored text can foresee.
var placeholderMark = fmt.Sprintf("\x00correx-lazy-%x:", time.Now().UnixNano())

// ConversationLazy is Conversation (step 0 is the last) over s, an
// outline of a session: its elided calls up to the step are read from l
// when the outline does not say enough to lower them, and otherwise
// lowered with a placeholder. s is not changed.
func ConversationLazy(ctx context.Context, l OutputLoader, s *model.Session, p Provider, step int, m Model) (*LazyConversation, error) {
	cs, err := ConversationsLazy(ctx, l, s, []Provider{p}, step, m)
	if len(cs) == 0 {
		return nil, err
	}
	return cs[0], err
}

// ConversationsLazy is ConversationLazy on each of ps, the outline
// resolved, and a logged request read, once for them all: Compare lowers
// a step on two providers, and Claude Code's logged request, read again
// from its transcript, was half of each lowering. The conversations share
// what their writes read from; each Close lets it go, and a write after
// reads it again. On an error, the conversations so far come with it,
// the last the one that failed.
func ConversationsLazy(ctx context.Context, l OutputLoader, s *model.Session, ps []Provider, step int, m Model) ([]*LazyConversation, error) {
	shared := &LazyConversation{l: l, sessionID: s.Info.ID, parts: map[string]lazyPart{}}
	sess, own, err := shared.resolve(ctx, s, step, true)
	if err != nil {
		shared.Close()
		return nil, err
	}
	out := make([]*LazyConversation, 0, len(ps))
	for i, p := range ps {
		c := &LazyConversation{l: l, sessionID: s.Info.ID, parts: shared.parts, closers: shared.closers}
		// the last may spend the logged request it was read for
		r, err := render(sess, p, step, m, own && i == len(ps)-1, c)
		if err != nil {
			return append(out, c), err
		}
		c.Value, c.Places, c.Gaps = r.Value, r.Places, r.Gaps
		if len(c.parts) > 0 && !c.standalone(c.Value) {
			// a converter embedded a placeholder: lower it all from the
			// outputs
			c, err = conversationWhole(ctx, l, s, p, step, m)
			c.closers = append(c.closers, shared.closers...) // the others' may be no more
			if err != nil {
				return append(out, c), err
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// WindowRequestLoader is a DeferringRequestLoader that can read the first
// or the last messages of a logged request alone
// (sessions.WindowRequestLoader).
type WindowRequestLoader interface {
	LoadRequestWindow(ctx context.Context, sessionID string, msg, head, tail int, place func(body func(ctx context.Context, write func(body string) error) error) string) (req *model.LoggedRequest, from int, closed func() error, err error)
}

// ConversationHead is the head of ConversationLazy's conversation, read and
// lowered in a moment however long the whole: its Value is a list whose
// first exact items are those of the whole conversation, byte for byte
// (what follows them may differ). It is lowered from the first n messages
// of the step's logged request, where the agent's own wire lowers one a
// message (OwnWire.ItemPerLogged) and the store can read them alone, or
// is an earlier request that the step's starts with (OwnWire.HeadTo); exact
// is 0, and c nil, when it cannot be, or the request is not much longer.
func ConversationHead(ctx context.Context, l OutputLoader, s *model.Session, p Provider, step int, m Model, n int) (c *LazyConversation, exact int, err error) {
	steps := s.AssistantSteps()
	if step == 0 {
		step = len(steps)
	}
	own, registered := ownWireOf(s.Info.Agent)
	if step < 1 || step > len(steps) || !registered || p != own.Provider || n < 2 {
		return nil, 0, nil
	}
	at := steps[step-1]
	if s.Messages[at].Request == nil {
		if own.HeadTo == nil {
			return nil, 0, nil
		}
		to := own.HeadTo(s, at, n)
		if to <= 0 || to >= at {
			return nil, 0, nil
		}
		c, err = ConversationLazy(ctx, l, s, p, slices.Index(steps, to)+1, m)
		if err != nil {
			if c != nil {
				c.Close()
			}
			return nil, 0, err
		}
		if items, ok := c.Value.([]Value); ok && len(items) > 1 {
			return c, len(items) - 1, nil // the last may be joined with what follows
		}
		c.Close()
		return nil, 0, nil
	}
	if !own.ItemPerLogged {
		return nil, 0, nil
	}
	c, cp, err := windowed(ctx, l, s, at, n, 0)
	if c == nil {
		return nil, 0, err
	}
	r, err := render(cp, p, step, m, true, c)
	if err != nil {
		c.Close()
		return nil, 0, err
	}
	items, _ := r.Value.([]Value)
	if len(items) != len(cp.Messages[at].Request.Messages) || !c.standalone(r.Value) {
		c.Close()
		return nil, 0, nil
	}
	c.Value, c.Places, c.Gaps = r.Value, r.Places, r.Gaps
	return c, len(items) - 1, nil // the last is lowered as the request's last
}

// ConversationsTail is ConversationsLazy of the end of the step's
// conversation alone, read and lowered in a moment however long the
// whole: each Value is a list of the whole conversation's last items,
// byte for byte, and its Places say where the calls and results among
// them sit in it. It is lowered from the last messages of the step's
// logged request (at most n, from the first assistant message among
// them): every converter lowers a message at a time but for merging
// consecutive messages of one role (never a user message with the
// assistant one after it), and Claude Code's cache mark sits on the last.
// It is nil when it cannot be: no logged request, an own wire that is not
// a message an item (OwnWire.ItemPerLogged), a request of no more than n
// messages, or a result in the window whose call is before it (its tool
// named by the call).
//
// An agent without logged requests whose own wire says where its end can
// be lowered alone (OwnWire.TailFrom) has it lowered from the session's
// messages from there on, the same way.
func ConversationsTail(ctx context.Context, l OutputLoader, s *model.Session, ps []Provider, step int, m Model, n int) ([]*LazyConversation, error) {
	steps := s.AssistantSteps()
	if step == 0 {
		step = len(steps)
	}
	if step < 1 || step > len(steps) || n < 1 {
		return nil, nil
	}
	own, registered := ownWireOf(s.Info.Agent)
	at := steps[step-1]
	if s.Messages[at].Request == nil {
		switch {
		case !registered:
			return ownTail(ctx, l, s, ps, at, m, promptTailFrom(s, at, n))
		case own.TailFrom == nil:
			return nil, nil
		}
		return ownTail(ctx, l, s, ps, at, m, own.TailFrom(s, at, n))
	}
	for _, p := range ps {
		if registered && p == own.Provider && !own.ItemPerLogged {
			return nil, nil
		}
	}
	shared, cp, err := windowed(ctx, l, s, at, 0, n)
	if shared == nil {
		return nil, err
	}
	if !selfContained(cp.Messages[at].Request) {
		shared.Close()
		return nil, nil
	}
	out := make([]*LazyConversation, 0, len(ps))
	for i, p := range ps {
		c := &LazyConversation{l: l, sessionID: s.Info.ID, parts: shared.parts, closers: shared.closers}
		r, err := render(cp, p, step, m, i == len(ps)-1, c)
		if err != nil || !c.standalone(r.Value) {
			shared.Close()
			return nil, err
		}
		if _, ok := r.Value.([]Value); !ok {
			shared.Close()
			return nil, nil
		}
		c.Value, c.Places, c.Gaps = r.Value, r.Places, r.Gaps
		out = append(out, c)
	}
	return out, nil
}

// windowed reads the first head (or last tail) messages of the logged
// request of message at of s, left in the store, for a conversation of
// its own, and gives s with it in the place of the outline's; c is nil
// when there is none (a store that cannot, a request no longer).
func windowed(ctx context.Context, l OutputLoader, s *model.Session, at, head, tail int) (c *LazyConversation, withReq *model.Session, err error) {
	wl, ok := l.(WindowRequestLoader)
	if !ok || !s.Messages[at].Request.Elided {
		return nil, nil, nil
	}
	c = &LazyConversation{l: l, sessionID: s.Info.ID, parts: map[string]lazyPart{}}
	req, _, closed, err := wl.LoadRequestWindow(ctx, s.Info.ID, at, head, tail, c.placeholderFor)
	if closed != nil {
		c.closers = append(c.closers, closed)
	}
	if err != nil || req == nil {
		c.Close()
		return nil, nil, err
	}
	cp := *s
	cp.Messages = slices.Clone(s.Messages)
	cp.Messages[at].Request = req
	return c, &cp, nil
}

// ownTail is ConversationsTail of the request answered by message at of
// s, lowered from the session's messages from on.
func ownTail(ctx context.Context, l OutputLoader, s *model.Session, ps []Provider, at int, m Model, from int) ([]*LazyConversation, error) {
	if from <= 0 || from >= at {
		return nil, nil
	}
	cut := *s
	cut.Messages = s.Messages[from:]
	lcs, err := ConversationsLazy(ctx, l, &cut, ps, slices.Index(cut.AssistantSteps(), at-from)+1, m)
	if err != nil {
		for _, lc := range lcs {
			lc.Close()
		}
		return nil, err
	}
	for _, lc := range lcs {
		if _, ok := lc.Value.([]Value); !ok {
			for _, lc := range lcs {
				lc.Close()
			}
			return nil, nil
		}
		lc.Gaps = nil // the cut session's, not the whole's
	}
	return lcs, nil
}

// promptTailFrom is OwnWire.TailFrom for the sessions lowered through the
// prompt (opencode's and its forks'): the last assistant message at or
// before n messages before upto that follows an assistant message all of
// whose calls have results (its tool message then stands between the two)
// or a user message, in a request whose call ids are all distinct.
func promptTailFrom(s *model.Session, upto, n int) int {
	if !s.DistinctCallIDs(upto) {
		return 0
	}
	for f := upto - n; f > 0; f-- {
		prev := &s.Messages[f-1]
		if s.Messages[f].Role == model.RoleAssistant && (prev.Role == model.RoleUser || prev.CallsAnswered()) {
			return f
		}
	}
	return 0
}

// selfContained trims req, a window of a logged request, to start at its
// first assistant message, and tells whether every tool_result then in it
// follows its tool_use in it (the result is lowered with the call's tool
// name) and no system message is in it (a converter takes those out of
// the list).
func selfContained(req *model.LoggedRequest) bool {
	first := -1
	calls := map[string]bool{}
	for i, raw := range req.Messages {
		d := decodeMessage(raw)
		if d.err != nil || d.m.Role == "system" {
			return false
		}
		if first < 0 {
			if d.m.Role != "assistant" {
				continue
			}
			first = i
		}
		for _, b := range d.blocks {
			switch b.Type {
			case "tool_use", "server_tool_use":
				calls[b.ID] = true
			case "tool_result":
				if !calls[b.ToolUseID] {
					return false
				}
			}
		}
	}
	if first < 0 {
		return false
	}
	req.Messages = req.Messages[first:]
	cache := req.Cache[:0:0]
	for _, c := range req.Cache {
		if c.Message >= first {
			c.Message -= first
			cache = append(cache, c)
		}
	}
	req.Cache = cache
	return true
}

// WriteHead writes the start of the whole conversation's JSON (WriteIndent)
// that c, a ConversationHead, holds: its first exact items' JSON without
// the list's end ("\n]"), which the whole continues with ",\n".
func (c *LazyConversation) WriteHead(ctx context.Context, w io.Writer, exact int) error {
	items, ok := c.Value.([]Value)
	if !ok || exact < 1 || exact > len(items) {
		return fmt.Errorf("no head of %d items", exact)
	}
	hw := &holdBack{w: w, n: len("\n]")}
	if err := c.WriteIndent(ctx, hw, items[:exact]); err != nil {
		return err
	}
	if string(hw.held) != "\n]" {
		return fmt.Errorf("the head's JSON ends in %q", hw.held)
	}
	return nil
}

// holdBack writes all but the last n bytes written to it to w; held are
// those.
type holdBack struct {
	w    io.Writer
	n    int
	held []byte
}

func (h *holdBack) Write(p []byte) (int, error) {
	h.held = append(h.held, p...)
	if out := len(h.held) - h.n; out > 0 {
		if _, err := h.w.Write(h.held[:out]); err != nil {
			return 0, err
		}
		h.held = append(h.held[:0], h.held[out:]...)
	}
	return len(p), nil
}

// conversationWhole is ConversationLazy with no placeholder: every elided
// call up to the step read whole first.
func conversationWhole(ctx context.Context, l OutputLoader, s *model.Session, p Provider, step int, m Model) (*LazyConversation, error) {
	c := &LazyConversation{l: l, sessionID: s.Info.ID, parts: map[string]lazyPart{}}
	sess, own, err := c.resolve(ctx, s, step, false)
	if err != nil {
		return c, err
	}
	r, err := render(sess, p, step, m, own, nil)
	if err != nil {
		return c, err
	}
	c.Value, c.Places, c.Gaps = r.Value, r.Places, r.Gaps
	return c, nil
}

// resolve returns a copy of s whose elided calls of the messages up to
// step are read whole or, with lazy, given placeholders when they can be;
// own tells that the step's logged request was read for this copy alone.
func (c *LazyConversation) resolve(ctx context.Context, s *model.Session, step int, lazy bool) (_ *model.Session, own bool, _ error) {
	last := len(s.Messages) - 1
	if steps := s.AssistantSteps(); step > 0 && step <= len(steps) {
		last = steps[step-1]
	}
	cp := *s
	cp.Messages = append([]model.Message(nil), s.Messages...)
	if steps := s.AssistantSteps(); len(steps) > 0 && step <= len(steps) {
		at := steps[len(steps)-1]
		if step > 0 {
			at = steps[step-1]
		}
		if req := cp.Messages[at].Request; req != nil {
			// a logged request is all Render reads of the session
			if req.Elided {
				full, err := c.loadRequest(ctx, s.Info.ID, at, lazy)
				if err != nil {
					return nil, false, err
				}
				cp.Messages[at].Request, own = full, true
			}
			return &cp, own, nil
		}
	}
	for mi := 0; mi <= last && mi < len(cp.Messages); mi++ {
		if err := c.resolveMessage(ctx, &cp.Messages[mi], lazy); err != nil {
			return nil, false, err
		}
	}
	return &cp, false, nil
}

// resolveMessage gives msg, a message of an outline, parts of its own
// where its elided calls are read whole or, with lazy, given placeholders
// when they can be.
func (c *LazyConversation) resolveMessage(ctx context.Context, msg *model.Message, lazy bool) error {
	copied := false
	for pi, pt := range msg.Parts {
		if pt.Tool == nil || !pt.Tool.Elided {
			continue
		}
		if !copied {
			msg.Parts, copied = append([]model.Part(nil), msg.Parts...), true
		}
		if lazy {
			if ph := c.placeholder(pt.Tool, pt.ID); ph != nil {
				msg.Parts[pi].Tool = ph
				continue
			}
		}
		full, err := c.l.LoadOutput(ctx, c.sessionID, pt.ID)
		if err != nil {
			return err
		}
		msg.Parts[pi].Tool = full
	}
	return nil
}

// loadRequest reads the logged request of message msg, with lazy its
// large strings left in the store where the loader can.
func (c *LazyConversation) loadRequest(ctx context.Context, sessionID string, msg int, lazy bool) (*model.LoggedRequest, error) {
	if dl, ok := c.l.(DeferringRequestLoader); ok && lazy {
		req, closed, err := dl.LoadRequestDeferred(ctx, sessionID, msg, c.placeholderFor)
		if closed != nil {
			c.closers = append(c.closers, closed)
		}
		return req, err
	}
	rl, ok := c.l.(RequestLoader)
	if !ok {
		return nil, fmt.Errorf("session %s: the store cannot read the logged request of message %d", sessionID, msg)
	}
	return rl.LoadRequest(ctx, sessionID, msg)
}

// placeholderFor is a new placeholder of a string body writes.
func (c *LazyConversation) placeholderFor(body func(ctx context.Context, write func(body string) error) error) string {
	token := newPlaceholder()
	c.mu.Lock()
	c.parts[token] = lazyPart{body: body}
	c.mu.Unlock()
	return token
}

// placeholder returns the outline call oc with a placeholder in the place
// of the text its result shows, or nil when oc must be read whole.
func (c *LazyConversation) placeholder(oc *model.ToolCall, partID string) *model.ToolCall {
	field, ok := VerbatimField(oc)
	if !ok {
		return nil
	}
	ph := *oc
	ph.Elided, ph.ElidedFiles = false, false
	if field != "" {
		token := newPlaceholder()
		text := &ph.Error
		if field == "output" {
			text = &ph.Output
		}
		if ph.Sent != nil && ph.Sent.Text == *text {
			sent := *ph.Sent
			sent.Text = token
			ph.Sent = &sent
		}
		*text = token
		c.parts[token] = lazyPart{id: partID, field: field}
	}
	return &ph
}

// placeholderJSON is in every JSON text that holds a placeholder: the
// mark after its NUL (written \u0000).
var placeholderJSON = []byte(placeholderMark[1:])

// Marks for VerbatimField.
var (
	outputMark = placeholderMark + "output\x00"
	errorMark  = placeholderMark + "error\x00"
)

// VerbatimField tells what oc's model-visible result shows of the output
// and error that an outline leaves in the store: field "output" or "error"
// when the result is exactly that text, "" when it shows neither (a
// compacted call, one that never finished). ok is false when oc is to be
// read whole: the outline vouches for every input of the result but those
// two, save the attachments and an interrupted call's live output; a
// Sent text or error result that is the output or the error stands for it.
// A streamed call (sessions.TextStreamer) is asked as AsOutlined gives it.
func VerbatimField(oc *model.ToolCall) (field string, ok bool) {
	if oc.ElidedFiles || oc.IsV2() || (oc.Status == model.StatusError && bytes.Contains(oc.Metadata, []byte(`"interrupted"`))) {
		return "", false
	}
	ph := *oc
	if s := oc.Sent; s != nil && (s.Type == model.ResultText || s.Type == model.ResultError) && s.JSON == nil && len(s.Content) == 0 {
		// the agent's record of what it sent (Codex, Copilot): a text
		// that is the output or the error stands for it
		sent := *s
		switch sent.Text {
		case oc.Output:
			sent.Text = outputMark
		case oc.Error:
			sent.Text = errorMark
		}
		ph.Sent = &sent
	}
	ph.Output, ph.Error, ph.Elided, ph.ElidedFiles = outputMark, errorMark, false, false
	// the result before any lowering: the one a lowering rewrites
	// (attachments) is never exactly the output, so it is read whole
	r := formatters.Result(&ph)
	exact := (r.Type == model.ResultText || r.Type == model.ResultError) && r.JSON == nil
	switch {
	case exact && r.Text == outputMark:
		return "output", true
	case exact && r.Text == errorMark:
		return "error", true
	case !strings.Contains(formatters.ResultText(r), placeholderMark) && !bytes.Contains(r.JSON, placeholderJSON):
		return "", true
	}
	return "", false
}

// AsOutlined is a whole call as its outline gives it when the result
// stored as sent (Sent) is exactly its output (completed) or its error:
// an outline drops Sent with the text (Gemini CLI's).
func AsOutlined(call *model.ToolCall) *model.ToolCall {
	s := call.Sent
	if s == nil || !(s.Type == model.ResultText && s.Text == call.Output && call.Status == model.StatusCompleted ||
		s.Type == model.ResultError && s.Text == call.Error && call.Status == model.StatusError) {
		return call
	}
	c := *call
	c.Sent = nil
	return &c
}

// standalone reports whether every string of v that holds a placeholder
// is one whole.
func (c *LazyConversation) standalone(v Value) bool {
	switch x := v.(type) {
	case Obj:
		for _, f := range x {
			if strings.Contains(f.Key, placeholderMark) || !c.standalone(f.Val) {
				return false
			}
		}
	case []Value:
		for _, it := range x {
			if !c.standalone(it) {
				return false
			}
		}
	case string:
		if strings.Contains(x, placeholderMark) {
			_, ok := c.parts[x]
			return ok
		}
	case json.RawMessage:
		if !bytes.Contains(x, placeholderJSON) {
			return true
		}
		// a logged message a DeferringRequestLoader put placeholders in
		if ok, sure := c.standaloneSkim(x); sure {
			return ok
		}
		v, err := OrderedJSON(x)
		return err == nil && c.standalone(v)
	}
	return true
}

// standaloneSkim is standalone of a raw JSON text without decoding it
// (the decoding was a quarter of a logged request's lazy lowering): each
// string value that holds a placeholder is one whole, and these hold every
// placeholder in the text (none is in a member name). sure is false when
// the skim cannot tell (the text not valid among them).
func (c *LazyConversation) standaloneSkim(raw json.RawMessage) (ok, sure bool) {
	if !jsonskim.Valid(raw) {
		return false, false
	}
	found, split, unsure := 0, false, false
	skimmed := jsonskim.Strings(raw, func(str []byte) {
		n := bytes.Count(str, placeholderJSON)
		if n == 0 {
			return
		}
		found += n
		text, decoded := jsonskim.Text(str)
		_, placed := c.parts[text]
		unsure = unsure || !decoded
		split = split || decoded && !placed
	})
	switch {
	case !skimmed || unsure:
		return false, false
	case split:
		return false, true
	}
	return true, found == bytes.Count(raw, placeholderJSON)
}

// errEmbedded is a placeholder found where standalone did not look.
var errEmbedded = errors.New("render: a lazy result was embedded in a larger value")

// WriteIndent writes v, the conversation or a part of it, as the package's
// WriteIndent writes it with the results in place.
func (c *LazyConversation) WriteIndent(ctx context.Context, w io.Writer, v Value) error {
	return writeIndent(w, v, func(w io.Writer, s string) (bool, error) {
		if !strings.Contains(s, placeholderMark) {
			return false, nil
		}
		lp, ok := c.parts[s]
		if !ok {
			return false, errEmbedded
		}
		if lp.body != nil {
			return true, writeString(w, func(write func(string) error) error { return lp.body(ctx, write) }, true)
		}
		call, text, escaped, err := c.load(ctx, lp.id)
		if err != nil {
			return false, err
		}
		if field, ok := VerbatimField(AsOutlined(call)); !ok || field != lp.field {
			return false, fmt.Errorf("render: part %s of session %s changed in the store while it was written", lp.id, c.sessionID)
		}
		return true, writeString(w, func(write func(string) error) error { return text(lp.field, write) }, escaped)
	})
}

// writeString writes a JSON string whose text (with escaped, the body of
// its JSON string) text writes a piece at a time.
func writeString(w io.Writer, text func(write func(string) error) error, escaped bool) error {
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	write := func(s string) error { return writeRunes(w, s) }
	if escaped {
		write = func(body string) error {
			_, err := io.WriteString(w, body)
			return err
		}
	}
	if err := text(write); err != nil {
		return err
	}
	_, err := io.WriteString(w, `"`)
	return err
}

// TextStreamer is an OutputLoader that gives a call's output and error a
// piece at a time (sessions.TextStreamer), so that they are never held.
type TextStreamer interface {
	LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(string) error) error, error)
}

// JSONStreamer is a TextStreamer that gives the text as the body of the
// JSON string writeRunes writes for it (sessions.JSONStreamer).
type JSONStreamer interface {
	LoadStreamedJSON(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(body string) error) error, error)
}

// load reads part id and a function that writes its output or error:
// escaped, as the body of its JSON string.
func (c *LazyConversation) load(ctx context.Context, id string) (*model.ToolCall, func(string, func(string) error) error, bool, error) {
	if js, ok := c.l.(JSONStreamer); ok && !plainStreams {
		call, text, err := js.LoadStreamedJSON(ctx, c.sessionID, id)
		return call, text, true, err
	}
	if ts, ok := c.l.(TextStreamer); ok {
		call, text, err := ts.LoadStreamed(ctx, c.sessionID, id)
		return call, text, false, err
	}
	full, err := c.l.LoadOutput(ctx, c.sessionID, id)
	if err != nil {
		return nil, nil, false, err
	}
	return full, func(field string, write func(string) error) error {
		if field == "error" {
			return write(full.Error)
		}
		return write(full.Output)
	}, false, nil
}

// plainStreams makes load take the decoded text even from a JSONStreamer
// (tests compare the two).
var plainStreams = false

// MarshalIndent is WriteIndent into memory.
func (c *LazyConversation) MarshalIndent(ctx context.Context, v Value) ([]byte, error) {
	var b bytes.Buffer
	err := c.WriteIndent(ctx, &b, v)
	return b.Bytes(), err
}

// stringChunk is how much of a string writeRunes encodes at once.
var stringChunk = 256 << 10

// runeCut is the first cut between runes (as decoded from s's start) at
// or after n (before it when that is one), n at least 1: a rune never holds a byte that is not a
// continuation byte after its first, and is at most utf8.UTFMax long, so
// the first byte that is not a continuation byte back from n, within
// UTFMax-1 bytes, starts a rune; none there means no rune spans n. Found
// in O(1), not by decoding every rune before n.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if i == 0 { // the first rune spans n: cut after it
			_, k := utf8.DecodeRuneInString(s)
			return k
		}
		return i
	}
	return n
}

// writeRunes writes marshal(s) without its quotes, a piece at a time: a
// string's encoding is that of its runes one after the other, so s is cut
// between runes (as decoded from its start) and each piece encoded alone.
// Pieces of a string written one after the other are the string written
// whole, when each is cut between runes.
func writeRunes(w io.Writer, s string) error {
	var b []byte // one buffer for the pieces: an output of many MB is many pieces
	for len(s) > 0 {
		cut := runeCut(s, stringChunk)
		var err error
		if b, err = formatters.AppendStringify(b, s[:cut]); err != nil {
			return err
		}
		if _, err := w.Write(b[1 : len(b)-1]); err != nil {
			return err
		}
		s = s[cut:]
	}
	return nil
}
