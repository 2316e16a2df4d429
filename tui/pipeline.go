package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"charm.land/lipgloss/v2"

	"correx/formatters"
	"correx/model"
	"correx/render"
)

// The Pipeline pane follows one call's result through every stage it
// passed on its way to the model:
//
//  1. the raw stored state (v1: state.output/error/attachments/metadata;
//     v2: structured, content, outputPaths, error; other agents: the
//     result as they stored it);
//  2. the model-visible text (formatters.Visible under the lowering);
//  3. bounded: the truncation facts (kind, markers, seen/full, spill);
//  4. the ToolResultValue (type and value);
//  5. the wire: the result as the current provider receives it under the
//     current lowering.
//
// Each stage is headed and says in one line what changed from the stage
// before. The stages' texts are written exactly (the text view makes
// control characters inert); only the heading and note lines are ours.

// pipeText is the composed pane text and which of its lines are headings
// and notes. The text is kept in pieces, each body one of its own, and
// joined once at its size (String): a huge output is copied once, not
// again each time a builder grows.
type pipeText struct {
	parts []string
	n     int // bytes in parts
	line  int
	heads map[int]bool
	notes map[int]bool
	marks []model.Span
	folds []lineRange // the middles of long bodies, folded at display
	clip  clip        // where the last body was clipped
}

// A body longer than foldOver lines is shown folded to its first and last
// foldKeep lines.
const foldOver, foldKeep = 40, 8

func newPipeText() *pipeText {
	return &pipeText{heads: map[int]bool{}, notes: map[int]bool{}}
}

// oneLine keeps a label on one line: a newline in a name or path would
// shift the heading lines.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

func (p *pipeText) write(s string) {
	p.parts = append(p.parts, s)
	p.n += len(s)
}

// String is the whole text.
func (p *pipeText) String() string { return strings.Join(p.parts, "") }

func (p *pipeText) writeLine(s string) {
	p.write(oneLine(s) + "\n")
	p.line++
}

func (p *pipeText) head(n int, s string) {
	if p.line > 0 {
		p.writeLine("")
	}
	p.heads[p.line] = true
	p.writeLine(fmt.Sprintf("━━ %d %s ━━", n, s))
}

func (p *pipeText) note(s string) {
	p.notes[p.line] = true
	p.writeLine("→ " + s)
}

// body writes a stage's text (given in pieces, joined) exactly, and
// returns where it starts; a text without a final newline is ended by one
// (the label said so). A text over clipBytes is written clipped: its
// first and last clipKeep bytes or so (whole lines), a note between them
// saying what is left out (p.clip says where).
func (p *pipeText) body(text ...string) int {
	p.clip = clip{}
	total := 0
	for _, t := range text {
		total += len(t)
	}
	if total > clipBytes {
		var w clipWriter
		for _, t := range text {
			w.Write(unsafe.Slice(unsafe.StringData(t), len(t))) // kept in part, copied
		}
		return p.bodyOf(&w)
	}
	return p.writeBody(text)
}

// bodyPieces is body of pieces of an excerpt, those in a file read a
// buffer at a time into the ends body keeps of a large text.
func (p *pipeText) bodyPieces(ps []xpiece) int {
	if ts, ok := texts(ps); ok {
		return p.body(ts...)
	}
	p.clip = clip{}
	var w clipWriter
	if err := writePieces(&w, ps); err != nil {
		p.note("could not read the excerpt back: " + err.Error())
		return p.n
	}
	return p.bodyOf(&w)
}

// writeBody is body's writing of the text.
func (p *pipeText) writeBody(text []string) int {
	off, first := p.n, p.line
	last := ""
	for _, t := range text {
		p.write(t)
		p.line += strings.Count(t, "\n")
		if t != "" {
			last = t
		}
	}
	if !strings.HasSuffix(last, "\n") {
		p.write("\n")
		p.line++
	}
	if p.line-first > foldOver {
		p.folds = append(p.folds, lineRange{first + foldKeep, p.line - foldKeep})
	}
	return off
}

// A body over clipBytes is held clipped to clipKeep bytes at each end: the
// pane shows a result at four stages, and a 47 MiB output held whole at
// each was some 380 MB; the Result and Wire panes show it whole.
const clipBytes, clipKeep = 4 << 20, 256 << 10

// clip is where the last body was clipped: its first head bytes are the
// text's, then a note of note bytes stands for the next cut bytes.
type clip struct{ head, note, cut int }

