package formatters

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"correx/model"
)

// SpillReader reads part of a spill file FindSpill found, at most n bytes
// from off. A SpillFinder that is also a SpillReader lets the seen ranges
// be placed in the spill file.
type SpillReader interface {
	ReadSpill(path string, off int64, n int) ([]byte, error)
}

// SpillProblem says why a spill file FindSpill found is not read (it gave
// lines or bytes -1), e.g. "outside opencode's spill folder: PATH".
type SpillProblem interface {
	SpillProblem(path string) string
}

// shape is what a truncation rule keeps of the output: its start (head),
// its end (tail), and whether it cuts inside lines (by characters or
// bytes) or between them; and the pieces of a driver's kind the agent
// added (KindShape's Lead and Note).
type shape struct {
	head, tail, charCut bool
	lead                *regexp.Regexp
	leadWhat, note      string
	footer              *regexp.Regexp // what the agent adds after the output
	footerWhat          string
}

var shapes = map[model.TruncationKind]shape{
	model.TruncBashTail:    {tail: true},
	model.TruncGenericHead: {head: true},
	model.TruncGlobCap:     {head: true},
	model.TruncV2Bound:     {head: true, tail: true, charCut: true}, // its byte stage cuts inside lines
}

// Pieces of model-visible text an agent adds around an output.
var (
	readWrapperHead = regexp.MustCompile(`^<path>[^\n]*</path>\n<type>file</type>\n<content>\n?`)
	readEntriesHead = regexp.MustCompile(`^<path>[^\n]*</path>\n<type>directory</type>\n<entries>\n`)
	readEndOfFile   = regexp.MustCompile(`^\n\n\(End of file - total (\d+) lines\)`)
	readNumber      = regexp.MustCompile(`^(\d+): `)
	shellMetadata   = regexp.MustCompile(`\n\n<shell_metadata>\n[^<]*\n</shell_metadata>$`)
	codexHeaderLine = regexp.MustCompile(`^(?:Chunk ID: |Wall time: |Process exited with code |Process running with session ID |Original token count: |Exit code: )[^\n]*\n`)
)

const codexOutputLine = "Output:\n"

// complete fills in the facts of t, a truncation found in text with its
// kind, markers and spill path set: the added pieces and seen ranges
// between the markers, the seen and full sizes, and the placement of each
// seen range in the spill file. appended is where text the agent appended
// after the stored output starts (Claude Code's system reminders), or -1.
func complete(t *model.Truncation, text string, appended int, spill SpillFinder) {
	sort.Slice(t.Markers, func(i, j int) bool { return t.Markers[i].Start < t.Markers[j].Start })
	full := fullFromFooters(t, text)
	if spill == nil && t.SpillPath != "" {
		full.why = "the spill file was not looked for"
	}
	if spill != nil && t.SpillPath != "" {
		if path, lines, size, ok := spill.FindSpill(t.SpillPath); ok {
			t.SpillFound = path
			full.lines, full.bytes, full.why = &lines, &size, ""
			if lines < 0 || size < 0 { // found, not read
				full.lines, full.bytes, full.why = nil, nil, "the spill file was not read"
				if p, ok := spill.(SpillProblem); ok {
					full.why = p.SpillProblem(path)
				}
			}
		} else if t.SpillGoneWhy = registeredGone(t.Kind); t.SpillGoneWhy != "" {
			full.why = "the spill file was " + t.SpillGoneWhy + " (it was at " + t.SpillPath + ")"
		} else {
			full.why = "the spill file is gone (expected at " + t.SpillPath + ")"
		}
	}
	t.FullLines, t.FullBytes, t.FullUnknown = full.lines, full.bytes, full.why
	if t.FullLines == nil || t.FullBytes == nil {
		if t.FullUnknown == "" {
			t.FullUnknown = unknownWhy(t.Kind)
		}
	}

	if t.Seen != nil { // carved by the agent's own rule (its Record)
		t.SeenLines, t.SeenBytes = seenSizes(t, text)
		checkFull(t)
		return
	}
	// the gaps between markers hold the output pieces and the added text;
	// an agent's Detect may have named added pieces of its own
	pre := t.Added
	cuts := append([]model.Span{}, t.Markers...)
	for _, a := range pre {
		cuts = append(cuts, a.Span)
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].Start < cuts[j].Start })
	var gaps []model.Span
	last := 0
	for _, m := range cuts {
		if m.Start > last {
			gaps = append(gaps, model.Span{Start: last, End: m.Start})
		}
		last = max(last, m.End)
	}
	if last < len(text) {
		gaps = append(gaps, model.Span{Start: last, End: len(text)})
	}
	t.Seen, t.Added = []model.SeenRange{}, append([]model.AddedPiece{}, pre...)
	pieces := carveAdded(t, text, gaps, appended, spill)
	sh := shapes[t.Kind]
	for i, p := range pieces {
		r := model.SeenRange{Text: p}
		piece := text[p.Start:p.End]
		switch {
		case t.Kind == model.TruncV2ReadPage:
			r.JSONString = true
			r.Lines = v2PageLines(text, piece)
		case isRead(t.Kind):
			r.Numbered = true
			r.Lines = numberedLines(piece, readNumber)
			r.PartialLast = followedByLineCut(t, p.End)
		case t.Kind == model.TruncClaudePartial:
			r.Numbered = true
			r.Lines = numberedLines(piece, claudeNumber)
			r.PartialLast = i == len(pieces)-1 && claudeCutInLine(t, text)
		case t.Kind == model.TruncReadEntries:
			r.Lines = entryLines(text, t.Markers[0])
		default:
			// a piece of the output itself: the head or tail a rule keeps
			// is placed in the spill file when there is one
			head, tail := ends(sh, t.Markers, pieces, i)
			r.PartialFirst = sh.charCut && !head
			r.PartialLast = sh.charCut && !tail && !strings.HasSuffix(piece, "\n")
			if head {
				r.Bytes = &model.Span{Start: 0, End: len(piece)}
				r.Lines = &model.LineRange{First: 1, Last: max(CountLines(piece), 1)}
			}
			if head || tail {
				place(&r, piece, t, spill, head)
			}
		}
		t.Seen = append(t.Seen, r)
	}
	t.SeenLines, t.SeenBytes = seenSizes(t, text)
	checkFull(t)
}

