package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"correx/model"
	"correx/render"
)

type focusKind int

const (
	focusList focusKind = iota
	focusPane
)

// convSource gives the root's cached conversations to a session view.
type convSource func(convKey) (convResult, bool)

// sessionView is one session on screen: the call list on the left, the
// selected call's panes on the right.
type sessionView struct {
	a *app
	// ctx is cancelled when the view is left for good (Close): the
	// commands computing for it stop
	ctx    context.Context
	cancel context.CancelFunc
	st     *Styles
	data   *sessionData

	list     callList
	pane     paneKind
	focus    focusKind
	provider render.Provider
	compare  render.Provider
	compared bool // Compare was shown: its other side is warmed too
	// other, when set, makes Compare show the selected call beside the
	// first call of the same tool in a session of the other opencode
	// pipeline (V).
	other *sessionData

	views   []textView // one a registered pane
	cmp     compareView
	loaded  []string // content key of what each view holds
	headers [][]string
	hdr     []string // the current pane's headers wrapped to its width
	raw     []string // the pane's text for copying
	// need lists conversations the current pane waits for; needDetail is
	// the selected call of a lazy session while its visible result is not
	// computed (lazy.go).
	need       []convKey
	needDetail *detailKey

	width, height int
	listW         int   // 0 when zoomed
	zoomed        bool  // the pane has the whole width (+)
	stages        []int // the Pipeline's stage heading lines, in order

	searching bool
	search    lineInput
	listQuery string
}

func newSessionView(a *app, d *sessionData) *sessionView {
	st := a.st
	v := &sessionView{a: a, st: st, data: d, pane: paneSees}
	v.ctx, v.cancel = context.WithCancel(a.ctx)
	v.views, v.loaded = make([]textView, paneCount), make([]string, paneCount)
	v.headers, v.raw = make([][]string, paneCount), make([]string, paneCount)
	v.list = callList{st: st, focused: true}
	v.list.SetRows(buildRows(d, 0))
	for i := range v.views {
		v.views[i] = newTextView(st)
	}
	// the wire stage comes after the first screen: up to 9,999 lines in
	// all keep the gutter's width
	v.views[panePipeline].minDigits = 4
	v.cmp = compareView{st: st}
	v.provider = render.OpenAIChat
	for _, mi := range d.sess.AssistantSteps() {
		m := d.sess.Messages[mi]
		if p := render.OwnProvider(d.sess.Info, &m); p != "" {
			v.provider = p
			break
		}
	}
	v.compare = nextProvider(v.provider, 1)
	return v
}

func nextProvider(p render.Provider, d int) render.Provider {
	n := len(render.Providers)
	for i, q := range render.Providers {
		if q == p {
			return render.Providers[((i+d)%n+n)%n]
		}
	}
	return render.Providers[0]
}

func (v *sessionView) SetStyles(st *Styles) {
	v.st = st
	v.list.st = st
	for i := range v.views {
		v.views[i].SetStyles(st)
	}
	v.cmp.SetStyles(st)
	clear(v.loaded)
}

func (v *sessionView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.listW = clampInt(w*2/5, min(28, w/2), 60)
	v.list.SetSize(v.listW-2, h-2)
	if v.zoomed {
		v.listW = 0
	}
	v.layoutPane()
}

// paneInner is the size of the right box's inside.
func (v *sessionView) paneInner() (int, int) {
	return max(v.width-v.listW-2, 1), max(v.height-2, 1)
}

func (v *sessionView) layoutPane() {
	w, h := v.paneInner()
	extra := 0
	if v.searching || v.views[v.pane].query != "" {
		extra = 1
	}
	v.hdr = v.hdr[:0]
	for _, l := range v.headers[v.pane] {
		v.hdr = append(v.hdr, strings.Split(ansi.Wrap(l, w, ""), "\n")...)
	}
	if maxH := max((h-1)/3, 1); len(v.hdr) > maxH {
		v.hdr = v.hdr[:maxH]
	}
	ch := max(h-1-len(v.hdr)-extra, 1)
	v.views[v.pane].SetSize(w, ch)
	if v.pane == paneCompare {
		v.cmp.SetSize(w, ch)
	}
}

// requestStep is the step whose request carried the call's result, or 0
// when the session ends before another request was made (no assistant
// message follows the call's: looked for from there, not counted over the
// session).
func requestStep(ci *callInfo, s *model.Session) int {
	if ci.step == 0 {
		return 0
	}
	for i := ci.ref.Message + 1; i < len(s.Messages); i++ {
		if s.Messages[i].Role == model.RoleAssistant {
			return int(ci.step) + 1
		}
	}
	return 0
}

