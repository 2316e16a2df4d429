package formatters

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
)

// The rules below are opencode 1.18.33's toModelMessages (message-v2.ts);
// the literals are the ones it sends (see shared/reference/opencode-1.18-tool-output.md §4).

func TestVisibleStates(t *testing.T) {
	cases := []struct {
		name string
		call model.ToolCall
		typ  model.ResultType
		text string
		why  bool
	}{
		{"completed output verbatim", model.ToolCall{Status: model.StatusCompleted, Output: "a\r\n\x1b[31mb\x1b[0m"}, model.ResultText, "a\r\n\x1b[31mb\x1b[0m", false},
		{"empty output stays empty", model.ToolCall{Status: model.StatusCompleted, Output: ""}, model.ResultText, "", false},
		{"error verbatim", model.ToolCall{Status: model.StatusError, Error: "File not found: /home/user/proj/x"}, model.ResultError, "File not found: /home/user/proj/x", false},
		{"compacted", model.ToolCall{Status: model.StatusCompleted, Output: "long", Compacted: true,
			Attachments: []model.File{{Mime: "image/png", URL: "data:image/png;base64,AA=="}}}, model.ResultText, "[Old tool result content cleared]", true},
		{"pending", model.ToolCall{Status: model.StatusPending}, model.ResultError, "[Tool execution was interrupted]", true},
		{"running", model.ToolCall{Status: model.StatusRunning}, model.ResultError, "[Tool execution was interrupted]", true},
		{"interrupted with output", model.ToolCall{Status: model.StatusError, Error: "Tool execution aborted",
			Metadata: json.RawMessage(`{"interrupted":true,"output":"partial\n"}`)}, model.ResultText, "partial\n", true},
		{"interrupted without output", model.ToolCall{Status: model.StatusError, Error: "Tool execution aborted",
			Metadata: json.RawMessage(`{"interrupted":true}`)}, model.ResultError, "Tool execution aborted", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Visible(&c.call, nil)
			assert.Equal(t, c.typ, v.Result.Type)
			assert.Equal(t, c.text, v.Text)
			assert.Equal(t, c.why, v.Why != "", "why: %q", v.Why)
		})
	}
}

func TestVisibleAttachmentsMakeContent(t *testing.T) {
	call := model.ToolCall{Tool: "read", Status: model.StatusCompleted, Output: "Image read successfully",
		Attachments: []model.File{{Mime: "image/png", URL: "data:image/png;base64,iVBOR", Filename: "pixel.png"}}}
	v := Visible(&call, nil)
	require.Equal(t, model.ResultContent, v.Result.Type)
	assert.Equal(t, []model.ToolContent{
		{Type: model.ContentText, Text: "Image read successfully"},
		{Type: model.ContentFile, URI: "data:image/png;base64,iVBOR", Mime: "image/png", Name: "pixel.png"},
	}, v.Result.Content)
	assert.Equal(t, "Image read successfully", v.Text)
}

type fakeSpill map[string][2]int

func (f fakeSpill) FindSpill(p string) (string, int, int, bool) {
	n, ok := f[p]
	return p, n[0], n[1], ok
}

func TestDetectMarkers(t *testing.T) {
	const out = "/home/user/.local/share/opencode/tool-output/tool_1"
	bash := "...output truncated...\n\nFull output saved to: " + out + "\n\n99999\n100000\n"
	head := "l1\nl2\n\n...1001 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: " + out +
		"\nUse the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
	v2 := "1\n2\n\n... output truncated; full content saved to " + out + " ...\n\n9\n10"
	read := "<path>/p/big.txt</path>\n<type>file</type>\n<content>\n1: a\n2: WW... (line truncated to 2000 chars)\n\n(Showing lines 1-2 of 3000. Use offset=3 to continue.)\n</content>"
	glob := "/p/a\n/p/b\n\n(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
	grep := "Found 100 matches (more matches available)\n/p/a:\n  Line 1: x\n\n(Results truncated. Consider using a more specific path or pattern.)"
	cases := []struct {
		tool, text string
		kind       model.TruncationKind
		markers    []string
		spill      string
	}{
		{"bash", bash, model.TruncBashTail, []string{"...output truncated...\n\nFull output saved to: " + out + "\n\n"}, out},
		{"webfetch", head, model.TruncGenericHead, []string{head[len("l1\nl2"):]}, out},
		{"bash", v2, model.TruncV2Bound, []string{"\n\n... output truncated; full content saved to " + out + " ...\n\n"}, out},
		{"read", read, model.TruncReadLines, []string{"... (line truncated to 2000 chars)", "\n\n(Showing lines 1-2 of 3000. Use offset=3 to continue.)"}, ""},
		{"glob", glob, model.TruncGlobCap, []string{glob[len("/p/a\n/p/b"):]}, ""},
		{"grep", grep, model.TruncGrepCap, []string{"Found 100 matches (more matches available)", "\n\n(Results truncated. Consider using a more specific path or pattern.)"}, ""},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			tr := Detect(c.tool, c.text, nil, fakeSpill{out: {100000, 588895}})
			require.NotNil(t, tr)
			assert.Equal(t, c.kind, tr.Kind)
			var got []string
			for _, m := range tr.Markers {
				got = append(got, c.text[m.Start:m.End])
			}
			assert.Equal(t, c.markers, got)
			assert.Equal(t, c.spill, tr.SpillPath)
			if c.spill != "" {
				lines, bytes := tr.Full()
				assert.Equal(t, [2]int{100000, 588895}, [2]int{lines, bytes})
			}
		})
	}
	t.Run("read footer gives the full line count without a spill", func(t *testing.T) {
		lines, bytes := Detect("read", read, nil, nil).Full()
		assert.Equal(t, [2]int{3000, -1}, [2]int{lines, bytes})
	})
	t.Run("bash tail counts what the model saw", func(t *testing.T) {
		tr := Detect("bash", bash, nil, nil)
		assert.Equal(t, 2, tr.SeenLines)
		assert.Equal(t, len("99999\n100000\n"), tr.SeenBytes)
		assert.Nil(t, tr.FullBytes)
		assert.Equal(t, "the spill file was not looked for", tr.FullUnknown)
	})
	t.Run("markers only count for their tools", func(t *testing.T) {
		assert.Nil(t, Detect("read", bash, nil, nil))
		assert.Nil(t, Detect("bash", glob, nil, nil))
		assert.Nil(t, Detect("bash", "all fine\n", nil, nil))
	})
	t.Run("metadata outputPath wins", func(t *testing.T) {
		tr := Detect("bash", bash, json.RawMessage(`{"truncated":true,"outputPath":"/elsewhere/tool_2"}`), nil)
		assert.Equal(t, "/elsewhere/tool_2", tr.SpillPath)
		assert.True(t, tr.SpillGone())
	})
}

func TestCountLines(t *testing.T) {
	for s, n := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n": 1, "a\n\n": 2} {
		assert.Equal(t, n, CountLines(s), "%q", s)
	}
}