// at is where offset i of the last body's text is in what was written,
// false when it was cut.
func (c clip) at(i int) (int, bool) {
	switch {
	case c.cut == 0 || i < c.head:
		return i, true
	case i < c.head+c.cut:
		return 0, false
	}
	return i - c.cut + c.note, true
}

// clipEnds is a text of total bytes, its first and last clipKeep bytes
// head and tail, as body writes it clipped.
func (p *pipeText) clipEnds(head, tail string, total int) []string {
	head, tail = clipLines(head, tail)
	cut := total - len(head) - len(tail)
	note := clipNote(cut, total, "panes 2 and 3 show it whole")
	p.notes[p.line+strings.Count(head, "\n")] = true
	p.clip = clip{head: len(head), note: len(note), cut: cut}
	return []string{head, note, tail}
}

// clipLines are the whole lines of a text's head, and its tail from a
// line's start.
func clipLines(head, tail string) (string, string) {
	return head[:strings.LastIndexByte(head, '\n')+1], tail[min(strings.IndexByte(tail, '\n')+1, len(tail)):]
}

// clipNote is the line that stands for cut bytes left out of total.
func clipNote(cut, total int, whole string) string {
	return fmt.Sprintf("… %s of %s left out here, whole lines kept at each end (%s)\n", humanBytes(cut), humanBytes(total), whole)
}

// clipWriter keeps what is written, up to clipBytes; past that only its
// first and last clipKeep bytes (a value body clips is never held whole).
type clipWriter struct {
	all   []byte
	total int
	head  []byte
	ring  []byte // the last clipKeep bytes, from at on and then before it
	at    int
}

func (w *clipWriter) Write(b []byte) (int, error) {
	w.total += len(b)
	if w.ring == nil && len(w.all)+len(b) <= clipBytes {
		w.all = append(w.all, b...)
		return len(b), nil
	}
	if w.ring == nil { // past clipBytes: from now on its ends only
		all := w.all
		w.all, w.head, w.ring = nil, make([]byte, 0, clipKeep), make([]byte, clipKeep)
		w.keep(all)
	}
	w.keep(b)
	return len(b), nil
}

// keep adds b to the head while it is short of clipKeep bytes, and puts
// b's last clipKeep bytes in the ring.
func (w *clipWriter) keep(b []byte) {
	w.head = append(w.head, b[:min(len(b), clipKeep-len(w.head))]...)
	if len(b) >= clipKeep {
		copy(w.ring, b[len(b)-clipKeep:])
		w.at = 0
		return
	}
	n := copy(w.ring[w.at:], b)
	copy(w.ring, b[n:])
	w.at = (w.at + len(b)) % clipKeep
}

// bodyOf is body of what w was written, clipped as body clips.
func (p *pipeText) bodyOf(w *clipWriter) int {
	if w.ring == nil {
		p.clip = clip{}
		return p.writeBody([]string{string(w.all)})
	}
	tail := string(w.ring[w.at:]) + string(w.ring[:w.at])
	return p.writeBody(p.clipEnds(string(w.head), tail, w.total))
}

// textLabel is "label (N lines · X bytes)" for a body about to be written.
func textLabel(label string, sz textSize) string {
	s := fmt.Sprintf("%s (%s", label, sz)
	if sz.open {
		s += ", no final newline"
	}
	return s + "):"
}

func (p *pipeText) textBlock(label, text string) int {
	if text == "" {
		p.writeLine(label + ": (empty)")
		return p.n
	}
	p.writeLine(textLabel(label, sizeOf(text)))
	return p.body(text)
}

// textOrFile is textBlock of text, or of the text in fl when there is one.
func (p *pipeText) textOrFile(label, text string, fl *fileLines) int {
	if fl == nil || fl.size == 0 {
		return p.textBlock(label, text)
	}
	p.writeLine(textLabel(label, fl.textSize()))
	return p.bodyPieces(fl.pieces())
}

func (p *pipeText) jsonBlock(label string, raw json.RawMessage) {
	if len(raw) == 0 {
		p.writeLine(label + ": (absent)")
		return
	}
	p.writeLine(label + ":")
	p.body(string(raw))
}

