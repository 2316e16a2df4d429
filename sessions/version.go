package sessions

import "strings"

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