func rowKey(r callRow) string { return fmt.Sprintf("%p/%d", r.data, r.idx) }

// refresh loads the current pane's content for the selected call, from
// the cache where the content is a conversation; need lists the
// conversations still to render.
func (v *sessionView) refresh(conv convSource) {
	v.need, v.needDetail = nil, nil
	r, ok := v.list.Selected()
	p := v.pane
	if !ok {
		v.headers[p] = nil
		v.views[p].empty = "no tool call selected"
		v.views[p].SetContent("", nil, nil, false)
		v.loaded[p] = ""
		v.layoutPane()
		return
	}
	ci := r.info()
	sess := r.data.sess
	low := render.SessionLowering(sess.Info, v.a.lowering)
	v.needDetail = nil
	if !ci.ready {
		v.needDetail = &detailKey{r.data, int(r.idx)}
		v.headers[p] = nil
		v.views[p].empty = "reading the call's output…"
		v.views[p].SetContent("", nil, nil, false)
		v.raw[p], v.loaded[p] = "", ""
		v.layoutPane()
		return
	}
	r.data.touch(int(r.idx))
	panes[p].load(v, selected{p: p, r: r, ci: ci, sess: sess, low: low, vis: ci.visFor(low, v.provider), conv: conv})
	v.layoutPane()
}

// warmMaxSteps is the latest step whose conversation is warmed: a
// lowering holds memory in step with the conversation (a 5,000-call
// session's last, step 1,700 or so, costs the browsing inspector 7 MB of
// peak RSS; a 50,000-call one's cost 49 MB, past the 64 MB it keeps to).
const warmMaxSteps = 5000

// warmKeys are the conversations the Wire, Compare and Pipeline panes
// of the selected call would wait for (Compare's other side once Compare
// was shown), computed before they are asked for (convCache.warm): a lazy
// session's, whose lowering reads its store.
func (v *sessionView) warmKeys() []convKey {
	r, ok := v.list.Selected()
	if !ok || r.data.lazy == nil {
		return nil
	}
	ci := r.info()
	step := requestStep(ci, r.data.sess)
	if !ci.ready || step == 0 || step > warmMaxSteps {
		return nil
	}
	sess := r.data.sess
	k := convKey{sess: sess, data: r.data, p: v.provider, step: step, low: render.SessionLowering(sess.Info, v.a.lowering), inputs: v.a.inputs}
	if !v.compared {
		return []convKey{k}
	}
	other := k
	other.p = v.compare
	return []convKey{k, other}
}

// callJSON is the Call pane's text: the tool, its id, status and title, its
// input exactly as stored (key order kept) and its metadata, indented.
func callJSON(c *model.ToolCall) string {
	o := render.Obj{}
	o.Set("tool", c.Tool)
	o.Set("callID", c.CallID)
	o.Set("status", string(c.Status))
	if c.Title != "" {
		o.Set("title", c.Title)
	}
	o.Set("input", rawOrString(c.Input))
	if len(c.Metadata) > 0 && string(c.Metadata) != "null" {
		o.Set("metadata", rawOrString(c.Metadata))
	}
	b, err := render.MarshalIndent(o)
	if err != nil {
		return string(c.Input)
	}
	return string(b)
}

func rawOrString(raw json.RawMessage) render.Value {
	if len(raw) == 0 {
		return render.Obj{}
	}
	if json.Valid(raw) {
		return raw
	}
	return string(raw)
}

func (v *sessionView) callHeader(ci *callInfo, d *sessionData) []string {
	st := v.st
	c := ci.call()
	parts := []string{st.Badge.Render(inertString(c.Tool, st.Inert)), statusGlyph(st, c) + " " + string(c.Status)}
	if ci.step > 0 {
		parts = append(parts, fmt.Sprintf("step %d of %d", ci.step, d.steps))
	}
	if d := duration(c); d != "" {
		parts = append(parts, d)
	}
	if c.ChildSessionID != "" {
		parts = append(parts, st.SubBadge.Render("subagent "+inertString(c.ChildSessionID, st.Inert)))
	}
	lines := []string{strings.Join(parts, st.Muted.Render(" · "))}
	if m := ci.message(d.sess); m.ModelID != "" {
		lines = append(lines, st.Label.Render("model ")+inertString(m.ProviderID+"/"+m.ModelID, st.Inert))
	}
	return lines
}