// pipeStored is stage 1.
// big, when not nil, is the text of c's field (spoolDetail): c is the
// outline's call, without it.
func (p *pipeText) pipeStored(c *model.ToolCall, info model.SessionInfo, big *fileLines, field string) {
	of := func(f string) *fileLines {
		if f == field {
			return big
		}
		return nil
	}
	switch {
	case c.Sent != nil:
		p.head(1, "stored state · "+agentName(info.Agent)+" stores the result as it sent it")
		p.note("the agent's own record of the result")
		p.writeLine("status: " + string(c.Status))
		p.writeLine("stored result type: " + string(c.Sent.Type))
		p.contentItems("stored", *c.Sent)
		if c.Output != "" && c.Output != formatters.ResultText(*c.Sent) {
			p.textBlock("stored output (before the agent's additions)", c.Output)
		}
		if c.Error != "" && c.Error != formatters.ResultText(*c.Sent) {
			p.textBlock("stored error", c.Error)
		}
	case c.IsV2():
		p.head(1, "stored state · v2 tool state (session_message)")
		p.note("as stored by opencode's v2 loop")
		p.writeLine("status: " + string(c.Status))
		p.jsonBlock("state.structured", c.Structured)
		p.writeLine(fmt.Sprintf("state.content: %d %s", len(c.Content), plural(len(c.Content), "item", "items")))
		for i, it := range c.Content {
			p.contentItem(fmt.Sprintf("  [%d]", i), it)
		}
		if len(c.OutputPaths) == 0 {
			p.writeLine("state.outputPaths: (none)")
		} else {
			p.writeLine("state.outputPaths:")
			for _, o := range c.OutputPaths {
				p.writeLine("  " + o)
			}
		}
		if c.Status == model.StatusError || len(c.ErrorValue) > 0 {
			p.jsonBlock("state.error", c.ErrorValue)
		}
	default:
		p.head(1, "stored state · v1 tool part (state)")
		p.note("as stored by opencode")
		p.writeLine("status: " + string(c.Status))
		if c.Compacted {
			p.writeLine("state.time.compacted: set (the output was pruned from later requests)")
		}
		switch c.Status {
		case model.StatusCompleted:
			p.textOrFile("state.output", c.Output, of("output"))
		case model.StatusError:
			p.textOrFile("state.error", c.Error, of("error"))
		}
		if len(c.Attachments) > 0 {
			p.writeLine(fmt.Sprintf("state.attachments: %d", len(c.Attachments)))
			for i, f := range c.Attachments {
				p.writeLine(fmt.Sprintf("  [%d] %s %s", i, f.Mime, f.Filename))
				p.body(f.URL)
			}
		}
	}
	if len(c.Metadata) > 0 && string(c.Metadata) != "null" {
		if b, err := render.MarshalIndent(rawOrString(c.Metadata)); err == nil {
			p.writeLine("state.metadata:")
			p.body(string(b))
		}
	}
}

func (p *pipeText) contentItems(label string, r model.ToolResultValue) {
	switch r.Type {
	case model.ResultContent:
		p.writeLine(fmt.Sprintf("%s content: %d %s", label, len(r.Content), plural(len(r.Content), "item", "items")))
		for i, it := range r.Content {
			p.contentItem(fmt.Sprintf("  [%d]", i), it)
		}
	case model.ResultJSON:
		p.jsonBlock(label+" json", r.JSON)
	default:
		p.textBlock(label+" "+string(r.Type), r.Text)
	}
}

func (p *pipeText) contentItem(label string, it model.ToolContent) {
	if it.Type == model.ContentText {
		p.textBlock(label+" text", it.Text)
		return
	}
	p.writeLine(fmt.Sprintf("%s %s %s %s", label, it.Type, it.Mime, it.Name))
	p.body(it.URI)
}

