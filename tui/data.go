package tui

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"correx/formatters"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// All IO happens here, in tea.Cmds: listing, loading (with the spill-file
// counting formatters.Visible does), rendering conversations, reading spill
// files. Update only stores what comes back.

// sessionData is a loaded session with what the UI shows of every call.
type sessionData struct {
	sess  *model.Session
	calls []callInfo
	// children are the loaded subagent sessions, by session id.
	children map[string]*sessionData

	// lazy is set for a session read through the store's outline
	// (sessions.Lazy, lazy.go): its messages arrive in pages (loading
	// while more are to come, the next from message index next), and a
	// call's model-visible result is computed when the call is shown,
	// kept for the most recently shown calls only (details).
	lazy    sessions.Lazy
	loading bool
	// caps is what opencode's config says the session's models take, nil
	// until read (caps.go)
	caps    *capsState
	next    int
	details *detailCache
	budget  int // of eagerBytes, what is left
	// pages are a lazy session's outline pages as read, in order; only the
	// most recently used ones keep their parts (held), the others are read
	// again by key when one of their calls is shown (lazy.go). Nil for a
	// session loaded whole.
	pages []outlinePage
	// mu is held by Update as it changes the Parts of sess.Messages and
	// which pages are held (pages and their held), and by a Cmd, read
	// only, as it copies the messages to lower a conversation from
	// (lowerFrom): the parts themselves never change once read.
	mu sync.RWMutex
	// steps counts the assistant messages
	steps int
	// kinds interns the calls' kinds
	kinds callKinds
	// maxOutline is Config.OutlineBytes; clock counts page uses; factBytes
	// is the size of the calls' ids and summaries
	maxOutline int
	factBytes  int
	clock      uint64
	// spoolText is Config.SpoolTextBytes
	spoolText int
}

// callInfo is one tool call of a session (kept small: a lazy session
// keeps one for each of its calls).
type callInfo struct {
	// ref.Call is nil while the call's outline page is not held (lazy.go):
	// row keeps what the list shows of it
	ref model.CallRef
	row callFacts
	// vis points to notShown until computed: a pointer, as most calls of
	// a lazy session are never shown
	vis  *callDetail
	step int32 // 1-based assistant step whose message holds the call
	// page is the index of the call's outline page in its sessionData's
	// pages (lazy sessions)
	page int32

	// ready tells that vis is computed; always for an eagerly loaded
	// session, in a lazy one while the call's detail is cached.
	// seen/trunc/errRes keep the list badges of a call whose detail was
	// computed once and since dropped. flagged is the agent's own
	// truncation record.
	ready, seen, trunc, errRes, flagged bool
}

// callDetail is a shown call's model-visible result, with what the native
// lowering sent to each provider for the v1 calls where it differs
// (native: a completed call with attachments, render.Visible; nil
// otherwise), and the whole call when the outline elided it (full).
type callDetail struct {
	model.Visible
	native map[render.Provider]*model.Visible
	full   *model.ToolCall
	// text is the model-visible text when it is too large to hold
	// (spoolDetail): Text and Result.Text are then empty, and field is
	// the stored field the text is ("output" or "error")
	text      *fileLines
	textField string
}

// bigText is the model-visible text in a spool file when the detail
// holds it so (spoolDetail), else nil.
func (c *callInfo) bigText() *fileLines {
	if c.vis != nil {
		return c.vis.text
	}
	return nil
}

// visibleSize is how long vis's text, one of c's visible results, is:
// the spool file's when the detail holds it so.
func (c *callInfo) visibleSize(vis *model.Visible) textSize {
	if fl := c.bigText(); fl != nil {
		return fl.textSize()
	}
	return sizeOf(vis.Text)
}

// call is the call as stored: whole when it is loaded (or its detail is);
// while its outline page is not held (a lazy call not ready), what the
// list keeps of it.
func (c *callInfo) call() *model.ToolCall {
	if c.vis != nil && c.vis.full != nil {
		return c.vis.full
	}
	if c.ref.Call != nil {
		return c.ref.Call
	}
	k := c.row.kind
	return &model.ToolCall{CallID: c.row.callID, Tool: k.tool, Status: k.status, ChildSessionID: k.child}
}

