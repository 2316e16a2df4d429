package tui

import (
	"fmt"
	"slices"

	"correx/model"
	"correx/render"
)

// paneKind is a pane's place in the registry.
type paneKind int

// The panes other code names (Compare and Request are drawn or copied
// apart); TestPaneRegistry checks they match the registry.
const (
	paneCall paneKind = iota
	paneSees
	paneWire
	paneRequest
	paneCompare
	panePipeline
)

// panes is the registry of the session view's panes, in tab order. A new
// pane is a file defining its paneDef, and one line here.
var panes = [...]paneDef{
	callPane,
	seesPane,
	wirePane,
	requestPane,
	comparePane,
	pipelinePane,
}

const paneCount = paneKind(len(panes))

// paneDef is one pane: its tab names and how it loads the selected call.
type paneDef struct {
	name, short string
	// load fills v's view for pane s.p from s (the call's visible result
	// is known), unless v.loaded[s.p] says it holds that already; what
	// it waits for goes in v.need.
	load func(v *sessionView, s selected)
}

// selected is the selected call as a pane loads it.
type selected struct {
	p    paneKind
	r    callRow
	ci   *callInfo
	sess *model.Session
	low  model.Lowering
	vis  *model.Visible
	conv convSource
}

var callPane = paneDef{name: "Call", short: "Call", load: func(v *sessionView, s selected) {
	key := rowKey(s.r)
	if v.loaded[s.p] == key {
		return
	}
	text := callJSON(s.ci.call())
	v.headers[s.p] = v.callHeader(s.ci, s.r.data)
	v.views[s.p].SetContent(text, lexerByName("json"), nil, false)
	v.raw[s.p], v.loaded[s.p] = text, key
}}

var seesPane = paneDef{name: "Model sees", short: "Sees", load: func(v *sessionView, s selected) {
	key := rowKey(s.r) + "/" + string(s.low)
	if v.loaded[s.p] == key {
		return
	}
	vis := s.vis
	v.headers[s.p] = v.seesHeader(s.ci, vis)
	v.views[s.p].empty = "(empty: the model was shown an empty result)"
	if len(vis.Result.Content) > 0 {
		v.views[s.p].empty = "(no text: the model was shown the items above)"
	}
	var marks []model.Span
	if t := vis.Truncation; t != nil {
		marks = t.Markers
	}
	if fl := s.ci.bigText(); fl != nil {
		v.views[s.p].SetFileSyntax(fl, v.readSyntax(s.ci), false)
	} else {
		v.views[s.p].SetContentSyntax(vis.Text, v.readSyntax(s.ci), marks, false)
	}
	v.raw[s.p], v.loaded[s.p] = vis.Text, key
}}

var (
	wirePane    = paneDef{name: "Wire", short: "Wire", load: loadWire}
	requestPane = paneDef{name: "Request", short: "Req", load: loadWire}
)

// stepConv is the conversation of the request that carried the call's
// result on the current provider (ready and empty when no later request
// was made), and the content key of a pane showing it (convKeyOf):
// perSession for a pane that shows the whole request, the same for every
// call of a step.
func (v *sessionView) stepConv(s selected, perSession bool) (step int, key string, res convResult, ready bool) {
	step = requestStep(s.ci, s.sess)
	key = fmt.Sprintf("%s/%s/%d/%s", rowKey(s.r), v.provider, step, s.low)
	if perSession {
		key = fmt.Sprintf("%p/%s/%d/%s", s.sess, v.provider, step, s.low)
	}
	key += fmt.Sprintf("/%s/%t", v.a.inputs, s.r.data.caps != nil)
	ready = step == 0
	if step > 0 {
		k := convKey{sess: s.sess, data: s.r.data, p: v.provider, step: step, low: s.low, inputs: v.a.inputs, whole: perSession}
		if res, ready = s.conv(k); !ready || res.tail { // a tail is Compare's alone
			ready = false
			v.need = append(v.need, k)
		}
	}
	return step, key, res, ready
}

// contentKey is the key of a pane's content showing conversation key,
// ready or not, as res holds it: whole, or its first lines (a head's, or
// the whole's as written) while writing.
func contentKey(key string, ready bool, res convResult) string {
	return key + fmt.Sprint(ready, res.writing, res.head, res.tail)
}

