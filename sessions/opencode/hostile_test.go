//go:build unix

package opencode

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConfigFileFIFONeverBlocks: opencode's config files are read as
// session files are: a FIFO where one goes is named, never blocks.
func TestConfigFileFIFONeverBlocks(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "opencode.json"), 0o644))
	done := make(chan error, 1)
	go func() { _, err := Machine{Root: root}.read("/opencode.json", maxConfigFile); done <- err }()
	select {
	case err := <-done:
		require.EqualError(t, err, "not a regular file: "+filepath.Join(root, "opencode.json")+" (a named pipe)")
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assert
		t.Fatal("reading a FIFO config file never returned")
	}
}
