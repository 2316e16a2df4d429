package opencode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// racyWindow is how recent a file's mtime may be for the fingerprint to be
// trusted. A timestamp has a granularity (a few ms on Linux, whose file
// times come from a coarse clock; 1 s or 2 s on some file systems), so a
// second write in the same tick as the one a fingerprint saw, that keeps
// the size (a -wal being overwritten after a reset), would leave the
// fingerprint equal. A file written within racyWindow of the stat is
// therefore reported as "cannot say" (as git treats "racily clean" index
// entries): a later write then lands in a later tick. While opencode writes,
// the fingerprint changes on every check anyway. A variable so tests can
// change it.
var racyWindow = 2 * time.Second

// Fingerprint implements sessions.Fingerprinter; see sessions.Fingerprint.
func (s *sqliteStore) Fingerprint() (string, bool) {
	now := time.Now()
	db, ok := statPrint(s.path, now, false)
	if !ok {
		return "", false
	}
	wal, ok := statPrint(s.path+"-wal", now, true)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("sqlite %q %s wal %s", s.path, db, wal), true
}

// statPrint returns "size/mtime-ns" of path, or "-" when it is missing and
// missingOK.
func statPrint(path string, now time.Time, missingOK bool) (string, bool) {
	fi, err := os.Stat(path)
	if missingOK && errors.Is(err, fs.ErrNotExist) {
		return "-", true
	}
	if err != nil {
		return "", false
	}
	mt := fi.ModTime()
	if now.Sub(mt) < racyWindow {
		return "", false // written just now, or in the future of this clock
	}
	return fmt.Sprintf("%d/%d", fi.Size(), mt.UnixNano()), true
}
