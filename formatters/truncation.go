package formatters

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"correx/internal/jsonskim"
	"correx/model"
)

// SpillFinder locates a spill file an agent recorded and measures it. It
// returns the path where the file is now, or ok false when it is gone.
type SpillFinder interface {
	FindSpill(recorded string) (path string, lines, bytes int, ok bool)
}

// Markers of opencode 1.18.33 (and 1.1.65 where it differs), as the model
// sees them. Each rule names the tools it applies to; "" means any tool.
var (
	bashTailPrefix = "...output truncated...\n\nFull output saved to: "
	genericHead    = marker{regexp.MustCompile(`\n\n\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\nThe tool call succeeded but the output was truncated\. Full output saved to: ([^\n]+)\n[^\n]*$`), "The tool call succeeded but the output was truncated. Full output saved to: "}
	v2Bound        = marker{regexp.MustCompile(`(?:^|\n\n)\.\.\. output truncated; full content saved to (\S+) \.\.\.(?:\n\n|$)`), "... output truncated; full content saved to "}
	readShowing    = marker{regexp.MustCompile(`\n\n\(Showing lines (\d+)-(\d+) of (\d+)\. Use offset=\d+ to continue\.\)`), "(Showing lines "}
	readCapped     = marker{regexp.MustCompile(`\n\n\(Output capped at 50 KB\. Showing lines (\d+)-(\d+)\. Use offset=\d+ to continue\.\)`), "(Output capped at 50 KB. Showing lines "}
	readLegacyMore = marker{regexp.MustCompile(`\n\n\((?:File has more lines|Output truncated at \d+ bytes)\. Use 'offset' parameter to read beyond line \d+\)`), " Use 'offset' parameter to read beyond line "}
	readLongLine   = "... (line truncated to 2000 chars)"
	// 1.1.65's read cuts a line to its first 2000 UTF-16 units and adds
	// "..." (read.ts: substring(0, MAX_LINE_LENGTH) + "..."), without
	// flagging it; its <content> tag has no newline after it, 1.18.33's has.
	readLegacyLongLine = "..."
	readLegacyContent  = "</path>\n<type>file</type>\n<content>"
	readLegacyLineCut  = 2000
	readEntries        = marker{regexp.MustCompile(`\n\n\(Showing (\d+) of (\d+) entries\. Use 'offset' parameter to read beyond entry (\d+)\)\n</entries>$`), " entries. Use 'offset' parameter to read beyond entry "}
	globCap            = "\n\n(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
	grepCapHead        = marker{regexp.MustCompile(`^Found \d+ matches \((?:more matches available|showing first \d+)\)`), "Found "}
	grepCapTail        = marker{regexp.MustCompile(`\n\n\(Results truncated(?:: showing \d+ of \d+ matches \(\d+ hidden\))?\. Consider using a more specific path or pattern\.\)$`), "(Results truncated"}
	// Kilo Code's grep (7.7.9, with a limit argument) ends its capped
	// output with this instead
	grepLimitTail = marker{regexp.MustCompile(`\n\n\d+ matches limit reached\. Use limit=\d+ for more, or refine pattern\.$`), " matches limit reached. Use limit="}
)

// Detect finds the truncation markers in a model-visible text of a tool and
// returns the facts, or nil when the text was not truncated. meta is the
// call's stored metadata (opencode's outputPath is preferred to the path in
// the marker).
func Detect(tool, text string, meta json.RawMessage, spill SpillFinder) *model.Truncation {
	return detectIn(text, func() (string, int) { return metaOutputPath(meta), -1 }, spill, func(text string) *model.Truncation { return detect("", tool, text) })
}

// detectIn runs a marker finder on text and completes its facts with
// those of the call (asked for only when a marker is found: a metadata can
// hold the whole output again, and most texts hold no marker): recorded
// (the spill path the agent stored, if any) wins over the path in the
// marker; the spill file, when found, gives the full size and places the
// seen ranges. appended is where text the agent appended after the stored
// output starts, or -1.
func detectIn(text string, facts func() (recorded string, appended int), spill SpillFinder, find func(string) *model.Truncation) *model.Truncation {
	t := find(text)
	if t == nil {
		return nil
	}
	recorded, appended := facts()
	if recorded != "" {
		t.SpillPath = recorded
	}
	complete(t, text, appended, spill)
	return t
}

// detectV2 finds the one marker of the v2 loop: ToolOutputStore.bound's
// head-and-tail cut. v2 tools have no caps or footers of their own (glob
// and grep return everything; read returns JSON).
func detectV2(text string) *model.Truncation {
	if m := v2Bound.FindStringSubmatchIndex(text); m != nil {
		return &model.Truncation{
			Kind:      model.TruncV2Bound,
			Markers:   []model.Span{{Start: m[0], End: m[1]}},
			SpillPath: text[m[2]:m[3]],
		}
	}
	if strings.HasPrefix(text, v2ReadPageHead) && json.Valid([]byte(text)) {
		if m := v2ReadPageCut.FindStringIndex(text); m != nil {
			return &model.Truncation{Kind: model.TruncV2ReadPage, Markers: []model.Span{{Start: m[0], End: m[1]}}}
		}
	}
	return nil
}

