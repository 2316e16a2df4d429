package tui

import (
	"os"
	"testing"
)

// TestMain removes the spool directory the tests' conversations made, as
// Run does when the TUI ends.
func TestMain(m *testing.M) {
	code := m.Run()
	closeSpools()
	os.Exit(code)
}