// message is the message of sess (c's session) that holds c.
func (c *callInfo) message(sess *model.Session) *model.Message {
	return &sess.Messages[c.ref.Message]
}

// resultBytes is the size of the outputs and errors of the calls whose
// results the request of step carries (the calls of step-1), as far as
// the outline pages held say (a call of a page let go counts nothing).
func (d *sessionData) resultBytes(step int) int {
	n := 0
	for i := sort.Search(len(d.calls), func(i int) bool { return int(d.calls[i].step) >= step-1 }); i < len(d.calls) && int(d.calls[i].step) == step-1; i++ {
		c := d.calls[i].call()
		if c.Elided {
			n += c.OutputBytes
		}
		n += len(c.Output) + len(c.Error)
	}
	return n
}

// callFacts is what the call list shows and searches of a call, kept for
// every call of a session so that a lazy session's rows need none of its
// outline pages (in 48 bytes: a session of 50,000 calls keeps 50,000).
type callFacts struct {
	kind            *callKind
	callID, summary string
	dur             time.Duration // -1: unknown
}

// callKind is the tool, status and subagent session of calls: the calls of
// a session share a few (callKinds).
type callKind struct {
	tool   string
	status model.ToolStatus
	child  string
}

// callKinds interns callKinds, up to maxKinds of them (nil: none).
type callKinds map[callKind]*callKind

const maxKinds = 4096

func (ks callKinds) of(k callKind) *callKind {
	if p, ok := ks[k]; ok {
		return p
	}
	p := &k
	if ks != nil && len(ks) < maxKinds {
		ks[k] = p
	}
	return p
}

// maxSummary bounds the summary a row keeps (on a rune boundary): the
// list shows its start, search looks into it, and a tool's input (a
// command with a heredoc) can be any size.
const maxSummary = 256

// agentFlagged tells that the agent recorded c as truncated.
func agentFlagged(c *model.ToolCall) bool {
	f := formatters.AgentFlagged(c)
	return f != nil && *f
}

// factsOf is what the list keeps of c; kinds interns its kind.
func factsOf(c *model.ToolCall, kinds callKinds) callFacts {
	sum := summary(c)
	if len(sum) > maxSummary {
		n := maxSummary
		for n > 0 && !utf8.RuneStart(sum[n]) {
			n--
		}
		sum = strings.Clone(sum[:n])
	}
	f := callFacts{kind: kinds.of(callKind{tool: c.Tool, status: c.Status, child: c.ChildSessionID}), callID: c.CallID, summary: sum, dur: -1}
	if !c.Start.IsZero() && !c.End.IsZero() && !c.End.Before(c.Start) {
		f.dur = c.End.Sub(c.Start)
	}
	return f
}

// visFor is the model-visible result under a lowering, as provider p
// received it.
func (c *callInfo) visFor(l model.Lowering, p render.Provider) *model.Visible {
	if nv := c.vis.native[p]; l == model.LoweringNative && nv != nil {
		return nv
	}
	return &c.vis.Visible
}

// notShown is the visible result of a call not computed yet (or dropped
// since); it is never written.
var notShown callDetail

// buildSessionData computes every call's model-visible result.
func buildSessionData(sess *model.Session) *sessionData {
	d := &sessionData{sess: sess, children: map[string]*sessionData{}, kinds: callKinds{}}
	stepOf := map[int]int{}
	for i, mi := range sess.AssistantSteps() {
		stepOf[mi] = i + 1
		d.steps++
	}
	spills := sessions.SpillsFor(sess.Info)
	for _, ref := range sess.ToolCalls() {
		ci := callInfo{ref: ref, row: factsOf(ref.Call, d.kinds), step: int32(stepOf[ref.Message]),
			ready: true, flagged: agentFlagged(ref.Call)}
		vis, native := visibles(ref.Call, spills, render.CarrierModel(sess, ref.Message, ""))
		ci.vis = &callDetail{Visible: vis, native: native}
		d.calls = append(d.calls, ci)
	}
	return d
}

