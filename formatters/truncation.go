package formatters

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

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
	genericHead    = regexp.MustCompile(`\n\n\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\nThe tool call succeeded but the output was truncated\. Full output saved to: ([^\n]+)\n[^\n]*$`)
	v2Bound        = regexp.MustCompile(`(?:^|\n\n)\.\.\. output truncated; full content saved to (\S+) \.\.\.(?:\n\n|$)`)
	readShowing    = regexp.MustCompile(`\n\(Showing lines (\d+)-(\d+) of (\d+)\. Use offset=\d+ to continue\.\)`)
	readCapped     = regexp.MustCompile(`\n\(Output capped at 50 KB\. Showing lines (\d+)-(\d+)\. Use offset=\d+ to continue\.\)`)
	readLegacyMore = regexp.MustCompile(`\n\((?:File has more lines|Output truncated at \d+ bytes)\. Use 'offset' parameter to read beyond line \d+\)`)
	readLongLine   = "... (line truncated to 2000 chars)"
	globCap        = "\n\n(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
	grepCapHead    = regexp.MustCompile(`^Found \d+ matches \((?:more matches available|showing first \d+)\)`)
	grepCapTail    = regexp.MustCompile(`\n\n\(Results truncated(?:: showing \d+ of \d+ matches \(\d+ hidden\))?\. Consider using a more specific path or pattern\.\)$`)
)

// Detect finds the truncation markers in a model-visible text of a tool and
// returns the facts, or nil when the text was not truncated. meta is the
// call's stored metadata (opencode's outputPath is preferred to the path in
// the marker).
func Detect(tool, text string, meta json.RawMessage, spill SpillFinder) *model.Truncation {
	t := detect(tool, text)
	if t == nil {
		return nil
	}
	if p := metaOutputPath(meta); p != "" {
		t.SpillPath = p
	}
	t.SeenLines, t.SeenBytes = CountLines(unmarked(text, t.Markers)), len(text)
	t.FullLines, t.FullBytes = -1, -1
	if spill != nil && t.SpillPath != "" {
		if path, lines, bytes, ok := spill.FindSpill(t.SpillPath); ok {
			t.SpillFound, t.FullLines, t.FullBytes = path, lines, bytes
		}
	}
	if m := readShowing.FindStringSubmatch(text); m != nil && t.FullLines < 0 {
		t.FullLines, _ = strconv.Atoi(m[3])
	}
	return t
}

func detect(tool, text string) *model.Truncation {
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
	if m := v2Bound.FindStringSubmatchIndex(text); m != nil {
		return &model.Truncation{
			Kind:      model.TruncV2Bound,
			Markers:   []model.Span{{Start: m[0], End: m[1]}},
			SpillPath: text[m[2]:m[3]],
		}
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
			if m := grepCapTail.FindStringIndex(text); m != nil {
				t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
			}
			return t
		}
	}
	return nil
}

func detectRead(text string) *model.Truncation {
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
	for _, rule := range []struct {
		re   *regexp.Regexp
		kind model.TruncationKind
	}{{readShowing, model.TruncReadLines}, {readCapped, model.TruncReadBytes}, {readLegacyMore, model.TruncReadLines}} {
		if m := rule.re.FindStringIndex(text); m != nil {
			mark(rule.kind, m[0]+1, m[1]) // the footer, without its leading newline
			t.Kind = rule.kind            // a footer outranks cut lines
		}
	}
	return t
}

// unmarked returns text without the marker spans.
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

func metaOutputPath(meta json.RawMessage) string {
	var m struct {
		OutputPath string `json:"outputPath"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.OutputPath
}