// checkFull drops a full size below what the text shows (a footer's count
// that lies): it is no full size.
func checkFull(t *model.Truncation) {
	if t.FullLines != nil && t.SeenLines > *t.FullLines || t.FullBytes != nil && t.SeenBytes > *t.FullBytes {
		t.FullLines, t.FullBytes = nil, nil
		t.FullUnknown = "the full size it states is less than what it shows"
	}
}

// ends says whether piece i of pieces starts the output (the head a rule
// keeps) or ends it (the tail). A rule that keeps both has its head before
// its cut marker and its tail after it; a lone piece is the head when a
// marker follows it, and unknown otherwise.
func ends(sh shape, markers []model.Span, pieces []model.Span, i int) (head, tail bool) {
	first, last := i == 0, i == len(pieces)-1
	switch {
	case sh.head && sh.tail && len(pieces) == 1:
		return markers[len(markers)-1].Start >= pieces[0].End, false
	case sh.head && sh.tail:
		return first, last
	}
	return sh.head && first, sh.tail && last
}

// carveAdded takes the added pieces out of the gaps and returns what is
// left: the pieces of the output.
func carveAdded(t *model.Truncation, text string, gaps []model.Span, appended int, spill SpillFinder) []model.Span {
	add := func(start, end int, what string) {
		if end > start {
			t.Added = append(t.Added, model.AddedPiece{Span: model.Span{Start: start, End: end}, What: what})
		}
	}
	if appended >= 0 {
		// what follows the stored output (a marker may sit among the
		// reminders: Claude Code's notice of a partial Read)
		for i := range gaps {
			if g := &gaps[i]; g.End > appended {
				add(max(g.Start, appended), g.End, "appended by the agent (system reminders)")
				g.End = max(g.Start, appended)
			}
		}
	}
	if len(gaps) > 0 {
		g := &gaps[0]
		switch {
		case isRead(t.Kind):
			if m := readWrapperHead.FindStringIndex(text[g.Start:g.End]); m != nil && g.Start == 0 {
				add(g.Start, g.Start+m[1], "read's <path>/<type>/<content> wrapper")
				g.Start += m[1]
			}
		case strings.HasPrefix(string(t.Kind), "codex-") && g.Start == 0:
			s := g.Start
			for {
				m := codexHeaderLine.FindStringIndex(text[s:g.End])
				if m == nil {
					break
				}
				s += m[1]
			}
			add(g.Start, s, "Codex's exec header")
			g.Start = s
		case t.Kind == model.TruncReadEntries:
			if m := readEntriesHead.FindStringIndex(text[g.Start:g.End]); m != nil && g.Start == 0 {
				add(g.Start, g.Start+m[1], "read's <path>/<type>/<entries> wrapper")
				g.Start += m[1]
			}
		case shapes[t.Kind].lead != nil && g.Start == 0:
			if m := shapes[t.Kind].lead.FindStringIndex(text[g.Start:g.End]); m != nil {
				add(g.Start, g.Start+m[1], shapes[t.Kind].leadWhat)
				g.Start += m[1]
			}
		}
	}
	if strings.HasPrefix(string(t.Kind), "codex-") {
		// "Output:\n" ends the header, after the header markers
		for i := range gaps {
			g := &gaps[i]
			if strings.HasPrefix(text[g.Start:g.End], codexOutputLine) {
				add(g.Start, g.Start+len(codexOutputLine), "Codex's exec header")
				g.Start += len(codexOutputLine)
				break
			}
		}
	}
	var pieces []model.Span
	for i, g := range gaps {
		lastGap := i == len(gaps)-1
		switch {
		case isRead(t.Kind):
			// the content's lines; the footer and the closing tag; the
			// line break after a cut line (the footer first: a cut last
			// line is followed by the footer's blank line)
			if e := strings.Index(text[g.Start:g.End], "\n</content>"); e >= 0 {
				end := g.Start + e
				if f := strings.LastIndex(text[g.Start:end], "\n\n(End of file - total "); f >= 0 {
					if m := readEndOfFile.FindStringIndex(text[g.Start+f : end]); m != nil && g.Start+f+m[1] == end {
						end = g.Start + f
					}
				}
				add(end, g.End, "read's footer and closing tag")
				g.End = end
			}
			if strings.HasPrefix(text[g.Start:g.End], "\n") && g.Start > 0 && followedByLineCut(t, g.Start) {
				add(g.Start, g.Start+1, "line break")
				g.Start++
			}
		case t.Kind == model.TruncReadEntries && lastGap && i > 0:
			add(g.Start, g.End, "read's closing tag")
			g.End = g.Start
		case t.Kind == model.TruncBashTail && lastGap:
			if m := shellMetadata.FindStringIndex(text[g.Start:g.End]); m != nil {
				add(g.Start+m[0], g.End, "bash's <shell_metadata> notes")
				g.End = g.Start + m[0]
			}
			if text[g.Start:g.End] == bashNoOutput && emptyTail(t, spill) {
				add(g.Start, g.End, "bash's placeholder for an empty tail")
				g.End = g.Start
			}
		case t.Kind == model.TruncV2ReadPage:
			// the JSON around the content string
			if c := v2PageContent(text[g.Start:g.End]); c != nil {
				add(g.Start, g.Start+c[0], "v2 read's text-page JSON")
				add(g.Start+c[1], g.End, "v2 read's text-page JSON")
				g.Start, g.End = g.Start+c[0], g.Start+c[1]
			}
		case lastGap && shapes[t.Kind].footer != nil:
			if m := shapes[t.Kind].footer.FindStringIndex(text[g.Start:g.End]); m != nil {
				add(g.Start+m[0], g.End, shapes[t.Kind].footerWhat)
				g.End = g.Start + m[0]
			}
		case t.Kind == model.TruncGrepCap && strings.HasPrefix(text[g.Start:g.End], "\n"):
			add(g.Start, g.Start+1, "line break")
			g.Start++
		case shapes[t.Kind].note != "":
			add(g.Start, g.End, shapes[t.Kind].note)
			g.End = g.Start
		case t.Kind == model.TruncGeminiDistilled && lastGap && i > 0 && len(t.Markers) > 0 && g.Start == t.Markers[len(t.Markers)-1].End && strings.HasSuffix(text[t.Markers[len(t.Markers)-1].Start:g.Start], GeminiStrategic):
			add(g.Start, g.End, "a model-written summary of what was cut")
			g.End = g.Start
		}
		if g.End > g.Start {
			pieces = append(pieces, g)
		}
	}
	sort.Slice(t.Added, func(i, j int) bool { return t.Added[i].Start < t.Added[j].Start })
	merged := t.Added[:0]
	for _, a := range t.Added {
		if n := len(merged); n > 0 && merged[n-1].End == a.Start && merged[n-1].What == a.What {
			merged[n-1].End = a.End
			continue
		}
		merged = append(merged, a)
	}
	t.Added = merged
	return pieces
}

