package tui

// Every agent driver is registered in these tests (the properties over
// every fixture open them all).
import (
	"strings"
	"testing"

	"correx/model"
	_ "correx/sessions/all"
)

// TestBoundNoteOfDriverKinds: the pipeline's bounded stage says what a
// driver's kind of cut did, as its driver registered it
// (formatters.KindShape.Bound), and the shared note otherwise.
func TestBoundNoteOfDriverKinds(t *testing.T) {
	for kind, want := range map[model.TruncationKind]string{
		model.TruncClaudePersisted: "replaced by a 2 KB preview, full output persisted",
		model.TruncClaudeSaved:     "refused as too large, note added",
		model.TruncClaudeMiddle:    "middle cut, marker added",
	} {
		if got := boundNote(&model.Truncation{Kind: kind}); !strings.HasPrefix(got, want+" (") {
			t.Errorf("%s: %q", kind, got)
		}
	}
}
