package claudecode

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"correx/sessions"
)

// BenchmarkClaudeLoad reads a generated Claude Code 2.1.332 session
// (testdata/gen) of 200 and of 800 calls, every step with its api-request
// record: the ns/op ratio of the two shows how loading grows with the
// calls (4× the calls should cost about 4× the time).
func BenchmarkClaudeLoad(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "gen")
	build := exec.Command("go", "build", "-o", bin, "./testdata/gen")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the generator: %v\n%s", err, out)
	}
	for _, calls := range []int{200, 800} {
		out := filepath.Join(dir, fmt.Sprint(calls))
		gen := exec.Command(bin, "-agent", "claude-code", "-calls", fmt.Sprint(calls), "-mb", "8", "-out", out, "-quiet",
			"-fixtures", filepath.Join("..", "..", "testdata"))
		id, err := gen.Output()
		if err != nil {
			b.Fatalf("gen: %v", err)
		}
		st, err := sessions.Open(out)
		if err != nil {
			b.Fatal(err)
		}
		file, err := st.(*claudeStore).FileOf(context.Background(), strings.TrimSpace(string(id)), out, st.List)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			for b.Loop() {
				sess, err := readClaudeTranscript(file, out)
				if err != nil || len(sess[0].Warnings) > 0 {
					b.Fatalf("%v %q", err, sess[0].Warnings)
				}
			}
		})
	}
}
