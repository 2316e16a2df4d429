package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
)

// fileStoreOf is a FileStore over dir's *.log files, each one session
// named after the file.
func fileStoreOf(dir string, reads *int) *FileStore {
	return &FileStore{
		Root: dir,
		Files: func() ([]string, []string) {
			fs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
			return fs, nil
		},
		Read: func(p string) (*model.Session, error) {
			*reads++
			if _, err := ReadFile(p); err != nil {
				return nil, err
			}
			id := filepath.Base(p)
			if id == "dup.log" {
				id = "a.log"
			}
			return &model.Session{Info: model.SessionInfo{ID: id}}, nil
		},
	}
}

// TestFileStoreFingerprint: a one-file-per-session store's fingerprint
// stays while no file changes (the idle TUI lists nothing) and changes
// when a file grows or a session file is added.
func TestFileStoreFingerprint(t *testing.T) {
	racy := RacyWindow
	RacyWindow = 0
	t.Cleanup(func() { RacyWindow = racy })
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	require.NoError(t, os.WriteFile(a, []byte("1\n"), 0o644))
	reads := 0
	s := fileStoreOf(dir, &reads)
	fp, ok := Fingerprint(s)
	require.True(t, ok)
	again, ok := Fingerprint(s)
	require.True(t, ok)
	assert.Equal(t, fp, again)
	assert.Zero(t, reads, "a fingerprint reads no session")

	require.NoError(t, os.WriteFile(a, []byte("1\n2\n"), 0o644))
	grown, ok := Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, fp, grown, "a file grew")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.log"), nil, 0o644))
	added, ok := Fingerprint(s)
	require.True(t, ok)
	assert.NotEqual(t, grown, added, "a session was added")
}

// TestFileStoreListLoad: List skips a duplicate id with a warning naming
// both files, and Load finds a listed session.
func TestFileStoreListLoad(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.log", "dup.log"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	reads := 0
	s := fileStoreOf(dir, &reads)
	infos, err := s.List(context.Background())
	require.NoError(t, err)
	require.Len(t, infos, 1)
	require.Len(t, s.Warnings(), 1)
	assert.Contains(t, s.Warnings()[0], "dup.log")
	sess, err := s.Load(context.Background(), "a.log")
	require.NoError(t, err)
	assert.Equal(t, "a.log", sess.Info.ID)
	_, err = s.Load(context.Background(), "nope")
	assert.ErrorIs(t, err, ErrNotFound)
}