// v2's read returns a page of a file as its structured output, which the
// model gets as JSON (observed, 1.18.33):
// {"type":"text-page","content":"…","mime":"text/plain","offset":2990,"truncated":true,"next":2995}
var (
	v2ReadPageHead = `{"type":"text-page","content":"`
	v2ReadPageCut  = regexp.MustCompile(`,"truncated":true,"next":\d+\}$`)
)

// detect finds the markers of agent's rules in text ("": every agent's):
// opencode's built-in rules for opencode and its forks, a driver's
// registered rules for its agent. Only the agent's own are looked for: a
// file that quotes another agent's marker is not cut, and each output is
// scanned once per rule of one agent, not of all.
func detect(agent model.Agent, tool, text string) *model.Truncation {
	if !agent.UsesOpencode() {
		return detectRegistered(agent, tool, text)
	}
	if tool == "bash" && strings.HasPrefix(text, bashTailPrefix) {
		rest := text[len(bashTailPrefix):]
		if end := strings.Index(rest, "\n\n"); end >= 0 {
			return &model.Truncation{
				Kind:      model.TruncBashTail,
				Markers:   []model.Span{{Start: 0, End: len(bashTailPrefix) + end + 2}},
				SpillPath: rest[:end],
			}
		}
	}
	if m := genericHead.FindStringSubmatchIndex(text); m != nil {
		return &model.Truncation{
			Kind:      model.TruncGenericHead,
			Markers:   []model.Span{{Start: m[0], End: m[1]}},
			SpillPath: text[m[6]:m[7]],
		}
	}
	if t := detectV2(text); t != nil {
		return t
	}
	switch tool {
	case "read":
		return detectRead(text)
	case "glob":
		if strings.HasSuffix(text, globCap) {
			return &model.Truncation{Kind: model.TruncGlobCap, Markers: []model.Span{{Start: len(text) - len(globCap), End: len(text)}}}
		}
	case "grep":
		if h := grepCapHead.FindStringIndex(text); h != nil {
			t := &model.Truncation{Kind: model.TruncGrepCap, Markers: []model.Span{{Start: h[0], End: h[1]}}}
			for _, tail := range []marker{grepCapTail, grepLimitTail} {
				if m := tail.FindStringIndex(text); m != nil {
					t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
					break
				}
			}
			return t
		}
	}
	return detectRegistered(agent, tool, text)
}

func detectRead(text string) *model.Truncation {
	if m := readEntries.FindStringIndex(text); m != nil && strings.HasPrefix(text, "<path>") {
		// the note, without the closing tag after it
		return &model.Truncation{Kind: model.TruncReadEntries, Markers: []model.Span{{Start: m[0], End: m[1] - len("\n</entries>")}}}
	}
	var t *model.Truncation
	mark := func(kind model.TruncationKind, start, end int) {
		if t == nil {
			t = &model.Truncation{Kind: kind}
		}
		t.Markers = append(t.Markers, model.Span{Start: start, End: end})
	}
	for off := 0; ; {
		i := strings.Index(text[off:], readLongLine)
		if i < 0 {
			break
		}
		mark(model.TruncReadLine, off+i, off+i+len(readLongLine))
		off += i + len(readLongLine)
	}
	if i := strings.Index(text, readLegacyContent); i >= 0 && strings.HasPrefix(text, "<path>") && !strings.HasPrefix(text[i+len(readLegacyContent):], "\n") {
		for _, s := range legacyLineCuts(text, i+len(readLegacyContent)) {
			mark(model.TruncReadLine, s, s+len(readLegacyLongLine))
		}
	}
	for _, rule := range []struct {
		re   marker
		kind model.TruncationKind
	}{{readShowing, model.TruncReadLines}, {readCapped, model.TruncReadBytes}, {readLegacyMore, model.TruncReadLines}} {
		if m := rule.re.FindStringIndex(text); m != nil {
			mark(rule.kind, m[0], m[1]) // the footer, with the blank line before it
			t.Kind = rule.kind          // a footer outranks cut lines
		}
	}
	return t
}

// legacyLineCuts finds where 1.1.65's read put "..." after a line cut to
// 2000 UTF-16 units: the numbered lines from off on whose text is 2000
// units and "...".
func legacyLineCuts(text string, off int) []int {
	var out []int
	for off < len(text) {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		line := text[off:end]
		if m := readNumber.FindStringIndex(line); m != nil && strings.HasSuffix(line, readLegacyLongLine) &&
			utf16Len(line[m[1]:len(line)-len(readLegacyLongLine)]) == readLegacyLineCut {
			out = append(out, end-len(readLegacyLongLine))
		}
		off = end + 1
	}
	return out
}

