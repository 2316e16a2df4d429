package tui

import (
	"bytes"
	"io"
	"regexp"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"
)

// End to end: a real program with a NO_COLOR (Ascii) profile opens a
// session, switches to the Wire pane, and quits; no colour reaches the
// output.
func TestEndToEndNoColor(t *testing.T) {
	tm := teatest.NewTestModel(t, New(fakeOpts(t)),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	var seen bytes.Buffer
	waitFor := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			return bytes.Contains(seen.Bytes(), []byte(s))
		}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	waitFor("Oracle scenario run")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor("Calls 8")
	tm.Type("3")
	waitFor("OpenAI Responses")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	rest, _ := io.ReadAll(tm.FinalOutput(t))
	seen.Write(rest)
	final := tm.FinalModel(t).(Model)
	require.Equal(t, pageSession, final.page)
	require.Equal(t, paneWire, final.current().pane)
	// Ascii profile: attributes may stay, colours may not
	colour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])(;[0-9;]*)?m`)
	for _, m := range colour.FindAll(seen.Bytes(), -1) {
		require.NotRegexp(t, `[;\[](38|48);`, string(m), "colour escape %q", m)
		require.NotRegexp(t, `[;\[]3[0-7][;m]`, string(m), "colour escape %q", m)
	}
}