// bashNoOutput is what opencode's shell tool shows for an empty text
// (shell.ts: `if(!B)B="(no output)"`): after a cut, when the output's last
// line alone is over the byte cap and ends with a newline, the tail it
// keeps is the empty line after it.
const bashNoOutput = "(no output)"

// emptyTail says whether a bash tail "(no output)" is that placeholder:
// the spill file, found and readable, does not end with those bytes. When
// it cannot be read the text is taken as the output's tail (unplaced).
func emptyTail(t *model.Truncation, spill SpillFinder) bool {
	rd, ok := spill.(SpillReader)
	if !ok || t.SpillFound == "" || t.FullBytes == nil {
		return false
	}
	n, size := len(bashNoOutput), *t.FullBytes
	if size < n {
		return true
	}
	b, err := rd.ReadSpill(t.SpillFound, int64(size-n), n)
	return err == nil && string(b) != bashNoOutput
}

// v2PageContent finds the content string's characters (inside its
// quotes) in a text-page JSON.
func v2PageContent(s string) []int {
	if !strings.HasPrefix(s, v2ReadPageHead) {
		return nil
	}
	var v struct {
		Content json.RawMessage `json:"content"`
	}
	dec := json.NewDecoder(strings.NewReader(s + "}")) // the page JSON without its marker's closing brace
	if dec.Decode(&v) != nil || len(v.Content) < 2 || !strings.HasPrefix(s[len(v2ReadPageHead)-1:], string(v.Content)) {
		return nil
	}
	return []int{len(v2ReadPageHead), len(v2ReadPageHead) - 1 + len(v.Content) - 1}
}

