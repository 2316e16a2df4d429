package crush

import (
	"regexp"

	"correx/formatters"
	"correx/model"
)

// TruncMiddle is Crush's cut of a shell output (tools.TruncateOutput):
// stdout and stderr are each cut on their own when wider than 30,000
// display columns (ANSI escapes do not count), keeping the first and the
// last 15,000 columns, mid-line, joined by "\n\n... [N lines truncated]
// ...\n\n" (N: the newlines dropped). bash and job_output use it.
const TruncMiddle model.TruncationKind = "crush-middle"

var middle = regexp.MustCompile(`\n\n\.\.\. \[\d+ lines truncated\] \.\.\.\n\n`)

// footer is what bash adds after the output (formatOutput): the exit code
// line (after Go's "exit status N" when there was no stderr) and the
// working directory.
var footer = regexp.MustCompile(`(?:\n(?:exit status \d+\n)?(?:Exit code \d+|Command was aborted before completion))?\n\n<cwd>[^\n]*</cwd>$`)

func init() {
	formatters.RegisterMarkers(formatters.AgentMarkers{
		Agent:  Agent,
		Detect: detect,
		Kinds: map[model.TruncationKind]formatters.KindShape{TruncMiddle: {
			Head: true, Tail: true, CharCut: true,
			Legend:     "Crush cut the middle of a shell output over 30,000 columns (stdout and stderr each)",
			UnknownWhy: "Crush keeps no full copy (no spill file; metadata.output holds the same cut text)",
			Footer:     footer, FooterWhat: "Crush's exit code and <cwd> lines",
		}},
	})
}

func detect(tool, text string) *model.Truncation {
	if tool != "bash" && tool != "job_output" {
		return nil
	}
	ms := middle.FindAllStringIndex(text, -1)
	if ms == nil {
		return nil
	}
	t := &model.Truncation{Kind: TruncMiddle}
	for _, m := range ms {
		t.Markers = append(t.Markers, model.Span{Start: m[0], End: m[1]})
	}
	return t
}
