// Package fuzzing is what the fuzz targets share: seeds cut from the
// recorded fixtures (internal/fixtures) and the properties of a
// model-visible result that every target checks on what it decoded.
package fuzzing

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/model"
)

// Files returns the files of every fixture of agent (a testdata folder:
// opencode, claude-code, codex, gemini-cli) for which match is true.
func Files(tb testing.TB, agent string, match func(path string) bool) []string {
	tb.Helper()
	var out []string
	for _, f := range fixtures.All(tb) {
		if f.Agent != agent {
			continue
		}
		filepath.WalkDir(f.Dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && match(path) {
				out = append(out, path)
			}
			return nil
		})
	}
	if len(out) == 0 {
		tb.Fatalf("no %s fixture file to seed from", agent)
	}
	return out
}

// Read returns the file's bytes, failing tb if it cannot be read.
func Read(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Windows cuts a JSON Lines file into seeds a fuzzer can work on: from
// each line, the run of up to n lines that fits in max bytes (a line
// longer than max alone is left out). Runs keep what spans lines (a call,
// then its result) while staying small.
func Windows(data []byte, n, max int) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out [][]byte
	for i := range lines {
		size, j := 0, i
		for j < len(lines) && j-i < n && size+len(lines[j]) <= max {
			size += len(lines[j])
			j++
		}
		if j > i {
			out = append(out, bytes.Join(lines[i:j], nil))
		}
	}
	return out
}

// CheckVisible checks the properties of v, what formatters.Visible gave
// for call without a spill finder: its text is its result's, bounded by
// what the call stores, and its truncation facts fit the text.
func CheckVisible(t testing.TB, call *model.ToolCall, v model.Visible) {
	t.Helper()
	if v.Text != formatters.ResultText(v.Result) {
		t.Fatalf("text %q is not the result's %q", v.Text, formatters.ResultText(v.Result))
	}
	if bound := storedSize(call); len(v.Text) > 6*bound+256 {
		t.Fatalf("visible text of %d bytes from a call storing %d", len(v.Text), bound)
	}
	tr := v.Truncation
	if tr == nil {
		return
	}
	if tr.Kind == "" || len(tr.Markers) == 0 {
		t.Fatalf("truncation without kind or marker: %+v", tr)
	}
	for _, m := range tr.Markers {
		if m.Start < 0 || m.Start >= m.End || m.End > len(v.Text) {
			t.Fatalf("marker %+v outside the text of %d bytes", m, len(v.Text))
		}
	}
	if tr.SeenBytes != len(v.Text) || tr.SeenLines < 0 || tr.SeenLines > formatters.CountLines(v.Text) {
		t.Fatalf("seen %d lines / %d bytes of a text of %d lines / %d bytes", tr.SeenLines, tr.SeenBytes, formatters.CountLines(v.Text), len(v.Text))
	}
	if tr.FullBytes != -1 || tr.SpillFound != "" {
		t.Fatalf("full size %d or spill %q known without a spill finder", tr.FullBytes, tr.SpillFound)
	}
}

// storedSize is how many bytes a call stores that its result is made of.
func storedSize(c *model.ToolCall) int {
	n := len(c.Output) + len(c.Error) + len(c.Metadata) + len(c.Structured) + len(c.ErrorValue)
	for _, f := range c.Attachments {
		n += len(f.URL) + len(f.Mime) + len(f.Filename)
	}
	for _, x := range c.Content {
		n += len(x.Text) + len(x.URI) + len(x.Mime) + len(x.Name)
	}
	if c.Sent != nil {
		n += len(formatters.ResultText(*c.Sent))
		for _, x := range c.Sent.Content {
			n += len(x.Text) + len(x.URI)
		}
	}
	return n
}