// visibleNote says how stage 2 came from stage 1.
func visibleNote(c *model.ToolCall, vis *model.Visible, low model.Lowering) string {
	switch {
	case c.Sent != nil:
		if vis.Why != "" {
			return vis.Why
		}
		return "unchanged: the result as the agent stored it"
	case c.IsV2():
		switch {
		case !formatters.V2Settled(c):
			return "none: the call never settled, opencode replays the call without a result"
		case c.Status == model.StatusError:
			return "JSON.stringify({error, content, structured})"
		case len(c.Content) == 0:
			return "JSON.stringify(structured): the tool returned no content items"
		case len(c.Content) == 1 && c.Content[0].Type == model.ContentText:
			return "unchanged: the one text item"
		}
		return "the text items joined by newlines; files stay items of the result"
	}
	switch c.Status {
	case model.StatusCompleted:
		switch {
		case c.Compacted:
			return "placeholder: compacted (" + formatters.ClearedOutput + ")"
		case low == model.LoweringNative && formatters.LoweringMatters(c):
			return vis.Why // render.Visible: stringified, or the text once the media moved out
		case len(c.Attachments) > 0:
			return "unchanged text: state.output; the attachments become file items of the result"
		}
		return "unchanged: state.output verbatim"
	case model.StatusError:
		if vis.Result.Type != model.ResultError {
			return "metadata.output of an interrupted call, sent as a normal result"
		}
		return "unchanged: state.error verbatim"
	}
	return "placeholder: interrupted (" + formatters.InterruptedOutput + ")"
}

// boundNote says what the truncation rule did.
func boundNote(t *model.Truncation) string {
	if t == nil {
		return "unchanged: not truncated"
	}
	what := formatters.KindBound(t.Kind)
	switch t.Kind {
	case model.TruncBashTail:
		what = "cut to its tail, marker added"
	case model.TruncGenericHead:
		what = "cut to its head, footer added"
	case model.TruncV2Bound:
		what = "cut to head+tail, marker added"
	case model.TruncV2ReadPage:
		what = "read returned one page of the file, flagged truncated"
	case model.TruncReadLines, model.TruncReadBytes, model.TruncReadEntries:
		what = "read stopped at its limit, footer added"
	case model.TruncReadLine:
		what = "long lines cut to 2000 chars, marker added"
	case model.TruncGlobCap, model.TruncGrepCap:
		what = "capped at 100 results, note added"
	case model.TruncCodexBuffer, model.TruncCodexLines, model.TruncCodexBytes, model.TruncCodexItems:
		what = "cut, marker added"
	}
	if what == "" {
		what = "middle cut, marker added"
	}
	if formatters.CutWhenSent(t.Kind) {
		return what + " (" + string(t.Kind) + "; done when the request was built: stage 1 holds the uncut result)"
	}
	return what + " (" + string(t.Kind) + "; done before the result was stored, so stages 1 and 2 hold the cut)"
}

func (p *pipeText) pipeBound(t *model.Truncation, text string, sz textSize) {
	p.head(3, "bounded")
	p.note(boundNote(t))
	if t == nil {
		p.writeLine("model saw all " + sz.String())
		return
	}
	p.writeLine("kind: " + string(t.Kind))
	for i, m := range t.Markers {
		p.writeLine(fmt.Sprintf("marker %d: bytes %s–%s: %s", i+1, commas(m.Start), commas(m.End), jsonQuote(text[m.Start:m.End])))
	}
	p.writeLine("seen: " + truncBadge(t))
	switch {
	case t.SpillPath == "":
		p.writeLine("spill: none kept")
	case t.SpillFound != "":
		p.writeLine("spill: " + t.SpillPath)
		if t.SpillFound != t.SpillPath {
			p.writeLine("  found at " + t.SpillFound)
		}
	default:
		p.writeLine("spill: " + t.SpillPath + " (gone: " + t.SpillGoneReason() + ")")
	}
}

// resultValue is a ToolResultValue as packages/llm writes it: type and value.
func resultValue(r model.ToolResultValue) render.Value {
	o := render.Obj{{Key: "type", Val: string(r.Type)}}
	switch r.Type {
	case model.ResultJSON:
		o.Set("value", rawOrString(r.JSON))
	case model.ResultContent:
		items := []render.Value{}
		for _, c := range r.Content {
			it := render.Obj{{Key: "type", Val: string(c.Type)}}
			if c.Type == model.ContentText {
				it.Set("text", c.Text)
			} else {
				it.Set("uri", c.URI)
				it.Set("mime", c.Mime)
				if c.Name != "" {
					it.Set("name", c.Name)
				}
			}
			items = append(items, it)
		}
		o.Set("value", items)
	default:
		o.Set("value", r.Text)
	}
	return o
}

