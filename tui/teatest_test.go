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
	tm := startProgram(t, fakeOpts(t), 100, 30)
	waitFor, seen := tm.wait, &tm.seen
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

// program is a real program on opts at w×h with the Ascii profile; what
// it has printed is kept in seen.
type program struct {
	*teatest.TestModel
	t    *testing.T
	seen bytes.Buffer
}

func startProgram(t *testing.T, opts Options, w, h int) *program {
	t.Helper()
	tm := teatest.NewTestModel(t, New(opts),
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	return &program{TestModel: tm, t: t}
}

// wait blocks until s is in what the program printed (since seen was last
// reset).
func (p *program) wait(s string) {
	p.t.Helper()
	teatest.WaitFor(p.t, p.Output(), func(b []byte) bool {
		p.seen.Write(b)
		return bytes.Contains(p.seen.Bytes(), []byte(s))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}