func (v *sessionView) seesHeader(ci *callInfo, vis *model.Visible) []string {
	st := v.st
	sz := ci.visibleSize(vis)
	rt := string(vis.Result.Type)
	typeStyle := st.Badge
	if vis.Result.Type == model.ResultError {
		typeStyle = st.BadgeErr
	}
	first := st.Label.Render("result ") + typeStyle.Render(rt)
	t := vis.Truncation
	var lines []string
	if t == nil {
		first += st.Muted.Render(" · model saw all " + sz.String())
	} else {
		first += " " + st.TruncBadge.Render("✂ "+truncBadge(t))
	}
	if sz.open {
		first += st.Subtle.Render(" · no final newline")
	}
	lines = append(lines, first)
	var files, tools []string
	for _, c := range vis.Result.Content {
		switch c.Type {
		case model.ContentFile:
			name := c.Name
			if name == "" {
				name = "file"
			}
			files = append(files, inertString(name, st.Inert)+" "+inertString(c.Mime, st.Inert))
		case model.ContentToolRef:
			tools = append(tools, inertString(c.Name, st.Inert))
		}
	}
	if len(files) > 0 {
		lines = append(lines, st.Label.Render("+ files: ")+strings.Join(files, ", "))
	}
	if len(tools) > 0 {
		lines = append(lines, st.Label.Render("+ tool references: ")+strings.Join(tools, ", ")+
			st.Subtle.Render(" (the Anthropic API puts each tool's definition here; that text is not recorded)"))
	}
	if vis.Why != "" {
		lines = append(lines, st.BadgeWarn.Render("why: ")+inertString(vis.Why, st.Inert))
	}
	if t != nil && t.Notice != nil {
		lines = append(lines, st.Label.Render("notice, not in the result: ")+inertString(t.Notice.Where, st.Inert)+st.Muted.Render(" · ")+inertString(t.Notice.Text, st.Inert))
	}
	if t != nil {
		switch {
		case t.SpillFound != "":
			lines = append(lines, st.Label.Render("full output: ")+inertString(t.SpillFound, st.Inert)+st.Muted.Render("  (o view · O pager)"))
		case t.SpillGone():
			lines = append(lines, st.BadgeErr.Render(spillGoneText(t)))
		}
	}
	if len(lines) > 3 {
		lines = lines[:3]
	}
	return lines
}

func spillGoneText(t *model.Truncation) string {
	return "spill file is gone (" + t.SpillGoneReason() + "): expected at " + inertString(t.SpillPath, plainStyle)
}

// truncBadge is "model saw X of Y lines · A of B".
func truncBadge(t *model.Truncation) string {
	fullLines, fullBytes := t.Full()
	lines := fmt.Sprintf("model saw %s", commas(t.SeenLines))
	n := t.SeenLines
	if fullLines >= 0 {
		lines += " of " + commas(fullLines)
		n = fullLines
	}
	lines += plural(n, " line", " lines")
	bytes := humanBytes(t.SeenBytes)
	if fullBytes >= 0 {
		bytes += " of " + humanBytes(fullBytes)
	}
	return lines + " · " + bytes + " (" + string(t.Kind) + ")"
}

// asSentFor is "as sent" for the provider the agent itself sent the
// call's step to, "projection" for every other, and "rebuilt from the
// transcript, not as sent" for the agent's own when its log did not give
// the request that carried the result.
func (v *sessionView) asSentFor(ci *callInfo, sess *model.Session, p render.Provider) string {
	own := render.OwnProvider(sess.Info, ci.message(sess))
	switch req := sess.StepRequest(requestStep(ci, sess)); {
	case own == "" || own != p:
		return "projection"
	case req != nil && req.Rebuilt != "":
		return model.RebuiltLabel
	}
	return "as sent"
}

