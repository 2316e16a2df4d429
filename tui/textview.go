package tui

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"

	"correx/formatters"
	"correx/model"
)

// textView shows a text exactly, line by line, with line numbers, inert
// control characters, marked byte spans (truncation markers), optional
// per-line syntax highlighting, search and scrolling. It never wraps: the
// text's lines are the screen's lines, scrolled sideways when long.
//
// Rendering is lazy: only the lines on screen are styled, and each styled
// line is cached until the content, the search or the styles change, so a
// huge output scrolls as fast as a small one.
type textView struct {
	st            *Styles
	width, height int

	text string
	// file, when set, holds the text instead of text and lines: only the
	// lines on screen are read from it.
	file   *fileLines
	starts []int // byte offset of each line in text (a line is not
	// held apart: an output of a million lines costs its offsets only)
	trail bool // text ends with a newline
	// syntax styles one line (chroma, one line at a time); nil for none.
	syntax func(line string) []span
	marks  []model.Span
	// seen marks lines in the gutter (the lines of a spill file the model
	// saw): '▌' whole, '▖' in part, 0 not at all.
	seen func(i int) rune
	// lineStyle, when set, gives a line's base style (diff rows).
	lineStyle func(i int) (lipgloss.Style, bool)
	numbers   bool
	// minDigits is the fewest digits a line number takes in the gutter:
	// a pane whose text grows after its first screen is shown (Pipeline's
	// wire stage, a request still being written) reserves them, so that
	// the screen does not shift right when the line count gains a digit
	minDigits int
	empty     string // shown when the text is empty

	// folds are line ranges drawn as one row each ("… N lines folded"),
	// at display only: the text, its marks, search and copy keep every
	// line. rows maps a display row to its line (-1-k: fold k); nil when
	// nothing is folded, rows and lines then being the same.
	folds    []lineRange
	unfolded bool
	rows     []int

	yOff, xOff int
	cache      map[int]string

	query   string
	matches []match
	cur     int
	// A search of a file runs in a Cmd (no IO in Update): pending is its
	// generation, 0 when none runs; stop cancels it; later is the Cmd of
	// a search SetFile started, until the caller takes it (PendingSearch).
	pending uint64
	stop    *atomic.Bool
	later   tea.Cmd
}

type match struct{ line, start, end int }

// lineRange is the lines [start, end).
type lineRange struct{ start, end int }

// SetFolds folds the ranges (set after the content, which clears them).
func (v *textView) SetFolds(fs []lineRange) {
	v.folds = fs
	v.layoutRows()
}

// HasFolds reports whether the content has ranges to fold.
func (v *textView) HasFolds() bool { return len(v.folds) > 0 }

// ToggleFolds unfolds every fold, or folds them again, keeping the top line.
func (v *textView) ToggleFolds() {
	top := v.rowLine(v.yOff)
	v.unfolded = !v.unfolded
	v.layoutRows()
	v.yOff = v.lineRow(top)
	v.clamp()
}

func (v *textView) layoutRows() {
	v.rows = nil
	if v.unfolded || len(v.folds) == 0 {
		return
	}
	k := 0
	for i := 0; i < v.count(); i++ {
		if k < len(v.folds) && i == v.folds[k].start {
			v.rows = append(v.rows, -1-k)
			i = v.folds[k].end - 1
			k++
			continue
		}
		v.rows = append(v.rows, i)
	}
}

func (v *textView) rowCount() int {
	if v.rows == nil {
		return v.count()
	}
	return len(v.rows)
}

// rowLine is the line drawn on row r (a fold's first line for a fold).
func (v *textView) rowLine(r int) int {
	if v.rows == nil || r >= len(v.rows) {
		return r
	}
	if l := v.rows[r]; l < 0 {
		return v.folds[-1-l].start
	}
	return v.rows[r]
}

// lineRow is the row line l is drawn on (its fold's, when folded).
func (v *textView) lineRow(l int) int {
	if v.rows == nil {
		return l
	}
	for r := range v.rows {
		if v.rowLine(r) > l {
			return max(r-1, 0)
		}
	}
	return max(len(v.rows)-1, 0)
}

