package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"correx/model"
	"correx/render"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

var unsafeIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// excerpt is what the Wire, Compare and Pipeline panes show of one call of
// a conversation, written when the conversation is rendered (in its Cmd).
type excerpt struct {
	// wire: the top-level messages (or items) that carry the call id, the
	// assistant message with the call and the message(s) with its result,
	// as indented JSON, with the 1-based positions of the first and last
	// and the item count
	wire               string
	first, last, total int
	wireOK             bool
	// result: the items that carry the call's result (not the call
	// itself), and the synthetic user message with its media when there is
	// one (media)
	result          string
	media, resultOK bool
}

// excerpts writes the excerpts of the calls ids from conv, each distinct
// set of items once, with indent.
func excerpts(conv render.Value, ids []string, indent func(render.Value) ([]byte, error)) map[string]excerpt {
	out := map[string]excerpt{}
	items, isList := conv.([]render.Value)
	if !isList {
		return out
	}
	needles := map[string][]string{}
	for _, id := range ids {
		if id == "" {
			continue
		}
		needles[id] = []string{jsonQuote(id)}
		if s := unsafeIDChars.ReplaceAllString(id, "_"); s != id {
			needles[id] = append(needles[id], jsonQuote(s))
		}
	}
	wire, result := map[string][]int{}, map[string][]int{}
	for i, it := range items {
		b, err := render.Marshal(it)
		if err != nil {
			continue
		}
		for id, ns := range needles {
			for _, n := range ns {
				if strings.Contains(string(b), n) {
					wire[id] = append(wire[id], i)
					if !callSide(it) {
						result[id] = append(result[id], i)
					}
					break
				}
			}
		}
	}
	written := map[string]string{} // picked item indexes -> JSON
	write := func(idx []int) (string, bool) {
		key := fmt.Sprint(idx)
		if s, ok := written[key]; ok {
			return s, true
		}
		picked := make([]render.Value, len(idx))
		for i, j := range idx {
			picked[i] = items[j]
		}
		b, err := indent(picked)
		if err != nil {
			return "", false
		}
		written[key] = string(b)
		return string(b), true
	}
	for id := range needles {
		e := excerpt{total: len(items)}
		if idx := wire[id]; len(idx) > 0 {
			if e.wire, e.wireOK = write(idx); e.wireOK {
				e.first, e.last = idx[0]+1, idx[len(idx)-1]+1
			}
		}
		if idx := result[id]; len(idx) > 0 {
			// the media of a step's results follow its tool messages
			for j := idx[len(idx)-1] + 1; j < len(items); j++ {
				if role, _, _ := itemHead(items[j]); role == "tool" {
					continue
				}
				if mediaMessage(items[j]) {
					idx = append(idx[:len(idx):len(idx)], j)
					e.media = true
				}
				break
			}
			e.result, e.resultOK = write(idx)
			if !e.resultOK {
				e.media = false
			}
		}
		out[id] = e
	}
	return out
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

// diffLines aligns two texts line by line (longest common subsequence;
// texts too long for that are aligned by position).
func diffLines(a, b []string) []diffRow {
	n, m := len(a), len(b)
	if n*m > 4_000_000 {
		var rows []diffRow
		for i := 0; i < max(n, m); i++ {
			r := diffRow{}
			if i < n {
				r.left, r.hasL = a[i], true
			}
			if i < m {
				r.right, r.hasR = b[i], true
			}
			r.same = r.hasL && r.hasR && r.left == r.right
			rows = append(rows, r)
		}
		return rows
	}
	// lcs[i][j] = LCS length of a[i:], b[j:]
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var rows []diffRow
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			rows = append(rows, diffRow{left: a[i], right: b[j], hasL: true, hasR: true, same: true})
			i++
			j++
		case i < n && j < m && lcs[i][j] == lcs[i+1][j+1]:
			// both lines changed: show them side by side
			rows = append(rows, diffRow{left: a[i], right: b[j], hasL: true, hasR: true})
			i++
			j++
		case j < m && (i >= n || lcs[i][j+1] >= lcs[i+1][j]):
			rows = append(rows, diffRow{right: b[j], hasR: true})
			j++
		default:
			rows = append(rows, diffRow{left: a[i], hasL: true})
			i++
		}
	}
	return rows
}
