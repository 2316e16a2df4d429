package tui

import (
	"os"
	"testing"

	"correx/sessions"
)

// TestManual runs the TUI on the terminal for a person to try:
//
//	go test -c -o /tmp/tui.test ./tui && CORREX_TUI_MANUAL=1 /tmp/tui.test -test.run TestManual
//
// CORREX_TUI_STORE names a store to open (else the fake store is used).
func TestManual(t *testing.T) {
	if os.Getenv("CORREX_TUI_MANUAL") == "" {
		t.Skip("set CORREX_TUI_MANUAL=1 to run the TUI")
	}
	opts := fakeOpts(t)
	if p := os.Getenv("CORREX_TUI_STORE"); p != "" {
		s, err := sessions.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		opts = Options{Stores: []sessions.Store{s}}
	}
	opts.SessionID = os.Getenv("CORREX_TUI_SESSION")
	if err := Run(opts); err != nil {
		t.Fatal(err)
	}
}
