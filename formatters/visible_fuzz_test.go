package formatters_test

import (
	"context"
	"encoding/json"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/fuzzing"
	"correx/model"
	"correx/sessions"
)

// everySpill finds every spill file, of a size of its own.
type everySpill struct{}

func (everySpill) FindSpill(recorded string) (string, int, int, bool) {
	return "/found" + recorded, 7, 99, true
}

// cut keeps the two ends of a long text, where markers are.
func cut(s string) string {
	const end = 16 << 10
	if len(s) <= 2*end {
		return s
	}
	return s[:end] + s[len(s)-end:]
}

// FuzzVisible: the truncation detectors and the model-visible result, on
// the calls of every fixture and their mutations. Without a spill finder
// the facts fit the text (fuzzing.CheckVisible); a spill finder only adds
// the full size and where the file is; a completed call shows its stored
// output byte for byte, a failed one its error.
func FuzzVisible(f *testing.F) {
	for _, fx := range fixtures.All(f) {
		st, err := sessions.Open(fx.Source)
		if err != nil {
			f.Fatalf("%s: %v", fx.ID(), err)
		}
		infos, err := st.List(context.Background())
		if err != nil {
			f.Fatalf("%s: %v", fx.ID(), err)
		}
		for _, in := range infos {
			s, err := st.Load(context.Background(), in.ID)
			if err != nil {
				f.Fatalf("%s: %v", fx.ID(), err)
			}
			for _, m := range s.Messages {
				for _, p := range m.Parts {
					if c := p.Tool; c != nil {
						text := formatters.Visible(c, nil).Text
						f.Add(c.Tool, string(c.Status), cut(text), cut(c.Error), []byte(c.Metadata), c.IsV2())
					}
				}
			}
		}
		st.Close()
	}
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
		fuzzing.CheckVisible(t, call, v)
		if !v2 && call.Status == model.StatusCompleted && v.Text != output {
			t.Fatalf("completed call shows %q, stored %q", v.Text, output)
		}
		if !v2 && call.Status == model.StatusError && v.Text != errText && v.Why == "" {
			t.Fatalf("failed call shows %q, stored error %q", v.Text, errText)
		}
		found := formatters.Visible(call, everySpill{})
		if (v.Truncation == nil) != (found.Truncation == nil) || found.Text != v.Text {
			t.Fatalf("a spill finder changed the result: %+v, %+v", v.Truncation, found.Truncation)
		}
		if tr, ft := v.Truncation, found.Truncation; tr != nil {
			if ft.Kind != tr.Kind || ft.SpillPath != tr.SpillPath || ft.SeenLines != tr.SeenLines || ft.SeenBytes != tr.SeenBytes {
				t.Fatalf("a spill finder changed the facts: %+v, %+v", tr, ft)
			}
			if tr.SpillPath != "" && (ft.SpillFound != "/found"+tr.SpillPath || ft.FullLines != 7 || ft.FullBytes != 99) {
				t.Fatalf("found spill not reported: %+v", ft)
			}
		}
	})
}