// visibles are a call's model-visible result and, when the lowering
// changes it (formatters.LoweringMatters), the native lowering's for each
// provider; m is the model of the request that carried the result
// (render.CarrierModel).
func visibles(c *model.ToolCall, spills formatters.SpillFinder, m render.Model) (model.Visible, map[render.Provider]*model.Visible) {
	vis := formatters.Visible(c, spills)
	if !formatters.LoweringMatters(c) {
		return vis, nil
	}
	m.Lowering = model.LoweringNative
	native := map[render.Provider]*model.Visible{}
	for _, p := range render.Providers {
		nv := render.Visible(c, spills, p, m)
		native[p] = &nv
	}
	return vis, native
}

// agentName is an agent's display name.
func agentName(a model.Agent) string { return a.Name() }

// agentLabel is the picker's agent column: the agent, and for opencode
// the pipeline ("opencode v2").
func agentLabel(in model.SessionInfo) string {
	s := agentName(in.Agent)
	if in.Pipeline != "" && in.Agent.UsesOpencode() {
		s += " " + string(in.Pipeline)
	}
	return s
}

// agentVersion is the header's "opencode 1.18.33 · v2".
func agentVersion(in model.SessionInfo) string {
	s := agentName(in.Agent)
	if in.Version != "" {
		s += " " + in.Version
	}
	if in.Pipeline != "" && in.Agent.UsesOpencode() {
		s += " · " + string(in.Pipeline)
	}
	return s
}

type listedMsg struct {
	infos []model.SessionInfo
	quick bool // a quick list: no counts yet
	err   error
	warns []string // the store's, after the list
	fp    string   // the store's fingerprint before the list ("": none)
}

type loadedMsg struct {
	id    string
	data  *sessionData
	warns []string
	err   error
}

type convKey struct {
	sess   *model.Session
	data   *sessionData // sess's, whose caps it is rendered with
	p      render.Provider
	step   int
	low    model.Lowering     // "" for agents that build their own requests
	inputs model.CapsOverride // the I override of the models' inputs
	// whole: the JSON of the whole conversation is wanted (Request),
	// not only the excerpts of the step's calls (Wire, Compare, Pipeline)
	whole bool
}

type convResult struct {
	// rendered: the renderer gave a conversation, of items top-level
	// items (the conversation itself is not kept: its JSON and excerpts are)
	rendered bool
	items    int
	json     string
	// file holds the JSON instead of json when it is large (lazy sessions)
	file *fileLines
	size int64 // of the JSON
	// lazy: rendered from a lazy session's outline
	lazy bool
	// excerpts of the calls whose results the request carries, by call id,
	// and the spool files of the large ones (a result that shows its first
	// lines while writing shares them with the whole one)
	excerpts map[string]excerpt
	spools   []*fileLines
	// note says what the rendering lacks that the agent sent (Gemini
	// CLI's streamed thoughtSignatures), or ""
	note string
	err  error
	// writing: the JSON is still being written; file holds its first
	// lines (size bytes of it), the whole result follows in another
	// convMsg; head: those lines were lowered from the first messages
	// alone (convHead), without the counts and excerpts of the whole;
	// tail: the excerpts are of the calls among the last items alone,
	// lowered from the last messages (convTails), their places counted
	// from the first of those
	writing, head, tail bool
}

// excerptOf is the excerpt of call id, and whether the result has it: a
// tail's has only the calls placed among its items.
func (r convResult) excerptOf(id string) (excerpt, bool) {
	e := r.excerpts[id]
	return e, !r.tail || e.wireOK
}

// close closes the result's files: its JSON's and its excerpts'.
func (r convResult) close() {
	if r.file != nil {
		r.file.Close()
	}
	for _, fl := range r.spools {
		fl.Close()
	}
}

type convMsg struct {
	key convKey
	res convResult
	// next gives the message that follows: with a result still writing,
	// the whole one; with one of a pair (convSpoolPair), the other
	next tea.Cmd
}

type spillMsg struct {
	path  string
	file  *fileLines
	cut   int64 // bytes not indexed (file larger than the cap)
	err   error
	pager bool // from spillPagerCmd: the file was checked for $PAGER
}

type pagerDoneMsg struct{ err error }

