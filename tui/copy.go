package tui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// maxCopyBytes is the largest pane text y copies to the clipboard.
const maxCopyBytes = 16 << 20

// copyPane copies a pane's text, or its file fl when it has one, to the
// clipboard with OSC 52; a file is read in the command, and one over
// maxCopyBytes is not.
func (a *app) copyPane(fl *fileLines, what, text string) tea.Cmd {
	if fl == nil {
		a.info(fmt.Sprintf("copied %s of %s to the clipboard (OSC 52)", humanBytes(len(text)), what))
		return tea.SetClipboard(text)
	}
	if fl.size > maxCopyBytes {
		a.warn(fmt.Sprintf("%s is %s, more than the %s copied to the clipboard: O opens it in $PAGER", what, humanBytes(int(fl.size)), humanBytes(maxCopyBytes)))
		return nil
	}
	a.info(fmt.Sprintf("copied %s of %s to the clipboard (OSC 52)", humanBytes(int(fl.size)), what))
	return func() tea.Msg {
		text, err := fl.readAll()
		if err != nil {
			return copyFailedMsg{err}
		}
		return tea.SetClipboard(text)()
	}
}

// copyFailedMsg tells that a file to copy could not be read.
type copyFailedMsg struct{ err error }

func pagerCmd(path string) tea.Cmd {
	pager := strings.Fields(os.Getenv("PAGER"))
	if len(pager) == 0 {
		pager = []string{"less"}
	}
	c := exec.Command(pager[0], append(pager[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return pagerDoneMsg{err} })
}
