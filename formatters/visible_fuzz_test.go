package formatters_test

import (
	"encoding/json"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/props"
	"correx/model"
)

// FuzzVisible: the truncation detectors and the model-visible result, on
// the calls of every fixture and their mutations. Without a spill file the
// result and its facts hold (props.CheckVisible); with one that holds just
// the one piece the model saw, the facts hold too, the full size is the file's and
// the seen ranges are placed in it (props.CheckFacts); a completed
// call shows its stored output byte for byte, a failed one its error.
func FuzzVisible(f *testing.F) {
	eachFixtureSession(f, func(_ fixtures.Fixture, _ model.SessionInfo, s *model.Session) {
		for _, m := range s.Messages {
			for _, p := range m.Parts {
				if c := p.Tool; c != nil {
					// whole: a text cut would not be the tool's (seedMax as the sessions' targets)
					if text := formatters.Visible(c, nil).Text; len(text)+len(c.Error) <= 32<<10 {
						f.Add(c.Tool, string(c.Status), text, c.Error, []byte(c.Metadata), c.IsV2())
					}
				}
			}
		}
	})
	f.Fuzz(func(t *testing.T, tool, status, output, errText string, meta []byte, v2 bool) {
		call := &model.ToolCall{CallID: "call_f", Tool: tool, Status: model.ToolStatus(status), Output: output, Error: errText}
		if json.Valid(meta) {
			call.Metadata = meta
		}
		if v2 {
			call.Content = []model.ToolContent{{Type: model.ContentText, Text: output}}
			call.Structured = call.Metadata
		}
		v := formatters.Visible(call, nil)
		props.CheckVisible(t, call, v)
		if !v2 && call.Status == model.StatusCompleted && v.Text != output {
			t.Fatalf("completed call shows %q, stored %q", v.Text, output)
		}
		if !v2 && call.Status == model.StatusError && v.Text != errText && v.Why == "" {
			t.Fatalf("failed call shows %q, stored error %q", v.Text, errText)
		}
		tr := v.Truncation
		if tr == nil || tr.SpillPath == "" || len(tr.Seen) != 1 {
			return // (what lies between two seen pieces is not known)
		}
		spill := memSpill{tr.SpillPath, v.Text[tr.Seen[0].Text.Start:tr.Seen[0].Text.End]}
		found := formatters.Visible(call, spill)
		ft := found.Truncation
		if found.Text != v.Text || ft == nil || ft.Kind != tr.Kind || ft.SpillFound != spill.path {
			t.Fatalf("a spill file changed the result or was not found: %+v, %+v", tr, ft)
		}
		if lines, bytes := ft.Full(); lines != formatters.CountLines(spill.content) || bytes != len(spill.content) {
			t.Fatalf("full %d lines / %d bytes, the spill file has %d / %d", lines, bytes, formatters.CountLines(spill.content), len(spill.content))
		}
		props.CheckFacts(t, tool, found.Text, ft, spill.read)
	})
}
