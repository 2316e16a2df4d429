package cline

import (
	"unicode/utf16"

	"correx/formatters"
	"correx/model"
)

// Cline's two cuts. The send-time cut (sent.go) is made on the way to the
// model and the store keeps the whole result, so correx knows exactly what
// the model missed. run_commands' own cut (the SDK's c4, 48,000
// characters) is made before the result is stored: the middle is gone, and
// its note says how long the output was, in UTF-16 units, not bytes. With
// the default limit the send-time cut always removes that note again.
const (
	KindSent   model.TruncationKind = "cline-sent"
	KindOutput model.TruncationKind = "cline-output"
)

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{
		Agent:  Agent,
		Detect: detect,
		Record: record,
		Kinds: map[model.TruncationKind]formatters.KindShape{
			KindSent: {Head: true, Tail: true, CharCut: true, WhenSent: true,
				Legend: "Cline cut a result over 8,000 characters when it sent it; the store keeps it whole"},
			KindOutput: {Head: true, Tail: true, CharCut: true,
				Legend:     "Cline's run_commands kept 48,000 characters of a longer output; no spill",
				UnknownWhy: "Cline keeps no copy of the middle it cut (no spill); its note counts characters, not bytes"},
		},
	})
}

// The notes of the two cuts, raw or as inside a JSON string; each regexp
// runs only on a text holding its literal (every tool output of every
// agent is looked at).
var (
	sentCutNote   = formatters.NewMarker(`(?:\n\n|\\n\\n)\.\.\.\[truncated \d+ chars\]\.\.\.(?:\n\n|\\n\\n)`, "...[truncated ")
	storedCutNote = formatters.NewMarker(`(?:\n|\\n)\[\.\.\. output truncated: (\d+) chars total\. Refine the command \(grep, head, tail\) to view the elided middle \.\.\.\](?:\n|\\n)`, "[... output truncated: ")
)

// detect finds Cline's cut notes in a model-visible text: the send-time
// cut's, else run_commands' stored cut's (shown only when Cline ran with a
// raised send-time limit).
func detect(_, text string) *model.Truncation {
	for _, k := range []struct {
		kind model.TruncationKind
		note formatters.Marker
	}{{KindSent, sentCutNote}, {KindOutput, storedCutNote}} {
		if ms := k.note.FindAllStringIndex(text, -1); ms != nil {
			t := &model.Truncation{Kind: k.kind}
			for _, m := range ms {
				t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
			}
			return t
		}
	}
	return nil
}

// record completes a send-time cut from the call's stored result when the
// text is exactly that result after the cut (so the call is Cline's, and
// its stored result the whole text the cut strings came from).
func record(call *model.ToolCall, t *model.Truncation) {
	if t.Kind != KindSent || call.Sent == nil || call.Output == "" {
		return
	}
	if f := sentCutFacts(call.Output, formatters.ResultText(*call.Sent)); f != nil {
		*t = *f
	}
}

// sentCutFacts is the send-time cut of stored as text shows it, or nil
// when text is not stored after the cut. The full output is the cut
// strings as stored, one after the other; everything else in text (the
// JSON around them, the entries under the limit) is added.
func sentCutFacts(stored, text string) *model.Truncation {
	if v, err := parseJS([]byte(stored)); err == nil && v.kind == jsArray {
		var w jsWriter
		w.value(sentContent(v, maxToolResultChars))
		if w.b.String() == text && len(w.cuts) > 0 {
			return cutFacts(w.cuts, text, true)
		}
	}
	s := utf16.Encode([]rune(stored))
	out, keep, marker := sendCut(s, maxToolResultChars)
	if marker == 0 || utf8Of(out) != text {
		return nil
	}
	head := len(utf8Of(out[:keep]))
	m := len(utf8Of(out[keep : keep+marker]))
	c := cutSpan{info: &cutInfo{orig: s, keep: keep, marker: marker}}
	c.head = model.Span{Start: 0, End: head}
	c.marker = model.Span{Start: head, End: head + m}
	c.tail = model.Span{Start: head + m, End: len(text)}
	return cutFacts([]cutSpan{c}, text, false)
}

// cutFacts builds the truncation of the cuts found in text (inJSON: the
// pieces are inside JSON strings).
func cutFacts(cuts []cutSpan, text string, inJSON bool) *model.Truncation {
	t := &model.Truncation{Kind: KindSent, Seen: []model.SeenRange{}, Added: []model.AddedPiece{}}
	lines, size, at := 0, 0, 0
	stored := false
	added := func(end int) {
		if end > at {
			t.Added = append(t.Added, model.AddedPiece{Span: model.Span{Start: at, End: end}, What: "Cline's JSON around the cut results"})
		}
	}
	for _, c := range cuts {
		orig := c.info.orig
		full := utf8Of(orig)
		stored = stored || storedCutNote.FindStringIndex(full) != nil
		n, k := formatters.CountLines(full), c.info.keep
		head, tail := utf8Of(orig[:k]), utf8Of(orig[len(orig)-k:])
		added(c.head.Start)
		if c.head.End > c.head.Start {
			hl := max(formatters.CountLines(head), 1)
			t.Seen = append(t.Seen, model.SeenRange{
				Text: c.head, JSONString: inJSON,
				Lines:       &model.LineRange{First: lines + 1, Last: lines + hl},
				Bytes:       &model.Span{Start: size, End: size + len(head)},
				PartialLast: orig[k-1] != '\n',
			})
		}
		t.Markers = append(t.Markers, c.marker)
		if c.tail.End > c.tail.Start {
			tl := max(formatters.CountLines(tail), 1)
			t.Seen = append(t.Seen, model.SeenRange{
				Text: c.tail, JSONString: inJSON,
				Lines:        &model.LineRange{First: lines + n - tl + 1, Last: lines + n},
				Bytes:        &model.Span{Start: size + len(full) - len(tail), End: size + len(full)},
				PartialFirst: orig[len(orig)-k-1] != '\n',
			})
		}
		at = c.tail.End
		lines, size = lines+n, size+len(full)
	}
	added(len(text))
	if stored {
		t.FullUnknown = "Cline stored only part of the output (run_commands cut it to 48,000 characters before storing it; no spill): the seen lines and bytes count the stored text"
		return t
	}
	t.FullLines, t.FullBytes = &lines, &size
	return t
}