func valueNote(c *model.ToolCall, vis *model.Visible) string {
	r := vis.Result
	switch r.Type {
	case model.ResultJSON:
		return "json: the structured value, sent as its JSON text"
	case model.ResultContent:
		files := 0
		for _, it := range r.Content {
			if it.Type == model.ContentFile {
				files++
			}
		}
		return fmt.Sprintf("content: %d items (%d %s), not one string", len(r.Content), files, plural(files, "file", "files"))
	case model.ResultError:
		if c.IsV2() && !formatters.V2Settled(c) {
			return "none: no result is sent for this call"
		}
		return "error: the text above, flagged as an error where the provider has a flag"
	}
	return "text: the text above"
}

// wireNote describes stage 5 from the excerpt and the result.
func wireNote(p render.Provider, vis *model.Visible, c *model.ToolCall, low model.Lowering, media bool) string {
	var where string
	switch p {
	case render.OpenAIChat:
		where = "a tool message"
	case render.OpenAIResponses:
		where = "a function_call_output item"
	case render.Anthropic:
		where = "a tool_result block of a user message"
	case render.Gemini:
		where = "a functionResponse part"
	case render.Bedrock:
		where = "a toolResult block of a user message"
	default:
		where = string(p)
	}
	var parts []string
	switch {
	case media:
		parts = append(parts, "images moved to a synthetic user message")
	case low == model.LoweringNative && formatters.LoweringMatters(c):
		parts = append(parts, "stringified JSON (native lowering)")
	case vis.Result.Type == model.ResultJSON:
		parts = append(parts, "JSON.stringify(structured) as the text")
	case vis.Result.Type == model.ResultContent:
		parts = append(parts, "items kept: text and media blocks")
	default:
		parts = append(parts, "the text as it is (JSON-escaped below)")
	}
	if vis.Result.Type == model.ResultError {
		if p == render.Anthropic {
			parts = append(parts, "is_error set")
		} else {
			parts = append(parts, "no error flag on this wire")
		}
	}
	return "in " + where + ": " + strings.Join(parts, "; ")
}

// pipelineContent composes the Pipeline pane for a call.
func (v *sessionView) pipelineContent(ci *callInfo, sess *model.Session, low model.Lowering, step int, res convResult, ready bool) (*pipeText, []string) {
	c := ci.call()
	vis := ci.visFor(low, v.provider)
	big := ci.bigText()
	p := newPipeText()
	p.pipeStored(c, sess.Info, big, ci.vis.textField)

	p.head(2, "model-visible text")
	p.note(visibleNote(c, vis, low))
	off := p.textOrFile("visible text", vis.Text, big)
	if t := vis.Truncation; t != nil {
		for _, m := range t.Markers {
			start, ok := p.clip.at(m.Start)
			end, ok2 := p.clip.at(m.End - 1)
			if ok && ok2 {
				p.marks = append(p.marks, model.Span{Start: off + start, End: off + end + 1})
			}
		}
	}

	rv, texts := vis.Result, map[string]func(func(string) error) error(nil)
	if big != nil {
		rv.Text, texts = hugeToken, map[string]func(func(string) error) error{hugeToken: big.writeText}
	}
	p.pipeBound(vis.Truncation, vis.Text, ci.visibleSize(vis))

	p.head(4, "ToolResultValue")
	p.note(valueNote(c, vis))
	var w clipWriter // a large value is never held whole
	if render.WriteIndentStreamed(&w, resultValue(rv), texts) == nil {
		p.bodyOf(&w)
	}

	p.head(5, "wire · "+v.provider.Label()+" · "+v.asSentFor(ci, sess, v.provider)+loweringWord(low))
	switch {
	case step == 0:
		p.note("not sent: the session ended before another request was made")
	case !ready:
		p.note(fmt.Sprintf("rendering the request of step %d…", step))
	case res.err != nil:
		p.note("render error: " + res.err.Error())
	case !res.rendered:
		p.note(v.provider.Label() + " is not available (its renderer returned nothing)")
	default:
		e := res.excerpts[c.CallID]
		if !e.resultOK {
			p.note(fmt.Sprintf("%s (request of step %d)", notPlaced(e), step))
			break
		}
		p.note(wireNote(v.provider, vis, c, low, e.media))
		p.writeLine(fmt.Sprintf("request of step %d:", step))
		p.bodyPieces(e.result)
	}

	head := []string{v.providerLabel(ci, sess, low, step)}
	return p, head
}

func loweringWord(low model.Lowering) string {
	if low == "" {
		return ""
	}
	return " · lowering " + string(low)
}