// shownLines are the first and last lines on screen, counted from 1.
func (v *textView) shownLines() (first, last int) {
	end := min(v.yOff+v.height, v.rowCount()) - 1
	last = v.rowLine(end) + 1
	if v.rows != nil && v.rows[end] < 0 {
		last = v.folds[-1-v.rows[end]].end
	}
	return v.rowLine(v.yOff) + 1, last
}

// hidden reports whether line l is inside a fold.
func (v *textView) hidden(l int) bool {
	if v.rows == nil {
		return false
	}
	for _, f := range v.folds {
		if l >= f.start && l < f.end {
			return true
		}
	}
	return false
}

// maxMatches caps the matches of a search.
const maxMatches = 100000

// fileSearchMsg is the result of a search of a file-backed textView; the
// view whose file is fl and whose pending search is gen takes it
// (applySearch), any other ignores it.
type fileSearchMsg struct {
	fl      *fileLines
	gen     uint64
	q       string
	matches []match
	jump    bool
}

// maxLineBytes caps how much of one line is styled; the rest is counted.
const maxLineBytes = 32 << 10

func newTextView(st *Styles) textView {
	return textView{st: st, numbers: true, cache: map[int]string{}}
}

// SetContent replaces the text. Scroll position and search are kept when
// keep is set (the same content re-rendered), else reset.
func (v *textView) SetContent(text string, lex chroma.Lexer, marks []model.Span, keep bool) {
	v.SetContentSyntax(text, v.lexSyntax(lex), marks, keep)
}

// lexSyntax is the line styler of lex, nil for none.
func (v *textView) lexSyntax(lex chroma.Lexer) func(string) []span {
	if lex == nil {
		return nil
	}
	return func(line string) []span { return syntaxSpans(lex, line, 0, v.st) }
}

// SetContentSyntax is SetContent with a line styler of the caller's.
func (v *textView) SetContentSyntax(text string, syntax func(string) []span, marks []model.Span, keep bool) {
	v.text, v.syntax, v.marks, v.file = text, syntax, marks, nil
	v.folds, v.rows = nil, nil
	v.trail = strings.HasSuffix(text, "\n")
	v.starts = lineStarts(text)
	v.cache = map[int]string{}
	v.cancelSearch()
	if !keep {
		v.yOff, v.xOff = 0, 0
		v.query, v.matches, v.cur = "", nil, 0
	} else {
		v.search(v.query, false) // in memory: no Cmd
	}
	v.clamp()
}

// SetFile shows the text of a file, read a visible line at a time. With
// keep, the search is run again on the file in a Cmd that PendingSearch
// gives; until it is done the view has no match.
func (v *textView) SetFile(fl *fileLines, lex chroma.Lexer, keep bool) {
	v.SetFileSyntax(fl, v.lexSyntax(lex), keep)
}

// SetFileSyntax is SetFile with a line styler of the caller's.
func (v *textView) SetFileSyntax(fl *fileLines, syntax func(string) []span, keep bool) {
	y, x := v.yOff, v.xOff
	v.SetContentSyntax("", syntax, nil, keep)
	v.file = fl
	v.trail = fl != nil && fl.trail
	if keep {
		v.yOff, v.xOff = y, x
		v.later = v.search(v.query, false)
	}
	v.clamp()
}

// PendingSearch takes the Cmd of the search SetFile started (keep), nil
// when there is none. The caller must run it for the search to finish.
func (v *textView) PendingSearch() tea.Cmd {
	c := v.later
	v.later = nil
	return c
}

// cancelSearch stops the file search running for the view, if any.
func (v *textView) cancelSearch() {
	if v.stop != nil {
		v.stop.Store(true)
	}
	v.pending, v.stop, v.later = 0, nil, nil
}

// count is the number of lines.
func (v *textView) count() int {
	if v.file != nil {
		return v.file.starts.len()
	}
	return len(v.starts)
}

