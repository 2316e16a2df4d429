package formatters

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"correx/model"
)

// scanPieces writes text to a scan for agent and tool in pieces cut at
// cuts (byte offsets, any order), and tells what it found.
func scanPieces(t testing.TB, agent model.Agent, tool, text string, cuts []int) bool {
	s, ok := NewLiteralScan(agent, tool)
	if !ok {
		t.Fatalf("no scan for %s's %s", agent, tool)
	}
	at := 0
	for _, c := range cuts {
		if c > at && c < len(text) {
			s.WriteString(text[at:c])
			at = c
		}
	}
	s.WriteString(text[at:])
	return s.Found()
}

// A scan finds a literal exactly when the whole text holds one, however
// the text is cut into pieces; and a text in which it finds none has no
// truncation for detect to find. Texts are built of the markers' own
// pieces, whole and cut, so that both happen.
func TestLiteralScanFindsWhatDetectNeeds(t *testing.T) {
	var frags []string
	for _, tool := range []string{"bash", "read", "glob", "grep", "edit"} {
		lits, _ := markerLiterals(model.AgentOpencode, tool)
		for _, l := range lits {
			frags = append(frags, l, l[:len(l)/2], l[len(l)/2:], l[:len(l)-1])
		}
	}
	frags = append(frags, "\n\n", "...", "42", " lines", "/tmp/out.txt\n", "<path>", "Found 100 matches (showing first 100)", "é", "\n")
	r := rand.New(rand.NewPCG(3, 4))
	clear, marked := 0, 0
	for i := range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(frags[r.IntN(len(frags))])
		}
		text := b.String()
		cuts := make([]int, r.IntN(6))
		for j := range cuts {
			cuts[j] = r.IntN(len(text) + 1)
		}
		slices.Sort(cuts)
		for _, agent := range []model.Agent{model.AgentOpencode} {
			tool := []string{"bash", "read", "glob", "grep", "edit"}[i%5]
			lits, _ := markerLiterals(agent, tool)
			want := false
			for _, l := range lits {
				want = want || strings.Contains(text, l)
			}
			if got := scanPieces(t, agent, tool, text, cuts); got != want {
				t.Fatalf("%s %s %q cut at %v: found %t, the whole text holds a literal: %t", agent, tool, text, cuts, got, want)
			}
			if want {
				marked++
				continue
			}
			clear++
			if tr := detect(agent, tool, text); tr != nil {
				t.Fatalf("%s %s %q: no literal, yet detect found %s", agent, tool, text, tr.Kind)
			}
		}
	}
	if clear < 1000 || marked < 1000 {
		t.Fatalf("texts without a literal %d, with one %d: want both", clear, marked)
	}
	// detect does find markers in such texts: the check above can fail
	found := 0
	for _, tool := range []string{"bash", "read", "glob", "grep"} {
		for _, text := range []string{
			bashTailPrefix + "/tmp/x\n\nrest",
			"out\n\n...3 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /tmp/y\nUse Read.",
			"<path>/a</path>\n<type>file</type>\n<content>\n1: x" + readLongLine,
			"a\nb" + globCap,
			"Found 300 matches (showing first 100)\nx",
		} {
			if detect(model.AgentOpencode, tool, text) != nil {
				found++
				if !scanPieces(t, model.AgentOpencode, tool, text, []int{len(text) / 3, len(text) / 2}) {
					t.Errorf("%s: detect found a marker in %q, the scan no literal", tool, text)
				}
			}
		}
	}
	if found < 6 {
		t.Fatalf("detect found %d markers among the samples, want some for every tool", found)
	}
}

// Agents whose rules are a driver's have no scan: their literals are not
// known.
func TestLiteralScanOnlyForKnownRules(t *testing.T) {
	for _, agent := range []model.Agent{model.AgentClaudeCode, model.AgentCodex, model.AgentGeminiCLI} {
		if _, ok := NewLiteralScan(agent, "bash"); ok {
			t.Errorf("%s: a scan, but its rules' literals are not known", agent)
		}
	}
}

func FuzzLiteralScan(f *testing.F) {
	f.Add("out\n\n...3 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /tmp/y\nx", 10, 40, "bash")
	f.Add(bashTailPrefix+"/tmp/x\n\nrest", 3, 7, "bash")
	f.Add("a"+globCap, 1, 50, "glob")
	f.Fuzz(func(t *testing.T, text string, c1, c2 int, tool string) {
		cuts := []int{c1, c2}
		slices.Sort(cuts)
		lits, _ := markerLiterals(model.AgentOpencode, tool)
		want := false
		for _, l := range lits {
			want = want || strings.Contains(text, l)
		}
		if got := scanPieces(t, model.AgentOpencode, tool, text, cuts); got != want {
			t.Fatalf("found %t, the whole text holds a literal: %t", got, want)
		}
		if !want && detect(model.AgentOpencode, tool, text) != nil {
			t.Fatalf("no literal, yet detect found a marker")
		}
	})
}