// pipeLineStyle styles the heading and note lines of the Pipeline pane.
func pipeLineStyle(st *Styles, heads, notes map[int]bool) func(int) (lipgloss.Style, bool) {
	return func(i int) (lipgloss.Style, bool) {
		switch {
		case heads[i]:
			return st.Header, true
		case notes[i]:
			return st.BadgeWarn, true
		}
		return lipgloss.Style{}, false
	}
}

// crossCompare fills Compare with the selected call beside the first call
// of the same tool in the other pipeline's session (v.other): each side is
// the model-visible text, then the result on the current provider's wire
// under that session's lowering.
func (v *sessionView) crossCompare(r callRow, conv convSource) {
	const p = paneCompare
	ci := r.info()
	o := v.other
	var oi *callInfo
	for i := range o.calls {
		if o.calls[i].row.kind.tool == ci.row.kind.tool {
			oi = &o.calls[i]
			break
		}
	}
	type side struct {
		ci   *callInfo
		data *sessionData
		sess *model.Session
	}
	sides := []side{{ci, r.data, r.data.sess}}
	if oi != nil {
		sides = append(sides, side{oi, o, o.sess})
	}
	var texts [2]string
	allReady := true
	for i, sd := range sides {
		low := render.SessionLowering(sd.sess.Info, v.a.lowering)
		vis := sd.ci.visFor(low, v.provider)
		var b strings.Builder
		fmt.Fprintf(&b, "model sees (%s):\n", vis.Result.Type)
		text := vis.Text
		if fl := sd.ci.bigText(); fl != nil {
			text = clipped(fl.pieces(), "Model sees (2) shows it whole")
		}
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\nwire · %s · %s%s:\n", v.provider.Label(), v.asSentFor(sd.ci, sd.sess, v.provider), loweringWord(low))
		step := requestStep(sd.ci, sd.sess)
		if step == 0 {
			b.WriteString("(not sent: no later request)\n")
			texts[i] = b.String()
			continue
		}
		k := convKey{sess: sd.sess, data: sd.data, p: v.provider, step: step, low: low, inputs: v.a.inputs}
		res, ready := conv(k)
		switch {
		case !ready:
			v.need = append(v.need, k)
			allReady = false
			b.WriteString("(rendering…)\n")
		case res.err != nil:
			b.WriteString("(render error: " + res.err.Error() + ")\n")
		case !res.rendered:
			b.WriteString("(not available for this provider)\n")
		default:
			if e := res.excerpts[sd.ci.call().CallID]; e.resultOK {
				b.WriteString(clipped(e.result, "Pipeline (6) shows its ends, Wire (3) all of it"))
			} else {
				b.WriteString("(" + notPlaced(e) + ")\n")
			}
		}
		texts[i] = b.String()
	}
	key := fmt.Sprintf("x/%s/%p/%s/%s/%s/%t", rowKey(r), o, v.provider, v.a.lowering, v.a.inputs, allReady)
	if v.loaded[p] == key {
		return
	}
	v.cmp.SetContent(texts[0], texts[1], false)
	st := v.st
	head := st.Badge.Render(pipelineName(r.data.sess.Info)+" "+inertString(ci.call().Tool, st.Inert)) + st.Muted.Render(" (left) vs ")
	second := st.Muted.Render(fmt.Sprintf("%d of %d rows differ (≠) · V: back to providers", v.cmp.differ, len(v.cmp.rows)))
	if oi != nil {
		head += st.Badge.Render(pipelineName(o.sess.Info)+" "+inertString(oi.call().Tool, st.Inert)) +
			st.Muted.Render(" (right) in "+inertString(firstNonEmpty(o.sess.Info.Title, o.sess.Info.ID), st.Inert))
	} else {
		head += st.BadgeWarn.Render("no " + inertString(ci.call().Tool, st.Inert) + " call in " + pipelineName(o.sess.Info) + " session " + inertString(firstNonEmpty(o.sess.Info.Title, o.sess.Info.ID), st.Inert))
	}
	v.headers[p] = []string{head, second}
	v.raw[p], v.loaded[p] = texts[0]+"\n"+texts[1], key
}

// pipelineName is "v1" or "v2" for opencode sessions, else the agent.
func pipelineName(in model.SessionInfo) string {
	if in.Pipeline != "" {
		return string(in.Pipeline)
	}
	return agentName(in.Agent)
}

// otherMsg is the other pipeline's session that V found.
type otherMsg struct {
	data *sessionData
	tool string
	err  error
}
