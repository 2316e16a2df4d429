package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"correx/model"
)

// callRow is one row of the call list: a call of the viewed session, or of
// a subagent session nested under the task call that made it.
type callRow struct {
	data  *sessionData
	idx   int32 // index into data.calls
	depth int32
}

func (r callRow) info() *callInfo { return &r.data.calls[r.idx] }

// child is the loaded subagent session of a task call, if any.
func (r callRow) child() *sessionData {
	if cid := r.info().row.kind.child; cid != "" {
		return r.data.children[cid]
	}
	return nil
}

// buildRows lists a session's calls with each loaded subagent's calls
// nested under its task call.
func buildRows(d *sessionData, depth int) []callRow {
	// room for the calls to come of a lazy session still being read
	return appendRows(make([]callRow, 0, cap(d.calls)), d, depth, 0)
}

// appendRows appends to rows those of d's calls from index from on.
func appendRows(rows []callRow, d *sessionData, depth, from int) []callRow {
	for i := from; i < len(d.calls); i++ {
		r := callRow{data: d, idx: int32(i), depth: int32(depth)}
		rows = append(rows, r)
		if child := r.child(); child != nil && depth < 4 {
			rows = appendRows(rows, child, depth+1, 0)
		}
	}
	return rows
}

// callList is the left pane: one row per tool call.
type callList struct {
	st            *Styles
	width, height int
	rows          []callRow
	sel, off      int
	focused       bool
}

func (l *callList) SetSize(w, h int) { l.width, l.height = w, h; l.scroll() }

func (l *callList) SetRows(rows []callRow) {
	l.rows = rows
	l.sel = clampInt(l.sel, 0, max(len(rows)-1, 0))
	l.scroll()
}

func (l *callList) Selected() (callRow, bool) {
	if len(l.rows) == 0 {
		return callRow{}, false
	}
	return l.rows[l.sel], true
}

func (l *callList) Move(d int) { l.Select(l.sel + d) }

func (l *callList) Select(i int) {
	l.sel = clampInt(i, 0, max(len(l.rows)-1, 0))
	l.scroll()
}

func (l *callList) scroll() {
	h := max(l.height, 1)
	if l.sel < l.off {
		l.off = l.sel
	}
	if l.sel >= l.off+h {
		l.off = l.sel - h + 1
	}
	l.off = clampInt(l.off, 0, max(len(l.rows)-h, 0))
}

// rowAt returns the row index at line y of the list, or -1.
func (l *callList) rowAt(y int) int {
	i := l.off + y
	if y < 0 || i >= len(l.rows) {
		return -1
	}
	return i
}

// search returns the next row (after the selected one, in direction d)
// whose text contains q, or -1.
func (l *callList) search(q string, d int, from int) int {
	q = asciiLower(q)
	n := len(l.rows)
	for k := 1; k <= n; k++ {
		i := ((from+d*k)%n + n) % n
		f := &l.rows[i].info().row
		if strings.Contains(asciiLower(f.kind.tool+" "+f.summary+" "+f.callID), q) {
			return i
		}
	}
	return -1
}

func statusGlyph(st *Styles, c *model.ToolCall) string { return statusMark(st, c.Status) }

func statusMark(st *Styles, s model.ToolStatus) string {
	switch s {
	case model.StatusCompleted:
		return st.StatusOK.Render("✓")
	case model.StatusError:
		return st.StatusErr.Render("✗")
	case model.StatusRunning:
		return st.StatusRunning.Render("●")
	}
	return st.StatusRunning.Render("○")
}

func (l *callList) row(i int) string {
	st := l.st
	r := l.rows[i]
	ci := r.info()
	c := &ci.row
	w := l.width
	indent := ""
	if r.depth > 0 {
		indent = strings.Repeat("  ", int(r.depth)-1) + st.SubBadge.Render("↳ ")
	}
	var badges []string
	if child := r.child(); child != nil {
		badges = append(badges, st.SubBadge.Render(fmt.Sprintf("⑂%d", len(child.calls))))
	}
	switch detected, flagged := ci.truncated(); {
	case detected:
		badges = append(badges, st.TruncBadge.Render("✂"))
	case flagged:
		badges = append(badges, st.Muted.Render("✂"))
	}
	if c.kind.status == model.StatusError || ci.errResult() {
		badges = append(badges, st.ErrBadge.Render("err"))
	}
	right := strings.Join(badges, " ")
	if d := durationText(c.dur); d != "" {
		if right != "" {
			right += " "
		}
		right += st.Duration.Render(fmt.Sprintf("%6s", d))
	}
	left := indent + statusMark(st, c.kind.status) + " " + st.Bold.Render(inertString(c.kind.tool, st.Inert)) + " " +
		st.Muted.Render(inertString(c.summary, st.Inert))
	rw := ansi.StringWidth(right)
	var s string
	if rw+8 > w {
		s = fit(left, w)
	} else {
		s = fit(left, w-rw-1) + " " + right
	}
	if i == l.sel {
		if l.focused {
			return st.Selected.Render(ansi.Strip(s))
		}
		return st.SelectedBlur.Render(ansi.Strip(s))
	}
	return s
}

func (l *callList) View() string {
	out := make([]string, 0, l.height)
	if len(l.rows) == 0 {
		out = append(out, fit(l.st.Muted.Render("no tool calls in this session"), l.width))
	}
	for k := 0; k < l.height && l.off+k < len(l.rows); k++ {
		out = append(out, l.row(l.off+k))
	}
	for len(out) < l.height {
		out = append(out, strings.Repeat(" ", l.width))
	}
	return strings.Join(out, "\n")
}