// providerLabel is "Anthropic · as sent · lowering ai-sdk (L)", or
// "· projection (Claude Code sent Anthropic)", or, when the agent's log
// did not give the request of step, "· rebuilt from the transcript, not as
// sent (why)".
func (v *sessionView) providerLabel(ci *callInfo, sess *model.Session, low model.Lowering, step int) string {
	st := v.st
	s := st.Badge.Render(v.provider.Label())
	own := render.OwnProvider(sess.Info, ci.message(sess))
	agent := agentName(sess.Info.Agent)
	switch req := sess.StepRequest(step); {
	case req != nil && req.Rebuilt != "":
		s += st.BadgeWarn.Render(" · "+model.RebuiltLabel) + st.Muted.Render(" ("+inertString(req.Rebuilt, st.Inert)+")")
	case own == v.provider:
		s += st.StatusOK.Render(" · as sent")
	case own != "":
		s += st.BadgeWarn.Render(" · projection") + st.Muted.Render(" ("+agent+" sent "+own.Label()+")")
	default:
		pid := ci.message(sess).ProviderID
		s += st.BadgeWarn.Render(" · projection") + st.Muted.Render(" (session used "+inertString(pid, st.Inert)+")")
	}
	switch {
	case low == "":
	case sess.Info.Pipeline == model.PipelineV2:
		s += st.Muted.Render(" · lowering ") + st.Badge.Render(string(low)) + st.Muted.Render(" (v2)")
	default:
		s += st.Muted.Render(" · lowering ") + st.Badge.Render(string(low)) + st.Muted.Render(" (L)")
	}
	return s
}

func (v *sessionView) wireContent(p paneKind, ci *callInfo, s *model.Session, low model.Lowering, step int, res convResult, ready bool) (text string, file *fileLines, head []string, empty string) {
	st := v.st
	head = []string{v.providerLabel(ci, s, low, step)}
	switch {
	case step == 0:
		head = append(head, st.BadgeWarn.Render("no request after this call's step: the session ended before the result was sent"))
		return "", nil, head, "(no later request)"
	case !ready:
		head = append(head, st.Muted.Render(fmt.Sprintf("request of step %d", step)))
		return "", nil, head, "rendering " + v.provider.Label() + "…"
	case res.err != nil:
		head = append(head, st.BadgeErr.Render("render error: ")+inertString(res.err.Error(), st.Inert))
		return "", nil, head, "(render error)"
	case !res.rendered:
		head = append(head, st.BadgeWarn.Render(v.provider.Label()+" is not available yet (its renderer returned nothing)"))
		return "", nil, head, "(not available for this provider yet)"
	}
	if res.note != "" {
		head = append(head, st.BadgeWarn.Render(inertString(res.note, st.Inert)))
	}
	if p == paneRequest {
		size := humanBytes(int(res.size))
		if res.writing {
			// no longer than a size: the header keeps its lines, and the
			// first screen its place, when the request is written
			size = "writing…"
		}
		items := fmt.Sprintf("%d items", res.items)
		if res.head {
			items = "… items" // counted once all are lowered; no longer than a count, so the header keeps its lines
		}
		head = append(head, st.Muted.Render(fmt.Sprintf("request of step %d (carried this result) · %s · %s", step, items, size)))
		if res.err == nil && res.file != nil {
			return "", res.file, head, "(empty conversation)"
		}
		return res.json, nil, head, "(empty conversation)"
	}
	e := res.excerpts[ci.call().CallID]
	if !e.wireOK {
		head = append(head, st.BadgeWarn.Render(fmt.Sprintf("%s (request of step %d); see Request (4)", notPlaced(e), step)))
		return "", nil, head, "(" + notPlaced(e) + ")"
	}
	where := fmt.Sprintf("items %s of %d", e.items, e.total)
	if !strings.ContainsAny(e.items, ",–") {
		where = fmt.Sprintf("item %s of %d", e.items, e.total)
	}
	carried := "carried this result"
	if e.unsent {
		carried = "carried the call; no result was sent for it"
	}
	head = append(head, st.Muted.Render(fmt.Sprintf("request of step %d (%s) · %s", step, carried, where)))
	return e.wire, e.wireFile, head, ""
}

// notPlaced says why an excerpt has no wire text: render placed the call
// without a result, or did not place it in this conversation.
func notPlaced(e excerpt) string {
	if e.unsent {
		return "no result was sent for this call"
	}
	return "the call is not in this conversation"
}

// tabs renders the pane tab bar and returns it with each tab's x range.
func (v *sessionView) tabs(w int) (string, [][2]int) {
	ranges := make([][2]int, paneCount)
	names := make([]string, paneCount)
	total := 0
	for i, p := range panes {
		names[i] = p.name
		total += len(fmt.Sprint(i+1)) + 1 + ansi.StringWidth(p.name) + 2
	}
	if total > w {
		for i, p := range panes {
			names[i] = p.short
		}
	}
	var b strings.Builder
	x := 0
	for i := range names {
		label := fmt.Sprintf("%d %s", i+1, names[i])
		st := v.st.Tab
		if paneKind(i) == v.pane {
			st = v.st.TabActive
		}
		ranges[i] = [2]int{x, x + ansi.StringWidth(label)}
		b.WriteString(st.Render(label))
		b.WriteString("  ")
		x += ansi.StringWidth(label) + 2
	}
	return fit(b.String(), w), ranges
}