func listCmd(ctx context.Context, store sessions.Store) tea.Cmd {
	return func() tea.Msg {
		if store == nil {
			return listedMsg{}
		}
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		fp, _ := sessions.Fingerprint(store)
		infos, err := store.List(ctx)
		return listedMsg{infos: infos, err: err, warns: sessions.Warnings(store), fp: fp}
	}
}

// quickListCmd lists the store without counts when it can
// (sessions.ListQuick), for the picker's first screen, and asks for the
// counted list then; it lists with counts when it cannot.
func quickListCmd(ctx context.Context, store sessions.Store) tea.Cmd {
	if store == nil {
		return listCmd(ctx, store)
	}
	return func() tea.Msg {
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		infos, ok, err := sessions.ListQuick(qctx, store)
		if !ok || err != nil {
			return listCmd(ctx, store)() // the full list says what is wrong
		}
		return listedMsg{infos: infos, quick: true}
	}
}

// loadCmd loads a session and the subagent sessions its task calls made
// (to a depth of 4), computing every call's visible result; a session the
// store reads lazily comes as its first outline page (lazy.go).
func loadCmd(ctx context.Context, cfg Config, store sessions.Store, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if l := sessions.LazyFor(store, id); l != nil {
			return loadFirstPage(ctx, cfg, store, l, id)
		}
		sess, err := store.Load(ctx, id)
		if err != nil {
			return loadedMsg{id: id, err: err}
		}
		var warns []string
		seen := map[string]bool{id: true}
		d := buildSessionData(sess)
		loadChildren(ctx, store, d, seen, 1, &warns)
		return loadedMsg{id: id, data: d, warns: warns}
	}
}

func loadChildren(ctx context.Context, store sessions.Store, d *sessionData, seen map[string]bool, depth int, warns *[]string) {
	if depth > 4 {
		return
	}
	for _, c := range d.calls {
		cid := c.row.kind.child
		if cid == "" || seen[cid] {
			continue
		}
		seen[cid] = true
		sess, err := store.Load(ctx, cid)
		if err != nil {
			if !errors.Is(err, sessions.ErrNotFound) {
				*warns = append(*warns, fmt.Sprintf("subagent session %s: %v", cid, err))
			}
			continue
		}
		cd := buildSessionData(sess)
		d.children[cid] = cd
		loadChildren(ctx, store, cd, seen, depth+1, warns)
	}
}

// convCmd renders a conversation from snap, a copy of k.sess taken in
// Update (a lazy session's messages copied into it by lowerFrom's fill,
// run first in the Cmd), and the excerpts of the step's calls; with k.whole, its JSON
// too. A lazy session (l set) is rendered from its outline, its large
// outputs read as the JSON is written (render.ConversationLazy), and the
// indented JSON is spooled to a temporary file, read back only when small.
// With win, it is lowered a window at a time from win (convWindowed).
func convCmd(ctx context.Context, cfg Config, k convKey, snap *model.Session, l sessions.Lazy, win *windowSource, caps model.SessionCapabilities) tea.Cmd {
	return func() tea.Msg {
		if l != nil {
			return convSpool(ctx, k, snap, l, win, caps, cfg.MaxInMemoryJSON)
		}
		r, err := render.Render(snap, k.p, k.step, render.Model{Lowering: k.low, Caps: caps})
		res := convResult{err: err}
		if err == nil {
			res.note = render.WireNote(snap, k.p, k.step, r.Gaps)
		}
		if err == nil && r.Value != nil {
			val := r.Value
			res.rendered, res.items = true, itemCount(val)
			res.excerpts, res.spools = excerpts(val, 0, r.Places, stepCallIDs(snap, k.step), render.WriteIndent, cfg.MaxInMemoryJSON)
			if !k.whole {
				return convMsg{key: k, res: res}
			}
			res.json, res.err = exactText(func(w io.Writer) error { return render.WriteIndent(w, val) })
			res.size = int64(len(res.json))
		}
		return convMsg{key: k, res: res}
	}
}

// itemCount is the number of top-level items of a conversation.
func itemCount(v render.Value) int {
	items, _ := v.([]render.Value)
	return len(items)
}