// line is line i of the text in memory (not a copy).
func (v *textView) line(i int) string {
	end := len(v.text)
	if i+1 < len(v.starts) {
		end = v.starts[i+1] - 1
	} else if v.trail {
		end--
	}
	return v.text[v.starts[i]:end]
}

// lineLen is the length in bytes of line i.
func (v *textView) lineLen(i int) int {
	if v.file != nil {
		return int(v.file.lineLen(i))
	}
	return len(v.line(i))
}

// linePrefix is at most the first n bytes of line i.
func (v *textView) linePrefix(i, n int) string {
	if v.file != nil {
		return v.file.prefix(i, n)
	}
	l := v.line(i)
	return l[:min(n, len(l))]
}

func (v *textView) lineStart(i int) int {
	if v.file != nil {
		return int(v.file.starts.at(i))
	}
	return v.starts[i]
}

// fileLines is a text in a file, indexed by line.
type fileLines struct {
	f      *os.File
	starts lineIndex // byte offset of each line
	size   int64
	trail  bool // the text ends with a newline
	spool  bool // a spool file of correx's, removed when closed
	// gen numbers the searches of the file, so that a view knows the
	// result of its latest one.
	gen atomic.Uint64
}

// writeText writes the file's text a piece of whole runes at a time (a
// rune cut at a piece's end starts the next), as a string writer of
// render's takes it.
func (fl *fileLines) writeText(write func(string) error) error {
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(fl.f, 0, fl.size)
	carry := 0
	for {
		n, err := r.Read(buf[carry:])
		n += carry
		cut := n
		if err == nil {
			cut = runeCut(buf[:n])
		}
		if cut > 0 {
			if werr := write(string(buf[:cut])); werr != nil {
				return werr
			}
		}
		carry = copy(buf, buf[cut:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// runeCut is where b ends after its last whole rune: before a last rune
// that is not whole (a UTF-8 start byte and fewer bytes than it needs).
func runeCut(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// pieces is the file's text as one excerpt piece.
func (fl *fileLines) pieces() []xpiece { return []xpiece{{file: fl, n: fl.size}} }

// textSize is how long the file's text is.
func (fl *fileLines) textSize() textSize {
	return textSize{lines: fl.starts.len(), bytes: fl.size, open: fl.size > 0 && !fl.trail}
}

// textSize is how long a text is: its lines, as formatters.CountLines
// counts them, and bytes; open when it does not end with a newline.
type textSize struct {
	lines int
	bytes int64
	open  bool
}

func sizeOf(text string) textSize {
	return textSize{lines: formatters.CountLines(text), bytes: int64(len(text)), open: text != "" && !strings.HasSuffix(text, "\n")}
}

// String is "12 lines · 4.1 KB".
func (t textSize) String() string {
	return fmt.Sprintf("%s%s · %s", commas(t.lines), plural(t.lines, " line", " lines"), humanBytes(int(t.bytes)))
}

func (fl *fileLines) lineLen(i int) int64 {
	end := fl.size
	if i+1 < fl.starts.len() {
		end = fl.starts.at(i+1) - 1
	} else if fl.trail {
		end--
	}
	return end - fl.starts.at(i)
}

func (fl *fileLines) prefix(i, n int) string {
	l := min(int64(n), fl.lineLen(i))
	if l <= 0 {
		return ""
	}
	b := make([]byte, l)
	k, _ := fl.f.ReadAt(b, fl.starts.at(i))
	return string(b[:k])
}

// Close closes the file, and removes a spool file in the background:
// Update closes the conversations it evicts, and an unlink took 2 ms of a
// key's 5 on this machine (what is not removed yet when the TUI ends is,
// by closeSpools).
func (fl *fileLines) Close() {
	fl.f.Close()
	if fl.spool {
		go fl.remove()
	}
}

// remove removes a spool file, once.
func (fl *fileLines) remove() {
	spools.Lock()
	open := spools.open[fl]
	delete(spools.open, fl)
	spools.Unlock()
	if open {
		os.Remove(fl.f.Name())
	}
}

// readAll reads the whole text.
func (fl *fileLines) readAll() (string, error) {
	b := make([]byte, fl.size)
	n, err := fl.f.ReadAt(b, 0)
	if err == io.EOF {
		err = nil
	}
	return string(b[:n]), err
}

// indexFile indexes the first limit bytes of an open file by line (it
// keeps f); cut is how many bytes follow them.
func indexFile(f *os.File, limit int64) (fl *fileLines, cut int64, err error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	lw := &lineIndexWriter{w: io.Discard, starts: linesFrom(0)}
	if _, err := io.Copy(lw, io.NewSectionReader(f, 0, min(st.Size(), limit))); err != nil {
		f.Close()
		return nil, 0, err
	}
	starts, trail := lw.lines()
	return &fileLines{f: f, starts: starts, size: lw.n, trail: trail}, st.Size() - lw.n, nil
}

// spoolLines indexes the first size bytes of spool file f by line, as a
// fileLines removed when closed.
func spoolLines(f *os.File, size int64) (*fileLines, error) {
	lw := &lineIndexWriter{w: io.Discard, starts: linesFrom(0)}
	if _, err := io.Copy(lw, io.NewSectionReader(f, 0, size)); err != nil {
		return nil, err
	}
	starts, trail := lw.lines()
	return newFileLines(f, starts, lw.n, trail), nil
}

// spools are the files of the fileLines not closed yet, all in one
// directory of the process's, removed with them when the TUI ends.
var spools = struct {
	sync.Mutex
	dir  string
	done bool
	open map[*fileLines]bool
}{open: map[*fileLines]bool{}}

// createSpool creates a spool file.
func createSpool() (*os.File, error) {
	spools.Lock()
	defer spools.Unlock()
	if spools.done {
		return nil, errors.New("the TUI has ended")
	}
	if spools.dir == "" {
		d, err := os.MkdirTemp("", "correx-spool-*")
		if err != nil {
			return nil, err
		}
		spools.dir = d
	}
	return os.CreateTemp(spools.dir, "conv-*.json")
}

func newFileLines(f *os.File, starts lineIndex, size int64, trail bool) *fileLines {
	fl := &fileLines{f: f, starts: starts, size: size, trail: trail, spool: true}
	spools.Lock()
	spools.open[fl] = true
	spools.Unlock()
	return fl
}

// closeSpools removes every spool file and their directory (when the TUI
// ends); a spool being written then is removed with the directory.
func closeSpools() {
	spools.Lock()
	var all []*fileLines
	for fl := range spools.open {
		all = append(all, fl)
	}
	dir := spools.dir
	spools.done, spools.dir = true, ""
	spools.Unlock()
	for _, fl := range all {
		fl.f.Close()
		fl.remove()
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// search finds q (already lowered when fold) in the file's lines,
// reading it a piece at a time, up to limit matches. It gives up, with
// ok false, as soon as stop (when not nil) is set.
func (fl *fileLines) search(q string, fold bool, limit int, stop *atomic.Bool) (out []match, ok bool) {
	r := bufio.NewReaderSize(io.NewSectionReader(fl.f, 0, fl.size), 1<<20)
	line, col := 0, 0 // line and column of the start of carry
	var carry []byte
	for {
		if stop != nil && stop.Load() {
			return nil, false
		}
		chunk, err := r.ReadSlice('\n')
		buf := append(carry, chunk...)
		scan := buf
		if fold {
			scan = []byte(asciiLower(string(buf)))
		}
		nl := len(scan) > 0 && scan[len(scan)-1] == '\n'
		for off := 0; ; {
			j := bytes.Index(scan[off:], []byte(q))
			if j < 0 {
				break
			}
			out = append(out, match{line, col + off + j, col + off + j + len(q)})
			off += j + len(q)
			if len(out) >= limit {
				return out, true
			}
		}
		switch {
		case nl:
			line, col, carry = line+1, 0, carry[:0]
		case err == bufio.ErrBufferFull:
			// keep the tail that a match may start in
			keep := min(len(q)-1, len(buf))
			col += len(buf) - keep
			carry = append(carry[:0:0], buf[len(buf)-keep:]...)
		default:
			carry = carry[:0]
		}
		if err != nil && err != bufio.ErrBufferFull {
			return out, true
		}
	}
}

// lineStarts are where the lines of text start (splitLines' starts).
func lineStarts(text string) []int {
	if text == "" {
		return nil
	}
	body := strings.TrimSuffix(text, "\n")
	starts := make([]int, 0, strings.Count(body, "\n")+1)
	for off := 0; ; {
		starts = append(starts, off)
		j := strings.IndexByte(body[off:], '\n')
		if j < 0 {
			return starts
		}
		off += j + 1
	}
}

// splitLines splits text at \n; a final newline does not start a line.
func splitLines(text string) ([]string, []int) {
	if text == "" {
		return nil, nil
	}
	body := strings.TrimSuffix(text, "\n")
	lines := strings.Split(body, "\n")
	starts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	return lines, starts
}

func (v *textView) SetStyles(st *Styles) { v.st = st; v.cache = map[int]string{} }

func (v *textView) SetSize(w, h int) {
	w, h = max(w, 1), max(h, 1)
	resized := w != v.width || h != v.height
	shown := v.query != "" && len(v.matches) > 0 && v.cur < len(v.matches) &&
		v.matches[v.cur].line >= v.yOff && v.matches[v.cur].line < v.yOff+v.height
	v.width, v.height = w, h
	v.clamp()
	if resized && shown {
		v.showMatch() // the current match stays on screen
	}
}

func (v *textView) Lines() int { return v.count() }

func (v *textView) gutterWidth() int {
	if !v.numbers {
		return 0
	}
	w := v.numberDigits() + 1 // number, then │
	if v.seen != nil {
		w++
	}
	return w
}

// numberDigits is how many digits a line number takes in the gutter.
func (v *textView) numberDigits() int {
	return max(len(fmt.Sprint(max(v.count(), 1))), v.minDigits)
}

func (v *textView) contentWidth() int { return max(v.width-v.gutterWidth(), 1) }

func (v *textView) maxY() int { return max(v.rowCount()-v.height, 0) }

func (v *textView) clamp() {
	v.yOff = clampInt(v.yOff, 0, v.maxY())
	if v.xOff < 0 {
		v.xOff = 0
	}
}

func (v *textView) ScrollDown(n int) { v.yOff += n; v.clamp() }
func (v *textView) ScrollUp(n int)   { v.yOff -= n; v.clamp() }
func (v *textView) PageDown()        { v.ScrollDown(max(v.height-1, 1)) }
func (v *textView) PageUp()          { v.ScrollUp(max(v.height-1, 1)) }
func (v *textView) HalfDown()        { v.ScrollDown(max(v.height/2, 1)) }
func (v *textView) HalfUp()          { v.ScrollUp(max(v.height/2, 1)) }
func (v *textView) Top()             { v.yOff = 0 }
func (v *textView) Bottom()          { v.yOff = v.maxY() }
func (v *textView) Left()            { v.xOff = max(v.xOff-max(v.contentWidth()/2, 4), 0) }
func (v *textView) Right()           { v.xOff += max(v.contentWidth()/2, 4) }

// GotoLine scrolls so line i (0-based) is in view, a third from the top.
func (v *textView) GotoLine(i int) {
	if v.hidden(i) { // a match inside a fold unfolds
		v.unfolded = true
		v.layoutRows()
	}
	i = v.lineRow(i)
	if i < v.yOff || i >= v.yOff+v.height {
		v.yOff = i - v.height/3
	}
	v.clamp()
}

// Search sets the query and jumps to the first match at or after the top
// line. Smart case: a query with an upper-case letter matches case.
//
// A text in memory is searched at once and Search returns nil. A file is
// searched by the Cmd returned, whose fileSearchMsg the view takes with
// applySearch; until then MatchInfo says the search runs. A new search
// (or content) cancels the one running.
func (v *textView) Search(q string) tea.Cmd { return v.search(q, true) }

func (v *textView) search(q string, jump bool) tea.Cmd {
	v.cancelSearch()
	v.query, v.matches, v.cur = q, nil, 0
	v.cache = map[int]string{}
	if q == "" {
		return nil
	}
	fold := strings.ToLower(q) == q
	lq := q
	if fold {
		lq = asciiLower(q)
	}
	if fl := v.file; fl != nil {
		gen := fl.gen.Add(1)
		stop := new(atomic.Bool)
		v.pending, v.stop = gen, stop
		return func() tea.Msg {
			ms, ok := fl.search(lq, fold, maxMatches, stop)
			if !ok {
				return nil // cancelled: a newer search or content replaced it
			}
			return fileSearchMsg{fl: fl, gen: gen, q: q, matches: ms, jump: jump}
		}
	}
	var ms []match
lines:
	for i := range v.starts {
		l := v.line(i)
		if fold {
			l = asciiLower(l)
		}
		for off := 0; off <= len(l); {
			j := strings.Index(l[off:], lq)
			if j < 0 {
				break
			}
			ms = append(ms, match{i, off + j, off + j + len(lq)})
			off += j + len(lq)
			if len(ms) >= maxMatches {
				break lines
			}
		}
	}
	v.setMatches(ms, jump)
	return nil
}

// applySearch takes the result of a file search if it is the one the view
// waits for (same file, generation and query) and reports whether it was.
func (v *textView) applySearch(msg fileSearchMsg) bool {
	if v.pending == 0 || v.file != msg.fl || v.pending != msg.gen || v.query != msg.q {
		return false
	}
	v.pending, v.stop = 0, nil
	v.setMatches(msg.matches, msg.jump)
	return true
}

// setMatches sets the search's matches and, with jump, shows the first at
// or after the top line.
func (v *textView) setMatches(ms []match, jump bool) {
	v.matches, v.cur = ms, 0
	v.cache = map[int]string{}
	if jump && len(v.matches) > 0 {
		for k, m := range v.matches {
			if m.line >= v.yOff {
				v.cur = k
				break
			}
		}
		v.showMatch()
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func (v *textView) NextMatch() { v.stepMatch(1) }
func (v *textView) PrevMatch() { v.stepMatch(-1) }

func (v *textView) stepMatch(d int) {
	if len(v.matches) == 0 {
		return
	}
	old := v.matches[v.cur].line
	v.cur = (v.cur + d + len(v.matches)) % len(v.matches)
	delete(v.cache, old)
	v.showMatch()
}

func (v *textView) showMatch() {
	m := v.matches[v.cur]
	delete(v.cache, m.line)
	v.GotoLine(m.line)
	var b strings.Builder
	col := 0
	writeInert(&b, v.linePrefix(m.line, min(m.start, maxLineBytes)), plainStyle, plainStyle, &col)
	cw := v.contentWidth()
	if col < v.xOff || col >= v.xOff+cw-4 {
		v.xOff = max(col-cw/3, 0)
	}
}

// MatchInfo describes the search state, "" when no search is set.
func (v *textView) MatchInfo() string {
	if v.query == "" {
		return ""
	}
	if v.pending != 0 {
		return fmt.Sprintf("/%s: searching…", v.query)
	}
	if len(v.matches) == 0 {
		return fmt.Sprintf("/%s: no match", v.query)
	}
	return fmt.Sprintf("/%s: %d/%d", v.query, v.cur+1, len(v.matches))
}

// styled returns line i fully styled (before the horizontal cut).
func (v *textView) styled(i int) string {
	if s, ok := v.cache[i]; ok {
		return s
	}
	line := v.linePrefix(i, maxLineBytes)
	more := v.lineLen(i) - len(line)
	var spans []span
	if v.syntax != nil {
		spans = v.syntax(line)
	}
	start := v.lineStart(i)
	end := start + len(line)
	for _, m := range v.marks {
		if m.End > start && m.Start < end+1 {
			spans = append(spans, span{start: m.Start - start, end: m.End - start, style: v.st.Marker, prio: prioMarker})
		}
	}
	for k, m := range v.matches {
		if m.line != i {
			continue
		}
		st, p := v.st.Match, prioMatch
		if k == v.cur {
			st, p = v.st.CurMatch, prioCurMatch
		}
		spans = append(spans, span{start: m.start, end: m.end, style: st, prio: p})
	}
	base := plainStyle
	if v.lineStyle != nil {
		if s, ok := v.lineStyle(i); ok {
			base = s
			for k := range spans {
				spans[k].style = spans[k].style.Inherit(s)
			}
		}
	}
	s := styleLine(line, spans, base, v.st)
	if more > 0 {
		s += v.st.Inert.Render(fmt.Sprintf(" …+%d bytes", more))
	}
	if len(v.cache) > 4096 {
		v.cache = map[int]string{}
	}
	v.cache[i] = s
	return s
}

// markLineEnds reports whether a marker span covers the newline that ends
// line i (so an empty line inside a marker is still shown marked).
func (v *textView) markedEmpty(i int) bool {
	if v.lineLen(i) > 0 || len(v.marks) == 0 {
		return false
	}
	p := v.lineStart(i)
	for _, m := range v.marks {
		if m.Start <= p && p < m.End {
			return true
		}
	}
	return false
}

// View renders exactly height lines of exactly width cells.
func (v *textView) View() string {
	cw := v.contentWidth()
	gw := v.gutterWidth()
	numW := v.numberDigits()
	out := make([]string, 0, v.height)
	if v.count() == 0 {
		msg := v.empty
		if msg == "" {
			msg = "(empty)"
		}
		out = append(out, padRight(v.st.Muted.Render(ansi.Truncate(msg, v.width, "…")), v.width))
		for len(out) < v.height {
			out = append(out, strings.Repeat(" ", v.width))
		}
		return strings.Join(out, "\n")
	}
	for r := 0; r < v.height; r++ {
		if v.yOff+r >= v.rowCount() {
			out = append(out, strings.Repeat(" ", v.width))
			continue
		}
		i := v.rowLine(v.yOff + r)
		if v.rows != nil && v.rows[v.yOff+r] < 0 {
			f := v.folds[-1-v.rows[v.yOff+r]]
			msg := fmt.Sprintf("… %s lines folded · enter to unfold", commas(f.end-f.start))
			out = append(out, padRight(strings.Repeat(" ", gw)+v.st.Muted.Render(ansi.Truncate(msg, cw, "…")), v.width))
			continue
		}
		var g string
		if gw > 0 {
			num := fmt.Sprintf("%*d", numW, i+1)
			var mark rune
			if v.seen != nil {
				mark = v.seen(i)
			}
			if mark != 0 {
				g = v.st.GutterSeen.Render(num + string(mark))
			} else if v.seen != nil {
				g = v.st.Gutter.Render(num + " ")
			} else {
				g = v.st.Gutter.Render(num)
			}
			g += v.st.Gutter.Render("│")
		}
		line := v.styled(i)
		if v.markedEmpty(i) && v.xOff == 0 {
			line = v.st.Marker.Render(" ")
		}
		cut := ansi.Cut(line, v.xOff, v.xOff+cw)
		out = append(out, g+padRight(cut, cw))
	}
	return strings.Join(out, "\n")
}

// padRight pads a styled string with spaces to w cells (never cuts).
func padRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// fit cuts or pads a styled string to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return padRight(s, w)
}

// scrollKey applies a scroll or search-step key and reports whether msg
// was one.
func (tv *textView) scrollKey(k *KeyMap, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		tv.ScrollUp(1)
	case key.Matches(msg, k.Down):
		tv.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		tv.PageUp()
	case key.Matches(msg, k.PageDown):
		tv.PageDown()
	case key.Matches(msg, k.HalfUp):
		tv.HalfUp()
	case key.Matches(msg, k.HalfDown):
		tv.HalfDown()
	case key.Matches(msg, k.Top):
		tv.Top()
	case key.Matches(msg, k.Bottom):
		tv.Bottom()
	case key.Matches(msg, k.Next):
		tv.NextMatch()
	case key.Matches(msg, k.Prev):
		tv.PrevMatch()
	default:
		return false
	}
	return true
}