// utf16Len is a string's length in JavaScript (UTF-16 code units).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// Unmarked returns text without the marker spans.
func Unmarked(text string, spans []model.Span) string { return unmarked(text, spans) }

func unmarked(text string, spans []model.Span) string {
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.Start < last {
			continue
		}
		b.WriteString(text[last:s.Start])
		last = s.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// CountLines counts lines as a reader does: a final line without a newline
// counts, a trailing newline does not start a new line.
func CountLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// AgentFlagged is what the agent's own record says about cutting a call's
// output: opencode v1's metadata.truncated, v2's outputPaths (a completed
// v2 call always records them), Claude Code's persistedOutputPath and
// file.truncatedByTokenCap (Read over its token cap), and what a driver's
// registered Flagged says (Copilot's toolTelemetry). nil
// when the agent keeps no such record (Codex, Gemini CLI, a Claude Code
// result it did not persist).
func AgentFlagged(call *model.ToolCall) *bool {
	yes, no := true, false
	if call.IsV2() && call.Status == model.StatusCompleted && bytes.Contains(call.Structured, []byte(`"truncated":true`)) {
		var st struct {
			Truncated bool `json:"truncated"`
		}
		if json.Unmarshal(call.Structured, &st) == nil && st.Truncated {
			return &yes // the tool's own cut (read's page)
		}
	}
	if _, ok := claudePartialRecord(call); ok {
		return &yes
	}
	if f := flaggedRegistered(call); f != nil {
		return f
	}
	if !call.IsV2() && !bytes.Contains(call.Metadata, []byte(`"truncated"`)) && !bytes.Contains(call.Metadata, []byte(`"persistedOutputPath"`)) {
		return nil // the common case, without parsing a large metadata object
	}
	if call.IsV2() {
		switch {
		case len(call.OutputPaths) > 0:
			return &yes
		case call.Status != model.StatusCompleted:
			return nil
		}
		return &no
	}
	var m struct {
		Truncated           *bool  `json:"truncated"`
		PersistedOutputPath string `json:"persistedOutputPath"`
	}
	if !jsonskim.Valid(call.Metadata) {
		return nil
	}
	// skimmed where only those keys can match them (a metadata can hold
	// the whole output), else decoded
	if vals, ok := jsonskim.Named(call.Metadata, "truncated", "persistedOutputPath"); ok {
		if vals[0] != nil {
			_ = json.Unmarshal(vals[0], &m.Truncated)
		}
		if vals[1] != nil {
			_ = json.Unmarshal(vals[1], &m.PersistedOutputPath)
		}
	} else {
		_ = json.Unmarshal(call.Metadata, &m)
	}
	if m.PersistedOutputPath != "" {
		return &yes
	}
	return m.Truncated
}

// metaOutputPath is metadata's outputPath: skimmed where only that key
// can match it (a metadata can hold the whole output), else decoded.
func metaOutputPath(meta json.RawMessage) string {
	var m struct {
		OutputPath string `json:"outputPath"`
	}
	if !jsonskim.Valid(meta) {
		return ""
	}
	if vals, ok := jsonskim.Named(meta, "outputPath"); ok {
		if vals[0] != nil {
			_ = json.Unmarshal(vals[0], &m.OutputPath)
		}
		return m.OutputPath
	}
	_ = json.Unmarshal(meta, &m)
	return m.OutputPath
}

// GeminiStrategic heads the summary Gemini CLI's distillation writes of
// what it cut: the end of its marker, and the summary an added piece.
const GeminiStrategic = "\n\n--- Strategic Significance of Truncated Content ---\n"

// marker is a marker's regexp and a literal that every match contains.
// Outputs run to megabytes and most hold no marker: the literal is searched
// first (fast), and the regexp runs only where it is found.
type marker struct {
	re  *regexp.Regexp
	lit string
}

// Marker is a marker for the drivers' rules (AgentMarkers.Detect).
type Marker = marker

// NewMarker compiles expr, whose every match contains lit.
func NewMarker(expr, lit string) Marker { return marker{regexp.MustCompile(expr), lit} }

func (m marker) FindStringSubmatchIndex(s string) []int {
	if !strings.Contains(s, m.lit) {
		return nil
	}
	return m.re.FindStringSubmatchIndex(s)
}

func (m marker) FindStringIndex(s string) []int {
	if !strings.Contains(s, m.lit) {
		return nil
	}
	return m.re.FindStringIndex(s)
}

func (m marker) FindStringSubmatch(s string) []string {
	if !strings.Contains(s, m.lit) {
		return nil
	}
	return m.re.FindStringSubmatch(s)
}

func (m marker) FindAllStringIndex(s string, n int) [][]int {
	if !strings.Contains(s, m.lit) {
		return nil
	}
	return m.re.FindAllStringIndex(s, n)
}