// convSem lets one lazy conversation render at a time.
var convSem = make(chan struct{}, 1)

// convSpool renders a lazy session's conversation and writes its JSON to
// a temporary file; a JSON up to maxMem bytes is read back into memory, a
// larger one is shown from the file. It returns once the JSON is written,
// or, for a larger one, once its first screens are (firstScreenBytes):
// that convMsg carries the excerpts (all Wire, Compare and Pipeline need)
// and the first lines for the Request pane, and its next waits for the
// rest, written meanwhile under ctx. With win, the whole conversation is
// lowered a window at a time from it (convWindowed).
func convSpool(ctx context.Context, k convKey, outline *model.Session, l sessions.Lazy, win *windowSource, caps model.SessionCapabilities, maxMem int64) tea.Msg {
	whole := func() tea.Msg {
		if win != nil {
			return convWindowed(ctx, k, win, l, caps, maxMem)
		}
		return convSpoolWhole(ctx, k, outline, l, caps, maxMem)
	}
	if k.whole {
		if head, ok := convHead(ctx, k, outline, l, caps); ok {
			return convMsg{key: k, res: head, next: whole}
		}
	} else if tails := convTails(ctx, []convKey{k}, outline, l, caps, maxMem); tails != nil {
		tails[0].next = whole
		return tails[0]
	}
	return whole()
}

// headMessages is how many messages of a logged request the head of its
// conversation is lowered from: more than a screen of the JSON of most
// (Claude Code's first message alone holds tens of KB of reminders), read
// and lowered in milliseconds.
var headMessages = 32 // tests lower it

