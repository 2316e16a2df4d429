package tui

import (
	"encoding/json"
	"fmt"
	"strings"

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
func excerpts(conv render.Value, places render.Placements, ids []string, indent func(render.Value) ([]byte, error)) map[string]excerpt {
	out := map[string]excerpt{}
	items, isList := conv.([]render.Value)
	if !isList {
		return out
	}
	// each item is written once, as the one item of a list (the item's
	// text is the same in any list: "[\n  ITEM\n]"), so that a large
	// result is read and encoded once for the wire and the result excerpts
	item := map[int]string{}
	itemJSON := func(j int) (string, bool) {
		if s, ok := item[j]; ok {
			return s, true
		}
		b, err := indent([]render.Value{items[j]})
		if err != nil || len(b) < len("[\n  \n]") {
			return "", false
		}
		s := string(b[len("[\n  ") : len(b)-len("\n]")])
		item[j] = s
		return s, true
	}
	// the items' texts as pieces of a list: "[\n  A,\n  B\n]"
	list := func(idx []int) ([]string, bool) {
		parts := []string{"[\n  "}
		for k, j := range idx {
			if j >= len(items) {
				return nil, false
			}
			s, ok := itemJSON(j)
			if !ok {
				return nil, false
			}
			if k > 0 {
				parts = append(parts, ",\n  ")
			}
			parts = append(parts, s)
		}
		return append(parts, "\n]"), true
	}
	written := map[string]string{} // picked item indexes -> JSON
	write := func(idx []int) (string, bool) {
		key := fmt.Sprint(idx)
		if s, ok := written[key]; ok {
			return s, true
		}
		parts, ok := list(idx)
		if !ok {
			return "", false
		}
		// joined at its size: the excerpt of a huge result is one copy,
		// and its items are read from it from now on (the result
		// excerpt's pieces)
		s := strings.Join(parts, "")
		off := 0
		for k, p := range parts {
			if k%2 == 1 {
				item[idx[k/2]] = s[off : off+len(p)]
			}
			off += len(p)
		}
		written[key] = s
		return s, true
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
