package tui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCopilotSaysWhatIsNotStored: on a Copilot session the result pane of
// a failed call says its sent text is not stored, the Wire pane of a
// request in its run counts the places not stored as sent, and the
// spilled call says its spill was deleted when Copilot exited.
func TestCopilotSaysWhatIsNotStored(t *testing.T) {
	h := openStores(t, 160, 40, "../testdata/copilot/copilot/data")
	openSession(t, h, "GitHub Copilot CLI")
	h.selectCall("call_DYUwXXQcG8laCp8dIA02XOPs") // the failed edit, run 1
	h.key("2")
	require.Contains(t, h.plain(), "why: Copilot stores only the short error.message of a failed call")
	h.key("3")
	require.Contains(t, h.plain(), "not stored as sent")
	h.selectCall("call_qOEBgTVRra3Znwn52NzDFBAE") // seq 1 4400, spilled
	h.key("2")
	out := h.plain()
	require.Contains(t, strings.Join(strings.Fields(out), " "), "spill file is gone (deleted when Copilot exited)")
	h.key("o")
	require.Contains(t, h.m.status.text, "deleted when Copilot exited")
}
