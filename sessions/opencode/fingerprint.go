package opencode

import (
	"fmt"
	"time"

	"correx/sessions"
)

// Fingerprint implements sessions.Fingerprinter; see sessions.Fingerprint.
func (s *sqliteStore) Fingerprint() (string, bool) {
	now := time.Now()
	db, ok := sessions.StatPrint(s.path, now, false)
	if !ok {
		return "", false
	}
	wal, ok := sessions.StatPrint(s.path+"-wal", now, true)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("sqlite %q %s wal %s", s.path, db, wal), true
}