// convHead is the start of whole conversation k, lowered from the first
// messages of its logged request where that can be (render.ConversationHead)
// and spooled, its whole lines only: a result still writing, which the
// Request pane shows while the whole is lowered (seconds, for thousands of
// messages); ok is false where none can be.
func convHead(ctx context.Context, k convKey, outline *model.Session, l sessions.Lazy, caps model.SessionCapabilities) (res convResult, ok bool) {
	lc, exact, err := render.ConversationHead(ctx, l, outline, k.p, k.step, render.Model{Lowering: k.low, Caps: caps}, headMessages)
	if err != nil || lc == nil {
		return res, false
	}
	defer lc.Close()
	f, err := createSpool()
	if err != nil {
		return res, false
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	lw := &lineIndexWriter{w: bw, starts: linesFrom(0)}
	if err := lc.WriteHead(ctx, lw, exact); err != nil || bw.Flush() != nil || lw.starts.len() < 2 {
		f.Close()
		os.Remove(f.Name())
		return res, false
	}
	// its last line goes on in the whole (a comma, at least)
	starts, size := lw.wholeLines()
	res = convResult{rendered: true, lazy: true, writing: true, head: true, note: render.WireNote(outline, k.p, k.step, lc.Gaps)}
	res.file = newFileLines(f, starts, size, true)
	res.size = res.file.size
	return res, true
}

// convSpoolWhole is convSpool's whole conversation.
func convSpoolWhole(ctx context.Context, k convKey, outline *model.Session, l sessions.Lazy, caps model.SessionCapabilities, maxMem int64) tea.Msg {
	// one lowering at a time: each may read every output of the session;
	// the rest of a large JSON is written without holding the others up
	convSem <- struct{}{}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	var sem sync.Once
	unlock := func() { sem.Do(func() { <-convSem }) }
	var lc *render.LazyConversation
	release := func() {
		if lc != nil {
			lc.Close()
		}
		cancel()
		unlock()
	}
	lc, err := render.ConversationLazy(ctx, l, outline, k.p, k.step, render.Model{Lowering: k.low, Caps: caps})
	if err != nil {
		release()
		return convMsg{key: k, res: convResult{err: err}}
	}
	res := lazyExcerpts(ctx, k, outline, lc, maxMem)
	if !k.whole || lc.Value == nil {
		release()
		return convMsg{key: k, res: res}
	}
	f, err := createSpool()
	if err != nil {
		release()
		res.err = err
		return convMsg{key: k, res: res}
	}
	first := make(chan convResult, 1) // the first screens, if it gets that far
	done := make(chan convResult, 1)
	go func() {
		defer release()
		done <- writeSpool(f, res, maxMem, first, func(w io.Writer) error { return lc.WriteIndent(ctx, w, lc.Value) })
	}()
	return firstOrDone(k, first, done, unlock)
}

// firstOrDone is the convMsg of the first of a spool's results to come:
// the whole one, or its first screens (first) followed by it (done);
// unlock lets another lowering start once the first screens are shown.
func firstOrDone(k convKey, first, done <-chan convResult, unlock func()) tea.Msg {
	select {
	case r := <-done:
		select {
		case early := <-first: // both were ready: the whole one wins
			early.file.Close()
		default:
		}
		return convMsg{key: k, res: r}
	case r := <-first:
		unlock()
		return convMsg{key: k, res: r, next: func() tea.Msg { return convMsg{key: k, res: <-done} }}
	}
}

// convWindowed is convSpoolWhole of a conversation lowered a window at a
// time (render.WriteWindowedAt) from src, its outline's parts read a page
// at a time: neither is ever held whole. Its excerpts are those of the
// last window, where the calls whose results the request carries are;
// its first screens come without them, as a head's do.
func convWindowed(ctx context.Context, k convKey, src *windowSource, l sessions.Lazy, caps model.SessionCapabilities, maxMem int64) tea.Msg {
	convSem <- struct{}{}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	var sem sync.Once
	unlock := func() { sem.Do(func() { <-convSem }) }
	m := render.Model{Lowering: k.low, Caps: caps}
	res := convResult{lazy: true, rendered: true} // a projection: no note
	var win *render.Windowed
	lower := func(w io.Writer) (err error) {
		win, err = render.WriteWindowedAt(ctx, l, src.info, src.at, &src.step, src.pages, k.p, m, w)
		return err
	}
	// done adds the last window's excerpts and count to res
	done := func(res convResult, err error) convResult {
		if err == nil && win != nil {
			res.head, res.items = false, win.Items()
			res.excerpts, res.spools = excerpts(win.Last.Value, win.Before, win.Last.Places, win.Carried, func(w io.Writer, v render.Value) error {
				return win.Last.WriteIndent(ctx, w, v)
			}, maxMem)
		}
		if win != nil {
			win.Last.Close()
		}
		if err != nil {
			res.close()
			res = convResult{err: err}
		}
		cancel()
		unlock()
		return res
	}
	if !k.whole {
		return convMsg{key: k, res: done(res, lower(nil))}
	}
	f, err := createSpool()
	if err != nil {
		return convMsg{key: k, res: done(res, err)}
	}
	res.head = true // counted once all are lowered
	first, written := make(chan convResult, 1), make(chan convResult, 1)
	go func() {
		r := writeSpool(f, res, maxMem, first, lower)
		written <- done(r, r.err)
	}()
	return firstOrDone(k, first, written, unlock)
}

// lazyExcerpts is conversation k of a lazy session's outline, lowered as
// lc, without its whole JSON: its excerpts, written as the JSON would be.
func lazyExcerpts(ctx context.Context, k convKey, outline *model.Session, lc *render.LazyConversation, maxMem int64) convResult {
	res := convResult{lazy: true, note: render.WireNote(outline, k.p, k.step, lc.Gaps)}
	if lc.Value == nil {
		return res
	}
	res.rendered, res.items = true, itemCount(lc.Value)
	res.excerpts, res.spools = excerpts(lc.Value, 0, lc.Places, stepCallIDs(outline, k.step), func(w io.Writer, v render.Value) error {
		return lc.WriteIndent(ctx, w, v)
	}, maxMem)
	return res
}

// convSpoolPair is convSpool of conversations ks, the same step of a lazy
// session's outline on two providers without their whole JSON (Compare's
// sides), lowered together (render.ConversationsLazy: the outline is
// resolved, and a logged request read, once); the first's convMsg comes
// with the second's as its next. Where they cannot be lowered together,
// each is lowered on its own.
func convSpoolPair(ctx context.Context, ks [2]convKey, outline *model.Session, l sessions.Lazy, win *windowSource, caps model.SessionCapabilities, maxMem int64) tea.Msg {
	whole := func() tea.Msg {
		if win != nil { // each lowered a window at a time
			first := convWindowed(ctx, ks[0], win, l, caps, maxMem).(convMsg)
			first.next = func() tea.Msg { return convWindowed(ctx, ks[1], win, l, caps, maxMem) }
			return first
		}
		return convSpoolPairWhole(ctx, ks, outline, l, caps, maxMem)
	}
	tails := convTails(ctx, ks[:], outline, l, caps, maxMem)
	if tails == nil {
		return whole()
	}
	second := tails[1]
	second.next = whole
	tails[0].next = func() tea.Msg { return second }
	return tails[0]
}

// convTails are the tails of conversations ks, the same step of a lazy
// session's outline on their providers (render.ConversationsTail): results
// still writing, whose excerpts Compare shows while the whole ones are
// lowered; nil where they cannot be lowered so.
func convTails(ctx context.Context, ks []convKey, outline *model.Session, l sessions.Lazy, caps model.SessionCapabilities, maxMem int64) []convMsg {
	ps := make([]render.Provider, len(ks))
	for i, k := range ks {
		ps[i] = k.p
	}
	lcs, err := render.ConversationsTail(ctx, l, outline, ps, ks[0].step, render.Model{Lowering: ks[0].low, Caps: caps}, tailMessages)
	if err != nil || lcs == nil {
		return nil
	}
	tails := make([]convMsg, len(ks))
	for i, k := range ks {
		res := lazyExcerpts(ctx, k, outline, lcs[i], maxMem)
		res.writing, res.tail, res.items = true, true, 0 // the whole follows
		tails[i] = convMsg{key: k, res: res}
		lcs[i].Close()
	}
	return tails
}

// tailMessages is how many messages of a logged request the end of its
// conversation is lowered from: those that carry the results of the step
// before it and the calls they answer, read and lowered in milliseconds.
var tailMessages = 8

// convSpoolPairWhole is convSpoolPair's whole conversations.
func convSpoolPairWhole(ctx context.Context, ks [2]convKey, outline *model.Session, l sessions.Lazy, caps model.SessionCapabilities, maxMem int64) tea.Msg {
	convSem <- struct{}{}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	lcs, err := render.ConversationsLazy(lctx, l, outline, []render.Provider{ks[0].p, ks[1].p}, ks[0].step, render.Model{Lowering: ks[0].low, Caps: caps})
	var msgs [2]convMsg
	if err == nil {
		for i, k := range ks {
			msgs[i] = convMsg{key: k, res: lazyExcerpts(lctx, k, outline, lcs[i], maxMem)}
		}
	}
	for _, lc := range lcs {
		lc.Close()
	}
	cancel()
	<-convSem
	if err != nil {
		msgs[0] = convSpool(ctx, ks[0], outline, l, nil, caps, maxMem).(convMsg)
		msgs[1] = convSpool(ctx, ks[1], outline, l, nil, caps, maxMem).(convMsg)
	}
	second := msgs[1]
	msgs[0].next = func() tea.Msg { return second }
	return msgs[0]
}

// firstScreenBytes and firstScreenLines of a request's JSON, whole lines,
// are a few screens of it: shown while the rest is written (a whole
// request can take seconds). Both are needed: a screen of a Claude Code
// request holds a system reminder of tens of KB.
const firstScreenBytes, firstScreenLines = 64 << 10, 256

// writeSpool writes lc's JSON to the spool file f and returns res with
// it: in memory when at most maxMem bytes, else from the file. Once more
// than firstScreenBytes (or maxMem) and firstScreenLines are written, it
// sends first a result that shows what is written so far, from a handle
// of its own on f.
func writeSpool(f *os.File, res convResult, maxMem int64, first chan<- convResult, write func(io.Writer) error) convResult {
	bw := bufio.NewWriterSize(f, 256<<10)
	lw := &lineIndexWriter{w: bw, starts: linesFrom(0)}
	lw.past, lw.pastLines, lw.onPast = min(maxMem, firstScreenBytes), firstScreenLines, func() {
		if bw.Flush() != nil {
			return
		}
		g, err := os.Open(f.Name())
		if err != nil {
			return
		}
		early := res
		starts, size := lw.wholeLines()
		early.file = &fileLines{f: g, starts: starts, size: size, trail: true}
		early.size, early.writing = early.file.size, true
		first <- early
	}
	err := write(lw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && lw.n <= maxMem {
		var b []byte
		if b, err = os.ReadFile(f.Name()); err == nil {
			res.json = string(b)
		}
	}
	if err != nil || res.json != "" || lw.n == 0 {
		f.Close()
		os.Remove(f.Name())
		res.err = err
		res.size = int64(len(res.json))
		return res
	}
	starts, trail := lw.lines()
	res.file = newFileLines(f, starts, lw.n, trail)
	res.size = lw.n
	return res
}

// lines is the index of what was written: where each line starts (a final
// newline starts none), and whether the text ends with a newline.
func (lw *lineIndexWriter) lines() (starts lineIndex, trail bool) {
	if last := lw.starts.len() - 1; lw.starts.at(last) == lw.n {
		return lw.starts.head(last), true
	}
	return lw.starts, false
}

// wholeLines is what was written as whole lines, a copy: where each
// starts, and their size (a last line not yet ended left out).
func (lw *lineIndexWriter) wholeLines() (starts lineIndex, size int64) {
	last := lw.starts.len() - 1
	return lw.starts.head(last).clone(), lw.starts.at(last)
}

// lineIndexWriter counts the bytes written and records where lines start;
// onPast, when set, is called once after a Write takes the count past
// past bytes.
type lineIndexWriter struct {
	w      io.Writer
	n      int64
	starts lineIndex
	// onPast is called once past bytes and pastLines whole lines are
	// written
	past      int64
	pastLines int
	onPast    func()
}

func (lw *lineIndexWriter) Write(p []byte) (int, error) {
	n, err := lw.w.Write(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		lw.starts.add(lw.n + int64(i))
	}
	lw.n += int64(n)
	if lw.onPast != nil && lw.n > lw.past && lw.starts.len() > max(lw.pastLines, 1) {
		onPast := lw.onPast
		lw.onPast = nil
		onPast()
	}
	return n, err
}

// otherCmd loads the candidate sessions of the other pipeline in order and
// returns the first with a call of tool (else the first that loads).
func otherCmd(ctx context.Context, store sessions.Store, cands []model.SessionInfo, tool string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		var first *sessionData
		var lastErr error
		for i, in := range cands {
			if i >= 20 {
				break
			}
			sess, err := store.Load(ctx, in.ID)
			if err != nil {
				lastErr = err
				continue
			}
			d := buildSessionData(sess)
			for _, c := range d.calls {
				if c.row.kind.tool == tool {
					return otherMsg{data: d, tool: tool}
				}
			}
			if first == nil {
				first = d
			}
		}
		if first != nil {
			return otherMsg{data: first, tool: tool}
		}
		return otherMsg{tool: tool, err: lastErr}
	}
}

// summary is a one-line description of a call's input: its title, or the
// input field that says most for the tool.
func summary(c *model.ToolCall) string {
	if c.Title != "" {
		return c.Title
	}
	fields := []string{"description", "command", "filePath", "pattern", "url", "path", "name", "query", "prompt"}
	m := map[string]any{}
	_ = jsonUnmarshal(c.Input, &m)
	for _, f := range fields {
		if s, ok := m[f].(string); ok && s != "" {
			return s
		}
	}
	s := strings.TrimSpace(string(c.Input))
	if s == "" || s == "{}" {
		return "(no input)"
	}
	return s
}

func duration(c *model.ToolCall) string {
	if c.Start.IsZero() || c.End.IsZero() || c.End.Before(c.Start) {
		return ""
	}
	return durationText(c.End.Sub(c.Start))
}

// durationText is a call's duration as the list shows it ("" when
// unknown: negative).
func durationText(d time.Duration) string {
	switch {
	case d < 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func relTime(t, now time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return t.Format("2006-01-02")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Format("2006-01-02")
}

func humanBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// commas formats n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