// View renders the session view: list box and pane box side by side.
func (v *sessionView) View() string {
	st := v.st
	title := fmt.Sprintf("Calls %d", len(v.list.rows))
	if v.listQuery != "" && v.focus == focusList {
		title += " /" + v.listQuery
	}
	left := ""
	if !v.zoomed {
		left = box(st, "[←] "+title, strings.Split(v.list.View(), "\n"), v.listW, v.height, v.focus == focusList)
	}

	w, h := v.paneInner()
	tabs, _ := v.tabs(w)
	inner := []string{tabs}
	for _, hl := range v.hdr {
		inner = append(inner, fit(hl, w))
	}
	tv := &v.views[v.pane]
	if v.searching {
		inner = append(inner, fit(st.Prompt.Render("/")+v.search.View()+" "+st.Muted.Render(tv.MatchInfo()), w))
	} else if tv.query != "" {
		inner = append(inner, fit(st.Muted.Render(tv.MatchInfo()+"  (n/N)"), w))
	}
	if v.pane == paneCompare {
		inner = append(inner, strings.Split(v.cmp.View(), "\n")...)
	} else {
		inner = append(inner, strings.Split(tv.View(), "\n")...)
	}
	if len(inner) > h {
		inner = inner[:h]
	}
	ptitle := "[→] " + panes[v.pane].name
	if v.pane == paneCompare && v.other != nil {
		ptitle += " v1 ↔ v2"
	}
	if v.pane != paneCompare && tv.Lines() > 0 {
		first, last := tv.shownLines()
		ptitle += fmt.Sprintf(" %d–%d/%d", first, last, tv.Lines())
	}
	if v.zoomed {
		ptitle += " (zoomed: + back)"
	}
	right := box(st, ptitle, inner, v.width-v.listW, v.height, v.focus == focusPane)
	if v.zoomed {
		return right
	}
	return joinH(left, right)
}

// box draws lines in a rounded border of w×h cells with a title in the top
// edge; the border is highlighted when focused.
func box(st *Styles, title string, lines []string, w, h int, focused bool) string {
	bs, ts := st.Border, st.BoxTitle
	if focused {
		bs, ts = st.BorderFocus, st.BoxTitleFoc
	}
	iw := max(w-2, 0)
	t := ansi.Truncate(" "+title+" ", max(iw-2, 0), "…")
	top := bs.Render("╭─") + ts.Render(t) + bs.Render(strings.Repeat("─", max(iw-1-ansi.StringWidth(t), 0))+"╮")
	out := []string{top}
	for i := 0; i < h-2; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, bs.Render("│")+fit(l, iw)+bs.Render("│"))
	}
	out = append(out, bs.Render("╰"+strings.Repeat("─", iw)+"╯"))
	return strings.Join(out, "\n")
}

// joinH joins two blocks of equal height side by side.
func joinH(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	out := make([]string, max(len(al), len(bl)))
	for i := range out {
		if i < len(al) {
			out[i] = al[i]
		}
		if i < len(bl) {
			out[i] += bl[i]
		}
	}
	return strings.Join(out, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readSyntax highlights a read result's numbered lines ("12: code") in the
// language of the file read; nil for other tools or unknown languages.
func (v *sessionView) readSyntax(ci *callInfo) func(string) []span {
	c := ci.call()
	if c.Tool != "read" || ci.vis.Result.Type != model.ResultText {
		return nil
	}
	var in struct {
		FilePath string `json:"filePath"`
	}
	if json.Unmarshal(c.Input, &in) != nil || in.FilePath == "" {
		return nil
	}
	lex := lexerForFile(in.FilePath)
	if lex == nil {
		return nil
	}
	return func(line string) []span {
		j := 0
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == 0 || !strings.HasPrefix(line[j:], ": ") {
			return nil
		}
		spans := syntaxSpans(lex, line[j+2:], j+2, v.st)
		return append(spans, span{start: 0, end: j + 1, style: v.st.Gutter, prio: prioSyntax})
	}
}
