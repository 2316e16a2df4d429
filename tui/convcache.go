package tui

import (
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
}

func newConvCache() convCache {
	return convCache{convs: map[convKey]convResult{}, pending: map[convKey]bool{},
		details: map[detailKey]bool{}, capsPending: map[*sessionData]bool{}}
}

func (c *convCache) busy() bool { return len(c.pending) > 0 || len(c.details) > 0 }

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
		if !msg.res.writing {
			delete(c.pending, msg.key) // else still pending: the rest follows
		}
		if old, ok := c.convs[msg.key]; !ok {
			c.age = append(c.age, msg.key)
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
		if !ok && !k.whole { // a whole one has the excerpts too
			r, ok = c.convs[wholeKey(k)]
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
	for _, k := range v.need {
		if k.data != nil && needsCaps(k.data) {
			// rendered once the models' capabilities are read
			if !c.capsPending[k.data] {
				c.capsPending[k.data] = true
				cmds = append(cmds, capsCmd(a.machine, k.data, k.sess.Info, opencode.SessionModels(k.sess)))
			}
			continue
		}
		if !c.pending[k] && (k.whole || !c.pending[wholeKey(k)]) {
			c.pending[k] = true
			var l sessions.Lazy
			if v.data.sess == k.sess {
				l = v.data.lazy
			}
			cmds = append(cmds, convCmd(v.ctx, a.cfg, k, *k.sess, l, capsFor(k.data, k.inputs)))
		}
	}
	return cmds
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
		if r.file != nil {
			r.file.Close()
		}
		delete(c.convs, k)
		c.age = append(c.age[:i], c.age[i+1:]...)
	}
}
