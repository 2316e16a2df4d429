package qwencode

// Qwen Code's truncation (0.24.4 tools/truncation.ts, truncateAndSaveToFile):
// a tool's text over its budget (run_shell_command 30,000 characters with a
// 4,000-character preview; grep_search 20,000; agent 32,000 keeping the
// tail; the others tools.truncateToolOutputThreshold, 25,000, or more than
// tools.truncateToolOutputLines, 1,000) is saved whole to
// <runtime>/tmp/<sha256(project)>/<tool>_<12 hex>.output and the model gets
//
//	Tool output was too large and has been truncated.
//	The full output has been saved to: <path>
//	…
//	Truncated part of the output:
//	<head lines>\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n<tail lines>
//
// The head's last line, when the budget ends inside it, is cut and ends
// with "..."; the tail's first line then starts with "...". A head ending
// or a tail starting with "..." is taken as that cut (a line of the output
// that itself ends or starts with "..." is then counted three characters
// short). When the file cannot be written the head and tail come with
// "\n[Note: Could not save full output to file]" instead of the header.

import (
	"regexp"
	"strings"

	"correx/formatters"
	"correx/model"
)

// TruncSpill is the kind of Qwen Code's head-and-tail cut.
const TruncSpill model.TruncationKind = "qwen-spill"

var (
	spillHeader = regexp.MustCompile(`^Tool output was too large and has been truncated\.\nThe full output has been saved to: ([^\n]+)\nTo read the complete output, use the read_file tool with the absolute file path above\.\nThe truncated output below shows the beginning and end of the content\. The marker '\.\.\. \[CONTENT TRUNCATED\] \.\.\.' indicates where content was removed\.\n\nTruncated part of the output:\n`)
	separator   = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"
	notSaved    = "\n[Note: Could not save full output to file]"
	ellipsis    = "..."
)

var markers = formatters.AgentMarkers{
	Agent:  Agent,
	Detect: detect,
	Kinds: map[model.TruncationKind]formatters.KindShape{
		TruncSpill: {Head: true, Tail: true, CharCut: true,
			Legend: "Qwen Code kept the head and tail of a big output; the whole text in ~/.qwen/tmp/<project hash>/"},
	},
}

func detect(_, text string) *model.Truncation {
	t := &model.Truncation{Kind: TruncSpill}
	body := 0
	if m := spillHeader.FindStringSubmatchIndex(text); m != nil {
		t.Markers = append(t.Markers, model.Span{Start: 0, End: m[1]})
		t.SpillPath = text[m[2]:m[3]]
		body = m[1]
	} else if !strings.HasSuffix(text, notSaved) {
		return nil
	}
	end := len(text)
	if t.SpillPath == "" {
		end -= len(notSaved)
		t.Markers = append(t.Markers, model.Span{Start: end, End: len(text)})
	}
	sep := strings.Index(text[body:end], separator)
	if sep < 0 {
		if t.SpillPath == "" {
			return nil
		}
		return t // a preview too small for the separator
	}
	sep += body
	t.Markers = append(t.Markers, model.Span{Start: sep, End: sep + len(separator)})
	if head := text[body:sep]; len(head) > len(ellipsis) && strings.HasSuffix(head, ellipsis) {
		t.Markers = append(t.Markers, model.Span{Start: sep - len(ellipsis), End: sep})
	}
	if tail := text[sep+len(separator) : end]; len(tail) > len(ellipsis) && strings.HasPrefix(tail, ellipsis) {
		s := sep + len(separator)
		t.Markers = append(t.Markers, model.Span{Start: s, End: s + len(ellipsis)})
	}
	return t
}
