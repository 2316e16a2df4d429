package tui

import (
	"os"
	"testing"
)

// TestMain removes the spool directory the tests' conversations made, as
// Run does when the TUI ends.
func TestMain(m *testing.M) {
	// the synchronous harness would wait out every rest and then warm
	// (convCache.warm): the tests and benchmarks of warming turn it on
	warmAfter = 0
	code := m.Run()
	closeSpools()
	os.Exit(code)
}
