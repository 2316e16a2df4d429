package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// A fingerprint is a cheap answer to "may the store have changed since I
// last listed it?": a few stats instead of a List, which for opencode's
// database reads every part row. Two equal fingerprints, taken before two
// Lists, mean the second List would return what the first did; a different
// one means nothing (it may have changed). A caller therefore takes the
// fingerprint before it lists, keeps it with the list, and skips the next
// List while the fingerprint stays equal.

// Fingerprinter is a store that can fingerprint what it reads. A store that
// wraps another can forward to Fingerprint of the inner one.
type Fingerprinter interface {
	// Fingerprint is as the package function.
	Fingerprint() (string, bool)
}

// Fingerprint returns a fingerprint of the files store s reads, and whether
// it could take one: ok is false for a store that cannot say (export files,
// legacy storage, a store that does not implement Fingerprinter) or cannot
// say now (a file that cannot be stat'ed or was written too recently); the
// caller should then list. Fingerprints of one store compare with ==.
//
//   - An opencode database: its file and its -wal file, size and mtime (in
//     ns) of each; a missing -wal is part of the fingerprint. In WAL mode
//     every commit appends frames to -wal (or, after a checkpoint reset the
//     log, overwrites them from its start, which changes its mtime but maybe
//     not its size), and a checkpoint copies them into the database file;
//     nothing is committed without one of the two files being written. In
//     rollback-journal mode a commit writes the database file itself.
//   - A combined store (Combine, or Open of a dir with several databases):
//     its stores' fingerprints in turn, when all of them can say.
func Fingerprint(s Store) (string, bool) {
	if f, ok := s.(Fingerprinter); ok {
		return f.Fingerprint()
	}
	return "", false
}

// RacyWindow is how recent a file's mtime may be for the fingerprint to be
// trusted. A timestamp has a granularity (a few ms on Linux, whose file
// times come from a coarse clock; 1 s or 2 s on some file systems), so a
// second write in the same tick as the one a fingerprint saw, that keeps
// the size (a -wal being overwritten after a reset), would leave the
// fingerprint equal. A file written within RacyWindow of the stat is
// therefore reported as "cannot say" (as git treats "racily clean" index
// entries): a later write then lands in a later tick. While opencode writes,
// the fingerprint changes on every check anyway. A variable so tests can
// change it.
var RacyWindow = 2 * time.Second

// StatPrint returns "size/mtime-ns" of path, or "-" when it is missing and
// missingOK; ok is false when the file cannot be stat'ed or was written
// within RacyWindow of now.
func StatPrint(path string, now time.Time, missingOK bool) (string, bool) {
	fi, err := os.Stat(path)
	if missingOK && errors.Is(err, fs.ErrNotExist) {
		return "-", true
	}
	if err != nil {
		return "", false
	}
	mt := fi.ModTime()
	if now.Sub(mt) < RacyWindow {
		return "", false // written just now, or in the future of this clock
	}
	return fmt.Sprintf("%d/%d", fi.Size(), mt.UnixNano()), true
}

// Fingerprint implements Fingerprinter; see the package function. The
// stores of a combined store are fixed when it is made.
func (m *multi) Fingerprint() (string, bool) {
	if len(m.stores) == 0 {
		return "", false
	}
	parts := make([]string, len(m.stores))
	for i, s := range m.stores {
		fp, ok := Fingerprint(s)
		if !ok {
			return "", false
		}
		parts[i] = fp
	}
	return "multi[" + strings.Join(parts, "; ") + "]", true
}
