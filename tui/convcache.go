package tui

import (
	"context"
	"errors"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"correx/sessions"
	"correx/sessions/opencode"
)

// convCache holds the rendered conversations the panes show (a few, the
// oldest dropped first) and what is being computed for the session view on
// screen: conversations, visible results of lazy calls, models'
// capabilities.
type convCache struct {
	convs       map[convKey]convResult
	age         []convKey // convs' keys, oldest first (maxConvs are kept)
	pending     map[convKey]bool
	details     map[detailKey]bool // visible results being computed (lazy.go)
	capsPending map[*sessionData]bool

	// warming: conversations computed before a pane asks for them (warm),
	// each also pending; rest is the key the last warmMsg (restN) was
	// timed for
	warming map[convKey]*warmRun
	rest    *convKey
	restN   int
}

// warmRun is a conversation being warmed; stop stops it when the
// selection moves on (stopped: its result is dropped).
type warmRun struct {
	stop    context.CancelFunc
	stopped bool
}

func newConvCache() convCache {
	return convCache{convs: map[convKey]convResult{}, pending: map[convKey]bool{},
		details: map[detailKey]bool{}, capsPending: map[*sessionData]bool{},
		warming: map[convKey]*warmRun{}}
}

// busy: a conversation or visible result asked for is being computed (a
// conversation warmed before it is asked for is not).
func (c *convCache) busy() bool {
	return len(c.pending) > len(c.warming) || len(c.details) > 0
}

// put stores what a command computed.
func (c *convCache) put(a *app, msg tea.Msg) {
	switch msg := msg.(type) {
	case detailMsg:
		delete(c.details, msg.key)
		msg.key.data.setDetail(msg)
		if msg.err != nil {
			a.warn("could not read the call's output: " + msg.err.Error())
		}
	case capsMsg:
		delete(c.capsPending, msg.data)
		msg.data.caps = msg.state
		a.warnings = append(a.warnings, msg.state.warns...)
	case convMsg:
		if w, ok := c.warming[msg.key]; ok && !msg.res.writing { // a tail first, the whole to come
			w.stop()
			delete(c.warming, msg.key)
			if w.stopped && errors.Is(msg.res.err, context.Canceled) {
				delete(c.pending, msg.key) // stopped: not kept, nor its tail
				if old, ok := c.convs[msg.key]; ok && old.tail {
					old.close()
					delete(c.convs, msg.key)
					c.age = slices.DeleteFunc(c.age, func(k convKey) bool { return k == msg.key })
				}
				return
			}
		}
		if !msg.res.writing {
			delete(c.pending, msg.key) // else still pending: the rest follows
		}
		if old, ok := c.convs[msg.key]; !ok {
			c.age = append(c.age, msg.key)
		} else if old.tail {
			old.close() // its own excerpts
		} else if old.file != nil && old.file != msg.res.file {
			old.file.Close() // the first lines of one still writing
		}
		c.convs[msg.key] = msg.res
		c.evict()
	}
}

