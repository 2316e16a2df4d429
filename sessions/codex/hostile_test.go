package codex

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSparseRolloutBoundedAllocation reads a 2 GB sparse rollout (a
// session_meta line, then zeros): the zeros are one line over the line
// cap, skipped, and reading stops at the file cap, each with a warning;
// what is allocated stays a few line caps (ReadJSONL's is 64 MiB),
// whatever the file's size.
func TestSparseRolloutBoundedAllocation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-sparse.jsonl")
	meta := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"sparse","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","cli_version":"0.171.0"}}` + "\n"
	require.NoError(t, os.WriteFile(p, []byte(meta), 0o644))
	require.NoError(t, os.Truncate(p, 2<<30))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sess, err := ReadRollout(p, filepath.Dir(p))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, "sparse", sess.Info.ID)
	t.Logf("reading a 2 GB sparse rollout allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*64<<20), "bytes allocated reading a 2 GB file")
	require.Contains(t, sess.Warnings, p+":2: skipped a line of more than 64 MiB")
	require.Contains(t, sess.Warnings, p+":2: stopped reading after the first 512 MiB of the file")
}
