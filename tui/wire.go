package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"

	"github.com/aymanbagabas/go-udiff/lcs"

	"correx/internal/jsonskim"
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
	// JSON, with their 1-based positions and the item count
	wire   string
	items  string // "22, 23, 27"
	total  int
	wireOK bool
	// result: the items that carry the call's result (not the call
	// itself), and the synthetic user message with its media when there is
	// one (media), as the pieces of their JSON (those of items in wire are
	// its substrings: a large result is held once)
	result          []string
	media, resultOK bool
	// unsent: the call is in the conversation and no result was sent for
	// it (a v2 call that never settled)
	unsent bool
}

// excerpts writes the excerpts of the calls ids from conv at their
// places, each distinct set of items once, with indent.
func excerpts(conv render.Value, places render.Placements, ids []string, indent func(io.Writer, render.Value) error) map[string]excerpt {
	out := map[string]excerpt{}
	items, isList := conv.([]render.Value)
	if !isList {
		return out
	}
	// each set of items is written once, as a list: "[\n  A,\n  B\n]",
	// each item's text the same in any list; the items' texts are cut
	// from it, so that a large result is written and held once for the
	// wire and the result excerpts
	item := map[int]string{}
	written := map[string]string{} // picked item indexes -> JSON
	write := func(idx []int) (string, bool) {
		key := fmt.Sprint(idx)
		if s, ok := written[key]; ok {
			return s, true
		}
		vs := make([]render.Value, len(idx))
		for k, j := range idx {
			if j >= len(items) {
				return "", false
			}
			vs[k] = items[j]
		}
		s, err := exactText(func(w io.Writer) error { return indent(w, vs) })
		if err != nil {
			return "", false
		}
		b, k := unsafe.Slice(unsafe.StringData(s), len(s)), 0
		jsonskim.Elements(b, func(val []byte) bool {
			if at, _ := jsonskim.Within(b, val); k < len(idx) {
				item[idx[k]] = s[at : at+len(val)]
			}
			k++
			return true
		})
		if k != len(idx) {
			return "", false
		}
		written[key] = s
		return s, true
	}
	// the items' texts as pieces of a list: "[\n  A,\n  B\n]"
	list := func(idx []int) ([]string, bool) {
		parts := []string{"[\n  "}
		for k, j := range idx {
			s, ok := item[j]
			if !ok {
				if _, ok = write([]int{j}); !ok {
					return nil, false
				}
				s = item[j]
			}
			if k > 0 {
				parts = append(parts, ",\n  ")
			}
			parts = append(parts, s)
		}
		return append(parts, "\n]"), true
	}
	for _, id := range ids {
		pl := places[id]
		if pl == nil {
			continue
		}
		e := excerpt{total: len(items), unsent: pl.Call.Item >= 0 && len(pl.Results) == 0}
		if idx := pl.Items(); len(idx) > 0 {
			if e.wire, e.wireOK = write(idx); e.wireOK {
				e.items = positions(idx)
			}
		}
		if idx := pl.ResultItems(); len(pl.Results) > 0 {
			e.result, e.resultOK = list(idx)
			e.media = e.resultOK && len(pl.Media) > 0
		}
		out[id] = e
	}
	return out
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
	if w.f == nil {
		return string(w.mem), nil
	}
	if err := w.buf.Flush(); err != nil {
		return "", err
	}
	b := make([]byte, w.n)
	if _, err := w.f.ReadAt(b, 0); err != nil {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// exactMemBytes is the most exactText holds while writing.
const exactMemBytes = 1 << 20

// spillWriter holds what is written in memory up to exactMemBytes, and
// from then on writes it all to a spool file.
type spillWriter struct {
	mem []byte
	f   *os.File
	buf *bufio.Writer
	n   int64
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
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
	}
}

// positions are item indexes 1-based, "3–5" for a run, "3, 5" else.
func positions(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", idx[i]+1, idx[j]+1))
		} else {
			parts = append(parts, fmt.Sprint(idx[i]+1))
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
