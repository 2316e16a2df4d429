package jsonskim

// Word-at-a-time skips over the plain bytes of JSON string bodies: the
// scanner and the unquoter walk outputs of megabytes, and almost every
// byte of them needs no look of its own.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 is the 8 bytes of s at i, the first in the low byte.
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// below tells whether a byte of x is below n (n <= 128): exact as a
// whole, though the bits it sets may not name every such byte.
func below(x uint64, n uint64) bool { return (x-ones*n)&^x&highs != 0 }

// PlainRun is the length of the run of bytes of s from i on that are
// none of '"', '\\' and a control character (below 0x20).
func PlainRun(s string, i int) int {
	j := i
	for ; j+8 <= len(s); j += 8 {
		x := load8(s, j)
		if below(x, 0x20) || below(x^(ones*'"'), 1) || below(x^(ones*'\\'), 1) {
			break
		}
	}
	for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] >= 0x20 {
		j++
	}
	return j - i
}

// ASCIIRun is the length of the run of bytes of s from i on that are
// ASCII and not '\\'.
func ASCIIRun(s string, i int) int {
	j := i
	for ; j+8 <= len(s); j += 8 {
		x := load8(s, j)
		if x&highs != 0 || below(x^(ones*'\\'), 1) {
			break
		}
	}
	for j < len(s) && s[j] < 0x80 && s[j] != '\\' {
		j++
	}
	return j - i
}