// loadWire loads Wire (the call and its result as placed in the request)
// or Request (the whole request, from its spool file when large).
func loadWire(v *sessionView, s selected) {
	p := s.p
	step, conv, res, ready := v.stepConv(s, p == paneRequest)
	key := contentKey(conv, ready, res)
	if v.loaded[p] == key {
		return
	}
	// the whole request shown while it was written: now more of it, or
	// all, at the same place
	keep := v.loaded[p] == contentKey(conv, true, convResult{writing: true}) || v.loaded[p] == contentKey(conv, true, convResult{writing: true, head: true})
	text, file, head, empty := v.wireContent(p, s.ci, s.sess, s.low, step, res, ready)
	switch {
	case res.writing:
		// its first lines, the rest to come: the gutter keeps the width
		// of a request of up to ten million lines when it does
		v.views[p].minDigits = 7
	case !keep:
		v.views[p].minDigits = 0
	}
	v.headers[p] = withLine(head, v.capsLine(s.r.data, s.ci.message(s.r.data.sess)))
	v.views[p].empty = empty
	if file != nil {
		v.views[p].SetFile(file, lexerByName("json"), keep)
	} else {
		v.views[p].SetContent(text, lexerByName("json"), nil, keep)
	}
	v.raw[p], v.loaded[p] = text, key
}

var pipelinePane = paneDef{name: "Pipeline", short: "Pipe", load: func(v *sessionView, s selected) {
	step, conv, res, ready := v.stepConv(s, false)
	key := contentKey(conv, ready, res)
	if v.loaded[s.p] == key {
		return
	}
	// the text it replaces is let go first: with a huge output, two
	// would be held while the new one is composed
	v.views[s.p].SetContent("", nil, nil, false)
	v.raw[s.p] = ""
	p, head := v.pipelineContent(s.ci, s.sess, s.low, step, res, ready)
	text := p.String()
	v.stages = v.stages[:0]
	for l := range p.heads {
		v.stages = append(v.stages, l)
	}
	slices.Sort(v.stages)
	v.headers[s.p] = withLine(head, v.capsLine(s.r.data, s.ci.message(s.r.data.sess)))
	v.views[s.p].lineStyle = pipeLineStyle(v.st, p.heads, p.notes)
	v.views[s.p].SetContent(text, nil, p.marks, false)
	v.views[s.p].SetFolds(p.folds)
	v.raw[s.p], v.loaded[s.p] = text, key
}}

var comparePane = paneDef{name: "Compare", short: "Cmp", load: loadCompare}

// loadCompare loads Compare: the call's wire on two providers side by
// side, or (V) beside the same tool's call in the other opencode pipeline.
func loadCompare(v *sessionView, s selected) {
	p, r, ci, sess, low := s.p, s.r, s.ci, s.sess, s.low
	if v.other != nil {
		v.crossCompare(r, s.conv)
		return
	}
	v.compared = true
	step := requestStep(ci, sess)
	key := fmt.Sprintf("%s/%s/%s/%d/%s/%s/%t", rowKey(r), v.provider, v.compare, step, low, v.a.inputs, r.data.caps != nil)
	var texts [2]string
	var notes [2]string
	allReady, tails := true, false
	for i, prov := range []render.Provider{v.provider, v.compare} {
		if step == 0 {
			notes[i] = "no later request"
			continue
		}
		k := convKey{sess: sess, data: r.data, p: prov, step: step, low: low, inputs: v.a.inputs}
		res, ready := s.conv(k)
		if ready {
			_, ready = res.excerptOf(ci.call().CallID)
			tails = tails || res.tail
		}
		if !ready {
			v.need = append(v.need, k)
			allReady = false
			notes[i] = "rendering…"
			continue
		}
		switch {
		case res.err != nil:
			notes[i] = "error: " + res.err.Error()
		case !res.rendered:
			notes[i] = "not available yet"
		default:
			if e := res.excerpts[ci.call().CallID]; e.wireOK {
				texts[i] = e.wire
				if e.wireFile != nil {
					texts[i] = clipped(e.wirePieces(), "Wire (3) shows it whole")
				}
			} else {
				notes[i] = notPlaced(e)
			}
		}
	}
	key += fmt.Sprint(allReady, tails) // a tail's texts are the whole's: loaded again, they stay
	if v.loaded[p] == key {
		return
	}
	v.cmp.SetContent(texts[0], texts[1], false)
	st := v.st
	head := st.Badge.Render(v.provider.Label()) + st.Muted.Render(" "+v.asSentFor(ci, sess, v.provider)+" vs ") +
		st.Badge.Render(v.compare.Label()) + st.Muted.Render(" "+v.asSentFor(ci, sess, v.compare))
	if step > 0 {
		head += st.Muted.Render(fmt.Sprintf(" · request of step %d", step))
	}
	head += st.Muted.Render(loweringWord(low))
	second := st.Muted.Render(fmt.Sprintf("%d of %d rows differ (≠)", v.cmp.differ, len(v.cmp.rows)))
	for i, n := range notes {
		if n != "" {
			second += st.BadgeWarn.Render(fmt.Sprintf(" · %s: %s", []render.Provider{v.provider, v.compare}[i].Label(), n))
		}
	}
	v.headers[p] = withLine([]string{head, second}, v.capsLine(r.data, ci.message(r.data.sess)))
	v.raw[p], v.loaded[p] = texts[0], key
}
