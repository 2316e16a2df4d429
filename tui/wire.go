package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unsafe"

	"github.com/aymanbagabas/go-udiff/lcs"

	"correx/model"
	"correx/render"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// excerpt is what the Wire, Compare and Pipeline panes show of one call of
// a conversation, written when the conversation is rendered (in its Cmd),
// from where render placed the call (render.Placement).
type excerpt struct {
	// wire: the top-level messages (or items) that carry the call, its
	// result and the synthetic user message with its media, as indented
	// JSON, with their 1-based positions and the item count; wireFile
	// holds it instead of wire when it is larger than the panes hold in
	// memory (a huge result's): Wire shows it from the file
	wire     string
	wireFile *fileLines
	items    string // "22, 23, 27"
	total    int
	wireOK   bool
	// result: the items that carry the call's result (not the call
	// itself), and the synthetic user message with its media when there is
	// one (media), as the pieces of their JSON (those of items in wire are
	// its pieces too: a large result is held once, in memory or a file)
	result          []xpiece
	media, resultOK bool
	// unsent: the call is in the conversation and no result was sent for
	// it (a v2 call that never settled)
	unsent bool
}

// xpiece is a piece of an excerpt's JSON: text, or n bytes at off of file.
type xpiece struct {
	text   string
	file   *fileLines
	off, n int64
}

func textPieces(ss ...string) []xpiece {
	ps := make([]xpiece, len(ss))
	for i, s := range ss {
		ps[i] = xpiece{text: s}
	}
	return ps
}

