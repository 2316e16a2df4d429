package tui

import (
	"encoding/json"
	"regexp"
	"strings"

	"correx/render"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

var unsafeIDChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// wireExcerpt picks, from a conversation, the top-level messages (or items)
// that carry a tool call id: the assistant message with the call and the
// message(s) with its result. It returns them as indented JSON, with the
// 1-based positions of the first and last picked item and the item count.
func wireExcerpt(conv render.Value, callID string) (text string, first, last, total int, ok bool) {
	return wireExcerptWith(conv, callID, render.MarshalIndent)
}

// wireExcerptWith is wireExcerpt writing the picked items with indent.
func wireExcerptWith(conv render.Value, callID string, indent func(render.Value) ([]byte, error)) (text string, first, last, total int, ok bool) {
	items, isList := conv.([]render.Value)
	if !isList || callID == "" {
		return "", 0, 0, 0, false
	}
	needles := []string{jsonQuote(callID)}
	if s := unsafeIDChars.ReplaceAllString(callID, "_"); s != callID {
		needles = append(needles, jsonQuote(s))
	}
	var picked []render.Value
	for i, it := range items {
		b, err := render.Marshal(it)
		if err != nil {
			continue
		}
		for _, n := range needles {
			if strings.Contains(string(b), n) {
				picked = append(picked, it)
				if first == 0 {
					first = i + 1
				}
				last = i + 1
				break
			}
		}
	}
	if len(picked) == 0 {
		return "", 0, 0, len(items), false
	}
	b, err := indent(picked)
	if err != nil {
		return "", 0, 0, len(items), false
	}
	return string(b), first, last, len(items), true
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
