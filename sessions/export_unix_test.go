//go:build unix

package sessions

import "testing"

// Internals the external tests of hostile input use.

var (
	OpenAndList = openAndList
	DenyOpen    = denyOpen
)

// LowerMaxFileBytes sets the file cap to n for the test.
func LowerMaxFileBytes(t *testing.T, n int64) {
	prev := maxFileBytes
	t.Cleanup(func() { maxFileBytes = prev })
	maxFileBytes = n
}