// writePieces writes the pieces, those in a file read a buffer at a time.
func writePieces(w io.Writer, ps []xpiece) error {
	for _, p := range ps {
		var err error
		if p.file == nil {
			_, err = io.WriteString(w, p.text)
		} else {
			_, err = io.Copy(w, io.NewSectionReader(p.file.f, p.off, p.n))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// texts are the pieces' texts when none is in a file.
func texts(ps []xpiece) ([]string, bool) {
	ts := make([]string, len(ps))
	for i, p := range ps {
		if p.file != nil {
			return nil, false
		}
		ts[i] = p.text
	}
	return ts, true
}

// wirePieces is the excerpt's wire as pieces.
func (e excerpt) wirePieces() []xpiece {
	if e.wireFile != nil {
		return e.wireFile.pieces()
	}
	return textPieces(e.wire)
}

// clipped is the pieces' text, whole when at most clipBytes, else its
// whole lines within clipKeep bytes of each end around a line that says
// what is left out and where to see it whole.
func clipped(ps []xpiece, whole string) string {
	if ts, ok := texts(ps); ok && piecesLen(ps) <= clipBytes {
		return strings.Join(ts, "")
	}
	var w clipWriter
	if err := writePieces(&w, ps); err != nil {
		return "(could not read the excerpt back: " + err.Error() + ")\n"
	}
	if w.ring == nil {
		return string(w.all)
	}
	head, tail := clipLines(string(w.head), string(w.ring[w.at:])+string(w.ring[:w.at]))
	return head + clipNote(w.total-len(head)-len(tail), w.total, whole) + tail
}

// piecesLen is the pieces' length in bytes.
func piecesLen(ps []xpiece) int64 {
	n := int64(0)
	for _, p := range ps {
		if p.file == nil {
			n += int64(len(p.text))
		} else {
			n += p.n
		}
	}
	return n
}

// excerpts writes the excerpts of the calls ids from conv at their
// places, each distinct set of items once, with indent; a set's JSON of
// more than maxMem bytes stays in a spool file, which spools returns.
// conv is the conversation's items from the one after before on (the last
// window of one lowered a window at a time, render.Windowed).
func excerpts(conv render.Value, before int, places render.Placements, ids []string, indent func(io.Writer, render.Value) error, maxMem int64) (out map[string]excerpt, spools []*fileLines) {
	out = map[string]excerpt{}
	items, isList := conv.([]render.Value)
	if !isList {
		return out, nil
	}
	// each set of items is written once, as a list: "[\n  A,\n  B\n]",
	// each item's text the same in any list, and its place in the list
	// noted as it is written, so that a large result is written and held
	// once (in memory or a file) for the wire and the result excerpts
	item := map[int]xpiece{}
	type list struct {
		text string
		file *fileLines
	}
	written := map[string]list{} // picked item indexes -> JSON
	write := func(idx []int) (list, bool) {
		key := fmt.Sprint(idx)
		if l, ok := written[key]; ok {
			return l, true
		}
		for _, j := range idx {
			if j >= len(items) {
				return list{}, false
			}
		}
		w := &spillWriter{}
		defer w.close()
		spans := make([][2]int64, len(idx))
		w.WriteString("[")
		for k, j := range idx {
			if k > 0 {
				w.WriteString(",")
			}
			w.WriteString("\n  ")
			spans[k][0] = w.n
			if err := indent(nested{w}, items[j]); err != nil {
				return list{}, false
			}
			spans[k][1] = w.n
		}
		if _, err := w.WriteString("\n]"); err != nil {
			return list{}, false
		}
		var l list
		var err error
		if l.text, l.file, err = w.finish(maxMem); err != nil {
			return list{}, false
		}
		for k, j := range idx {
			if l.file != nil {
				item[j] = xpiece{file: l.file, off: spans[k][0], n: spans[k][1] - spans[k][0]}
				continue
			}
			item[j] = xpiece{text: l.text[spans[k][0]:spans[k][1]]}
		}
		if l.file != nil {
			spools = append(spools, l.file)
		}
		written[key] = l
		return l, true
	}
	// the items' texts as pieces of a list: "[\n  A,\n  B\n]"
	pieces := func(idx []int) ([]xpiece, bool) {
		ps := textPieces("[\n  ")
		for k, j := range idx {
			it, ok := item[j]
			if !ok {
				if _, ok = write([]int{j}); !ok {
					return nil, false
				}
				it = item[j]
			}
			if k > 0 {
				ps = append(ps, xpiece{text: ",\n  "})
			}
			ps = append(ps, it)
		}
		return append(ps, xpiece{text: "\n]"}), true
	}
	for _, id := range ids {
		pl := places[id]
		if pl == nil {
			continue
		}
		e := excerpt{total: before + len(items), unsent: pl.Call.Item >= 0 && len(pl.Results) == 0}
		if idx := pl.Items(); len(idx) > 0 {
			var l list
			if l, e.wireOK = write(idx); e.wireOK {
				e.wire, e.wireFile, e.items = l.text, l.file, positions(idx, before)
			}
		}
		if idx := pl.ResultItems(); len(pl.Results) > 0 {
			e.result, e.resultOK = pieces(idx)
			e.media = e.resultOK && len(pl.Media) > 0
		}
		out[id] = e
	}
	return out, spools
}

// nested writes an item of a top-level list: the item written alone, each
// line after its first indented one level more ("  "), as WriteIndent
// writes it in the list (a JSON text has no newline but between tokens).
type nested struct{ w *spillWriter }

func (n nested) Write(p []byte) (int, error) {
	return n.WriteString(unsafe.String(unsafe.SliceData(p), len(p)))
}

func (n nested) WriteString(s string) (int, error) {
	total := len(s)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			_, err := n.w.WriteString(s)
			return total, err
		}
		if _, err := n.w.WriteString(s[:i+1]); err != nil {
			return 0, err
		}
		if _, err := n.w.WriteString("  "); err != nil {
			return 0, err
		}
		s = s[i+1:]
	}
}

// exactText is what write writes, held once at its size: past
// exactMemBytes it goes to a spool file and is read back (a buffer grown
// as it is written held up to twice a large result's JSON, and a copy of
// it a third time).
func exactText(write func(io.Writer) error) (string, error) {
	w := &spillWriter{}
	defer w.close()
	if err := write(w); err != nil {
		return "", err
	}
	s, _, err := w.finish(math.MaxInt64)
	return s, err
}

// exactMemBytes is the most exactText and excerpts hold while writing;
// tests lower it.
var exactMemBytes = 1 << 20

// spillWriter holds what is written in memory up to exactMemBytes, and
// from then on writes it all to a spool file.
type spillWriter struct {
	mem  []byte
	f    *os.File
	buf  *bufio.Writer
	n    int64
	kept bool // finish gave the file away
}

// finish is what was written: in memory, or read back from the spool
// file when at most maxMem bytes, else the file itself, indexed by line.
func (w *spillWriter) finish(maxMem int64) (string, *fileLines, error) {
	if w.f == nil {
		return string(w.mem), nil, nil
	}
	if err := w.buf.Flush(); err != nil {
		return "", nil, err
	}
	if w.n > maxMem {
		fl, err := spoolLines(w.f, w.n)
		w.kept = err == nil
		return "", fl, err
	}
	b := make([]byte, w.n)
	if _, err := w.f.ReadAt(b, 0); err != nil {
		return "", nil, err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil, nil
}

func (w *spillWriter) Write(p []byte) (int, error) {
	return w.WriteString(unsafe.String(unsafe.SliceData(p), len(p)))
}

// WriteString writes s without a copy of it (the lowering writes a large
// text as strings).
func (w *spillWriter) WriteString(s string) (int, error) {
	w.n += int64(len(s))
	if n := len(w.mem) + len(s); w.f == nil && n <= exactMemBytes {
		if n > cap(w.mem) { // doubled: append grows a large slice by a quarter, copying it each time
			w.mem = append(make([]byte, 0, min(max(2*cap(w.mem), n, 512), exactMemBytes)), w.mem...)
		}
		w.mem = append(w.mem, s...)
		return len(s), nil
	}
	if w.f == nil {
		f, err := createSpool()
		if err != nil {
			return 0, err
		}
		w.f, w.buf = f, bufio.NewWriterSize(f, 64<<10)
		if _, err := w.buf.Write(w.mem); err != nil {
			return 0, err
		}
		w.mem = nil
	}
	return w.buf.WriteString(s)
}

func (w *spillWriter) close() {
	if w.f != nil && !w.kept {
		w.f.Close()
		os.Remove(w.f.Name())
	}
}

// positions are item indexes 1-based, "3–5" for a run, "3, 5" else.
func positions(idx []int, before int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", before+idx[i]+1, before+idx[j]+1))
		} else {
			parts = append(parts, fmt.Sprint(before+idx[i]+1))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// stepCallIDs are the ids of the calls whose results the request of step
// carries: those of the step before (requestStep's inverse).
func stepCallIDs(s *model.Session, step int) []string {
	steps := s.AssistantSteps()
	if step < 2 || step-2 >= len(steps) {
		return nil
	}
	var ids []string
	for _, pt := range s.Messages[steps[step-2]].Parts {
		if pt.Tool != nil && pt.Tool.CallID != "" {
			ids = append(ids, pt.Tool.CallID)
		}
	}
	return ids
}

func jsonQuote(s string) string {
	b, _ := render.Marshal(s)
	return string(b)
}

// diffRow is one row of a side-by-side comparison: a line of the left text,
// of the right, or of both (same).
type diffRow struct {
	left, right string
	hasL, hasR  bool
	same        bool
}

// diffLines aligns two texts line by line with go-udiff's line diff
// (which stays fast on texts of any length).
func diffLines(a, b []string) []diffRow {
	var rows []diffRow
	same := func(i, j int) {
		rows = append(rows, diffRow{left: a[i], right: b[j], hasL: true, hasR: true, same: true})
	}
	i, j := 0, 0
	for _, d := range lcs.DiffLines(a, b) {
		for ; i < d.Start; i, j = i+1, j+1 {
			same(i, j)
		}
		// a changed region: its old and new lines side by side, the
		// longer side's rest alone
		for k := 0; k < max(d.End-d.Start, d.ReplEnd-d.ReplStart); k++ {
			r := diffRow{}
			if d.Start+k < d.End {
				r.left, r.hasL = a[d.Start+k], true
			}
			if d.ReplStart+k < d.ReplEnd {
				r.right, r.hasR = b[d.ReplStart+k], true
			}
			r.same = r.hasL && r.hasR && r.left == r.right
			rows = append(rows, r)
		}
		i, j = d.End, d.ReplEnd
	}
	for ; i < len(a) && j < len(b); i, j = i+1, j+1 {
		same(i, j)
	}
	return rows
}