// v2PageLines is the line range a read page shows: from its "offset",
// one line per line of its content.
func v2PageLines(text, piece string) *model.LineRange {
	var page struct {
		Offset int `json:"offset"`
	}
	var content string
	if json.Unmarshal([]byte(text), &page) != nil || json.Unmarshal([]byte(`"`+piece+`"`), &content) != nil || page.Offset < 1 {
		return nil
	}
	return &model.LineRange{First: page.Offset, Last: page.Offset + max(CountLines(content), 1) - 1}
}

// entryLines is the range of entries a directory read showed, from its
// note "(Showing n of N entries. Use 'offset' parameter to read beyond
// entry K)": entries K-n+1..K.
func entryLines(text string, note model.Span) *model.LineRange {
	m := readEntries.FindStringSubmatch(text[note.Start:] + "\n</entries>")
	if m == nil {
		return nil
	}
	n, _ := strconv.Atoi(m[1])
	k, _ := strconv.Atoi(m[3])
	if n < 1 || k < n {
		return nil
	}
	return &model.LineRange{First: k - n + 1, Last: k}
}

func isRead(k model.TruncationKind) bool {
	return k == model.TruncReadLines || k == model.TruncReadBytes || k == model.TruncReadLine
}

// followedByLineCut reports whether a line cut's marker, "... (line
// truncated to 2000 chars)" or 1.1.65's "...", starts at off (or ends right
// before it, for the line break).
func followedByLineCut(t *model.Truncation, off int) bool {
	for _, m := range t.Markers {
		if (m.Start == off || m.End == off) && (m.End-m.Start == len(readLongLine) || m.End-m.Start == len(readLegacyLongLine)) {
			return true
		}
	}
	return false
}

// numberedLines reads the line numbers of a piece's numbered lines
// (opencode's "N: ", Claude Code's "N\t"); nil unless every line carries
// the number one past the line before (numbers that skip or repeat, or a
// line without one: the lines of the output it shows are then unknown).
func numberedLines(s string, number *regexp.Regexp) *model.LineRange {
	var first, want int
	for i, line := range strings.Split(s, "\n") {
		n, ok := lineNumber(line, number)
		if !ok || (i > 0 && n != want) {
			return nil
		}
		if i == 0 {
			first = n
		}
		want = n + 1
	}
	return &model.LineRange{First: first, Last: want - 1}
}

