// Package props states correx's facts as properties, which the property
// tests check on every fixture and the fuzz targets on every input, and
// cuts fuzz seeds from the recorded fixtures (internal/fixtures).
package props

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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
// what the call stores, and its truncation facts hold (CheckFacts).
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
	if tr.Kind == "" || tr.SpillFound != "" {
		t.Fatalf("truncation without kind, or with a spill file found without a spill finder: %+v", tr)
	}
	CheckFacts(t, call.Tool+" "+call.CallID, v.Text, tr, nil)
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

// keptNothing says whether opencode's cut kept none of the output: its
// head (generic) or tail (bash) is one line over the 51,200-byte cap
// (bash then shows "(no output)").
func keptNothing(tr *model.Truncation, readFile func(string) ([]byte, error)) bool {
	b, err := readFile(tr.SpillFound)
	if err != nil {
		return false
	}
	const maxBytes = 51200
	switch tr.Kind {
	case model.TruncGenericHead:
		first, _, _ := bytes.Cut(b, []byte("\n"))
		return len(first) > maxBytes
	case model.TruncBashTail:
		lines := bytes.Split(b, []byte("\n"))
		return len(lines) > 1 && len(lines[len(lines)-1]) == 0 && len(lines[len(lines)-2])+1 > maxBytes
	}
	return false
}

// CheckFacts checks one truncation's facts on the model-visible text:
// markers, seen ranges and added pieces cover it exactly; what the model
// saw is no more than the full output; each seen range of a spill file
// that is there (read with readFile) is placed in it, byte for byte and in
// order. It returns how many seen ranges were placed.
func CheckFacts(t testing.TB, name, text string, tr *model.Truncation, readFile func(string) ([]byte, error)) int {
	t.Helper()
	type piece struct {
		span model.Span
		what string
	}
	var all []piece
	for _, m := range tr.Markers {
		all = append(all, piece{m, "marker"})
	}
	for _, a := range tr.Added {
		all = append(all, piece{a.Span, "added " + a.What})
	}
	for _, r := range tr.Seen {
		all = append(all, piece{r.Text, "seen"})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].span.Start < all[j].span.Start })
	at := 0
	for _, p := range all {
		if p.span.Start != at || p.span.End <= p.span.Start || p.span.End > len(text) {
			t.Errorf("%s: %s at %d–%d: the pieces must cover the text exactly, next expected at %d (text %d bytes)", name, p.what, p.span.Start, p.span.End, at, len(text))
			return 0
		}
		at = p.span.End
	}
	if at != len(text) {
		t.Errorf("%s: the pieces end at %d of %d bytes", name, at, len(text))
	}
	if len(tr.Markers) == 0 && (tr.Notice == nil || tr.Notice.Where == "") {
		t.Errorf("%s: a truncation without a marker or a notice saying where it is", name)
	}

	fullLines, fullBytes := tr.Full()
	if (fullLines < 0 || fullBytes < 0) && tr.FullUnknown == "" {
		t.Errorf("%s: full size unknown without a reason", name)
	}
	if fullLines >= 0 && tr.SeenLines > fullLines || fullBytes >= 0 && tr.SeenBytes > fullBytes {
		t.Errorf("%s: saw %d lines / %d bytes of %d / %d", name, tr.SeenLines, tr.SeenBytes, fullLines, fullBytes)
	}
	if tr.SpillFound != "" && len(tr.Seen) == 0 && !keptNothing(tr, readFile) {
		t.Errorf("%s: a spill file and nothing seen", name)
	}

	placed, lastEnd := 0, 0
	var spill []byte
	for _, r := range tr.Seen {
		piece := text[r.Text.Start:r.Text.End]
		if r.Numbered {
			checkNumbered(t, name, piece, r)
			continue
		}
		if r.JSONString {
			var content string
			if err := json.Unmarshal([]byte(`"`+piece+`"`), &content); err != nil || r.Lines == nil || r.Lines.Last-r.Lines.First+1 != max(formatters.CountLines(content), 1) {
				t.Errorf("%s: a JSON string range %d–%d that is not its lines %+v (%v)", name, r.Text.Start, r.Text.End, r.Lines, err)
			}
			continue
		}
		if tr.SpillFound == "" {
			continue
		}
		if !r.Placed {
			t.Errorf("%s: seen range %d–%d not placed in its spill file %s", name, r.Text.Start, r.Text.End, tr.SpillFound)
			continue
		}
		if spill == nil {
			var err error
			if spill, err = readFile(tr.SpillFound); err != nil {
				t.Fatal(err)
			}
		}
		if r.Bytes.Start < lastEnd || string(spill[r.Bytes.Start:r.Bytes.End]) != piece {
			t.Errorf("%s: seen range %d–%d is not at %d–%d of the spill file, in order", name, r.Text.Start, r.Text.End, r.Bytes.Start, r.Bytes.End)
		}
		lastEnd = r.Bytes.End
		first := strings.Count(string(spill[:r.Bytes.Start]), "\n") + 1
		last := first + strings.Count(strings.TrimSuffix(piece, "\n"), "\n")
		if r.Lines == nil || *r.Lines != (model.LineRange{First: first, Last: last}) {
			t.Errorf("%s: seen range %d–%d: lines %+v, the spill file says %d–%d", name, r.Text.Start, r.Text.End, r.Lines, first, last)
		}
		startsLine := r.Bytes.Start == 0 || spill[r.Bytes.Start-1] == '\n'
		endsLine := r.Bytes.End == len(spill) || strings.HasSuffix(piece, "\n") || spill[r.Bytes.End] == '\n'
		if r.PartialFirst == startsLine || r.PartialLast == endsLine {
			t.Errorf("%s: seen range %d–%d: partial first %v, last %v", name, r.Text.Start, r.Text.End, r.PartialFirst, r.PartialLast)
		}
		placed++
	}
	return placed
}

// checkNumbered: a read range's lines are numbered from its first line to
// its last, one by one (opencode: "N: ", Claude Code: "N" and a tab or ":").
func checkNumbered(t testing.TB, name, piece string, r model.SeenRange) {
	t.Helper()
	lines := strings.Split(piece, "\n")
	if r.Lines == nil {
		// unknown only when the numbers do not run one by one
		digits := strings.IndexFunc(lines[0], func(c rune) bool { return c < '0' || c > '9' })
		first, _ := strconv.Atoi(lines[0][:max(digits, 0)])
		for i, line := range lines {
			if !numberedAs(line, first+i) {
				return
			}
		}
		t.Errorf("%s: read range %d–%d without line numbers", name, r.Text.Start, r.Text.End)
		return
	}
	for i, line := range lines {
		if !numberedAs(line, r.Lines.First+i) {
			t.Errorf("%s: read range line %d does not start with its number %d", name, i, r.Lines.First+i)
			return
		}
		if r.Lines.First+i > r.Lines.Last {
			t.Errorf("%s: read range runs past line %d", name, r.Lines.Last)
			return
		}
	}
}

// numberedAs says line starts with number n and its separator: opencode's
// "N: " (its read writes the space even before an empty line), Claude
// Code's "N\t".
func numberedAs(line string, n int) bool {
	rest, ok := strings.CutPrefix(line, strconv.Itoa(n))
	return ok && (strings.HasPrefix(rest, ": ") || strings.HasPrefix(rest, "\t"))
}
