package tui

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLineIndexPastFourGiB: offsets past 4 GiB, lines longer than 4 GiB,
// lines of 64 KiB or more and lines shorter are given back as added, over
// several chunks, whole or from a head of the index, which lines added
// after do not change.
func TestLineIndexPastFourGiB(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var offs []int64
	var x lineIndex
	off := int64(0)
	for range 3*lineChunk + 7 {
		offs = append(offs, off)
		x.add(off)
		switch r.IntN(10000) {
		case 0:
			off += 5 << 30 // a line of 5 GiB
		case 1, 2, 3:
			off += 1 << 31
		default:
			if r.IntN(8) == 0 {
				off += int64(r.IntN(1 << 20))
			} else {
				off += int64(r.IntN(300)) // JSON's lines, some empty
			}
		}
	}
	require.Greater(t, off, int64(4)<<32)
	require.Equal(t, len(offs), x.len())
	for i, o := range offs {
		require.Equal(t, o, x.at(i), "line %d", i)
	}
	for _, n := range []int{0, 1, markEvery, markEvery + 1, lineChunk, lineChunk + 3, len(offs) / 2} {
		h, c := x.head(n), x.head(n).clone()
		y := x
		for k := range 2 * lineChunk {
			y.add(off + int64(k)) // past the head, into its last chunk's room
		}
		for _, h := range []lineIndex{h, c} {
			require.Equal(t, n, h.len())
			for i, o := range offs[:n] {
				require.Equal(t, o, h.at(i), "line %d of the head of %d", i, n)
			}
		}
	}
	for i, o := range offs {
		require.Equal(t, o, x.at(i), "line %d after", i)
	}
}