func lineNumber(line string, number *regexp.Regexp) (int, bool) {
	m := number.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// place looks for a piece in the spill file: a head piece at its start, a
// tail piece at its end. A piece is placed only when the bytes there are
// its bytes; its line range and partial lines then come from the file.
// A spill file that does not hold the piece where the rule says leaves
// its position unknown.
func place(r *model.SeenRange, piece string, t *model.Truncation, spill SpillFinder, head bool) {
	rd, ok := spill.(SpillReader)
	if !ok || t.SpillFound == "" || t.FullBytes == nil || t.FullLines == nil {
		return
	}
	size, n := *t.FullBytes, len(piece)
	off := size - n
	if head {
		off = 0
	}
	r.Lines, r.Bytes = nil, nil
	if off < 0 || off+n > size {
		return
	}
	from := max(off-1, 0)
	b, err := rd.ReadSpill(t.SpillFound, int64(from), off+n+1-from)
	if err != nil || len(b) < off-from+n || string(b[off-from:off-from+n]) != piece {
		return
	}
	before, after := byte('\n'), byte('\n')
	if off > 0 {
		before = b[0]
	}
	if off-from+n < len(b) {
		after = b[off-from+n]
	}
	newlines := strings.Count(piece, "\n")
	var linesBefore int // newlines in the file before off
	if off == 0 {
		linesBefore = 0
	} else {
		// the piece ends the file: the file's newlines minus the piece's
		total := *t.FullLines
		if size > 0 && !(off+n == size && strings.HasSuffix(piece, "\n")) {
			total-- // a last line without a newline
		}
		linesBefore = total - newlines
	}
	lastNL := newlines
	if strings.HasSuffix(piece, "\n") {
		lastNL--
	}
	r.Placed = true
	r.Bytes = &model.Span{Start: off, End: off + n}
	r.Lines = &model.LineRange{First: linesBefore + 1, Last: linesBefore + lastNL + 1}
	r.PartialFirst = off > 0 && before != '\n'
	r.PartialLast = off+n < size && !strings.HasSuffix(piece, "\n") && after != '\n'
}

// seenSizes counts the lines and bytes of the full output the seen ranges
// show: the union of their line ranges when every range has one, else the
// lines of each range added up.
func seenSizes(t *model.Truncation, text string) (lines, size int) {
	known := true
	for _, r := range t.Seen {
		piece := text[r.Text.Start:r.Text.End]
		size += len(piece)
		if r.JSONString {
			var content string
			if json.Unmarshal([]byte(`"`+piece+`"`), &content) == nil {
				size += len(content) - len(piece)
			}
		}
		if r.Numbered {
			number := readNumber
			if t.Kind == model.TruncClaudePartial {
				number = claudeNumber
			}
			for _, line := range strings.Split(piece, "\n") {
				if m := number.FindStringIndex(line); m != nil {
					size -= m[1]
				}
			}
		}
		if r.Lines == nil {
			known = false
		}
	}
	if known {
		last := 0
		for _, r := range t.Seen {
			first := max(r.Lines.First, last+1)
			if r.Lines.Last >= first {
				lines += r.Lines.Last - first + 1
			}
			last = max(last, r.Lines.Last)
		}
		return lines, size
	}
	for _, r := range t.Seen {
		lines += CountLines(text[r.Text.Start:r.Text.End])
	}
	return lines, size
}

type fullSize struct {
	lines, bytes *int
	why          string
}

// fullFromFooters reads the full size from what the agent wrote: read's
// "(Showing lines a-b of N ...)" or "(End of file - total N lines)".
func fullFromFooters(t *model.Truncation, text string) fullSize {
	f := fullSize{lines: t.FullLines, bytes: t.FullBytes, why: t.FullUnknown} // what the finder read from the agent's record
	if t.Kind == model.TruncReadEntries {
		if m := readEntries.FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[2]); err == nil {
				f.lines = &n
			}
		}
		f.why = "a directory listing has no size in bytes"
		return f
	}
	if !isRead(t.Kind) {
		return f
	}
	for _, re := range []marker{readShowing} {
		if m := re.FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[3]); err == nil {
				f.lines = &n
			}
		}
	}
	if i := strings.LastIndex(text, "\n\n(End of file - total "); i >= 0 {
		if m := readEndOfFile.FindStringSubmatch(text[i:]); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				f.lines = &n
			}
		}
	}
	f.why = "the read tool does not report the file's size in bytes"
	if f.lines == nil {
		f.why = "the read tool stopped without counting the rest of the file"
	}
	return f
}

// unknownWhy says why a kind's full output is not known.
func unknownWhy(k model.TruncationKind) string {
	switch {
	case k == model.TruncGlobCap || k == model.TruncGrepCap:
		return "the tool stopped at 100 results without counting the rest"
	case k == model.TruncV2ReadPage:
		return "v2's read page does not say how long the file is"
	}
	if why := registeredWhy(k); why != "" {
		return why
	}
	return "no spill file was recorded"
}