// sync refreshes the session view's pane and starts computing what it
// waits for, under the view's context.
func (c *convCache) sync(a *app, v *sessionView) []tea.Cmd {
	v.refresh(func(k convKey) (convResult, bool) {
		r, ok := c.convs[k]
		if !ok && !k.whole { // a whole one has the excerpts too, once lowered
			r, ok = c.convs[wholeKey(k)]
			ok = ok && !r.head
		}
		return r, ok
	})
	var cmds []tea.Cmd
	// a pane given a file again keeps its search, run anew on the file
	for p := range v.views {
		if cmd := v.views[p].PendingSearch(); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	if v.needDetail != nil {
		k := *v.needDetail
		if !c.details[k] {
			c.details[k] = true
			cmds = append(cmds, detailCmd(v.ctx, k.data, k.idx))
		}
	}
	paired := c.startPair(a, v)
	if paired != nil {
		cmds = append(cmds, paired)
	}
	for _, k := range v.need {
		if paired != nil && !k.whole {
			continue // Compare's two sides, lowered together
		}
		if w, ok := c.warming[k]; ok {
			if !w.stopped {
				delete(c.warming, k) // asked for now, and kept
			}
			continue // a stopped one is asked for again once it is back
		}
		if cmd, wait := c.caps(a, k); wait {
			cmds = append(cmds, cmd)
			continue
		}
		if !c.pending[k] && (k.whole || !c.pending[wholeKey(k)]) {
			cmds = append(cmds, c.start(a, v, k, v.ctx))
		}
	}
	return append(cmds, c.restOn(v))
}

// caps starts reading the models' capabilities conversation k is
// rendered with, if they are to be read; wait says k waits for them.
func (c *convCache) caps(a *app, k convKey) (cmd tea.Cmd, wait bool) {
	if k.data == nil || !needsCaps(k.data) {
		return nil, false
	}
	if !c.capsPending[k.data] {
		c.capsPending[k.data] = true
		cmd = capsCmd(a.machine, k.data, k.sess.Info, opencode.SessionModels(k.sess))
	}
	return cmd, true
}

// start computes conversation k for v under ctx.
func (c *convCache) start(a *app, v *sessionView, k convKey, ctx context.Context) tea.Cmd {
	c.pending[k] = true
	var l sessions.Lazy
	var win *windowSource
	snap, fill := new(*k.sess), (func(context.Context) error)(nil)
	if v.data.sess == k.sess {
		l = v.data.lazy
		snap, fill, win = v.data.lowerFrom(k)
	}
	cmd := convCmd(ctx, a.cfg, k, snap, l, win, capsFor(k.data, k.inputs))
	if fill == nil {
		return cmd
	}
	// the outline's pages not held are read first
	return func() tea.Msg {
		if err := fill(ctx); err != nil {
			return convMsg{key: k, res: convResult{err: err}}
		}
		return cmd()
	}
}

// startPair computes the two conversations v waits for in one lowering
// (convSpoolPair) when they are Compare's sides: the same step of v's lazy
// session on two providers, neither computed nor being computed; else
// nil.
func (c *convCache) startPair(a *app, v *sessionView) tea.Cmd {
	if len(v.need) != 2 {
		return nil
	}
	x, y := v.need[0], v.need[1]
	same := x.sess == y.sess && x.data == y.data && x.step == y.step && x.low == y.low && x.inputs == y.inputs
	if !same || x.p == y.p || x.whole || y.whole || v.data.sess != x.sess || v.data.lazy == nil {
		return nil
	}
	for _, k := range []convKey{x, y} {
		if c.has(k) || c.has(wholeKey(k)) || c.warming[k] != nil || needsCaps(k.data) {
			return nil
		}
	}
	c.pending[x], c.pending[y] = true, true
	snap, fill, win := v.data.lowerFrom(x)
	ctx, l, caps, mem := v.ctx, v.data.lazy, capsFor(x.data, x.inputs), a.cfg.MaxInMemoryJSON
	return func() tea.Msg {
		if fill != nil {
			if err := fill(ctx); err != nil {
				return convMsg{key: x, res: convResult{err: err}, next: func() tea.Msg { return convMsg{key: y, res: convResult{err: err}} }}
			}
		}
		return convSpoolPair(ctx, [2]convKey{x, y}, snap, l, win, caps, mem)
	}
}

// warmAfter is how long the selection rests on a call before the
// conversations its panes show are computed unasked (0: never; tests and
// benchmarks set it).
var warmAfter = defaultWarmAfter

const defaultWarmAfter = 300 * time.Millisecond

// warmMaxBytes bounds the outputs of the calls whose results a request
// warmed carries: its excerpts hold their wire, as much again as the
// visible text a huge output's call holds while shown (one of 47 MiB
// warmed took the inspector on its spill view from 81 to 131 MB).
var warmMaxBytes = 4 << 20 // tests lower it

// warmMsg says the selection rested warmAfter (restN n).
type warmMsg struct{ n int }

// restOn follows the selection for warm: a warm no longer wanted is
// stopped, and a rest is timed for the first of v's warmKeys not
// computed.
func (c *convCache) restOn(v *sessionView) tea.Cmd {
	keys := v.warmKeys()
	for k, w := range c.warming {
		if !w.stopped && !slices.Contains(keys, k) {
			w.stop()
			w.stopped = true
		}
	}
	var next *convKey
	for _, k := range keys {
		if !c.has(k) && !c.has(wholeKey(k)) { // a whole one has the excerpts too
			next = &k
			break
		}
	}
	if next == nil || warmAfter <= 0 {
		c.rest = nil
		return nil
	}
	if c.rest != nil && *c.rest == *next {
		return nil // timed already
	}
	c.rest = next
	c.restN++
	if next.data.resultBytes(next.step) > warmMaxBytes {
		return nil // not warmed, and noted: no rest is timed for it again
	}
	n := c.restN
	return tea.Tick(warmAfter, func(time.Time) tea.Msg { return warmMsg{n} })
}

// warm starts computing the conversation the rest that ended (msg) was
// timed for, when it is still wanted and nothing else is computed; else
// the next sync times a rest again.
func (c *convCache) warm(a *app, v *sessionView, msg warmMsg) tea.Cmd {
	if msg.n != c.restN || c.rest == nil {
		return nil // a rest since overtaken
	}
	k := c.rest
	c.rest = nil
	if len(c.pending) > 0 || len(c.details) > 0 || !slices.Contains(v.warmKeys(), *k) {
		return nil
	}
	if cmd, wait := c.caps(a, *k); wait {
		return cmd // the next sync times a rest again
	}
	ctx, stop := context.WithCancel(v.ctx)
	c.warming[*k] = &warmRun{stop: stop}
	return c.start(a, v, *k, ctx)
}

// has says conversation k is computed or being computed.
func (c *convCache) has(k convKey) bool {
	_, ok := c.convs[k]
	return ok || c.pending[k]
}

// wholeKey is k for the whole conversation's JSON.
func wholeKey(k convKey) convKey {
	k.whole = true
	return k
}

// evict drops the oldest conversations beyond maxConvs, and the oldest
// lazy ones beyond maxLazyConvs (each holds its session's whole outline
// lowered).
func (c *convCache) evict() {
	lazy := 0
	for _, k := range c.age {
		if c.convs[k].lazy {
			lazy++
		}
	}
	for i := 0; i < len(c.age); {
		k := c.age[i]
		r := c.convs[k]
		if len(c.age) <= maxConvs && (!r.lazy || lazy <= maxLazyConvs) {
			i++
			continue
		}
		if r.lazy {
			lazy--
		}
		r.close()
		delete(c.convs, k)
		c.age = append(c.age[:i], c.age[i+1:]...)
	}
}
