package jsonskim

import (
	"math/rand"
	"testing"
)

// TestRuns checks the word-at-a-time runs against a byte at a time, at
// every start of strings where each kind of byte sits at every place of a
// word.
func TestRuns(t *testing.T) {
	alphabet := []byte{'a', ' ', '"', '\\', 0, 0x1f, 0x20, 0x7f, 0x80, 0xe9, 0xff, '!', '[', ']', 0x5b, 0x5d}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = 'x'
			if rng.Intn(6) == 0 {
				b[i] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			plain, ascii := 0, 0
			for j := i; j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20; j++ {
				plain++
			}
			for j := i; j < len(s) && s[j] < 0x80 && s[j] != '\\'; j++ {
				ascii++
			}
			if got := PlainRun(s, i); got != plain {
				t.Fatalf("PlainRun(%q, %d) = %d, want %d", s, i, got, plain)
			}
			if got := ASCIIRun(s, i); got != ascii {
				t.Fatalf("ASCIIRun(%q, %d) = %d, want %d", s, i, got, ascii)
			}
		}
	}
}
