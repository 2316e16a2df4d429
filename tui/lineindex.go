package tui

import (
	"math"
	"slices"
	"sort"
)

// lineIndex is where each line of a file starts, in about 2 bytes a line:
// each line's distance from the start of the line before (that line's
// length) in 16 bits, in chunks (no copy of the whole as it grows); the
// start of every markEvery-th line whole; and the starts of the lines
// after one of 64 KiB or more (long). The Request pane's spool of a
// 50,000-call request holds 880,000 lines: 7 MB as int64s, 3.5 as 32-bit
// offsets, 1.9 so.
type lineIndex struct {
	chunks [][]uint16 // each full but the last, of lineChunk lines
	marks  []int64    // where line k*markEvery starts
	long   []longLine // in order
	n      int
	last   int64 // where line n-1 starts
}

// longLine is where a line starts whose distance from the line before
// does not fit in 16 bits.
type longLine struct {
	line int
	at   int64
}

const (
	// lineChunk is how many lines a chunk holds (128 KB of them).
	lineChunk = 1 << 16
	// markEvery: at reads at most this many lengths
	markEvery = 64
	// longMark is the length of a line before a longLine
	longMark = math.MaxUint16
)

// linesFrom is the index of lines starting at offsets, in order.
func linesFrom(offsets ...int64) lineIndex {
	var x lineIndex
	for _, o := range offsets {
		x.add(o)
	}
	return x
}

// add adds a line starting at off, at or after the last one's start.
func (x *lineIndex) add(off int64) {
	if x.n%lineChunk == 0 {
		x.chunks = append(x.chunks, nil)
	}
	var d uint16 // unread at a mark
	if x.n%markEvery == 0 {
		x.marks = append(x.marks, off)
	} else if off-x.last < longMark {
		d = uint16(off - x.last)
	} else {
		d = longMark
		x.long = append(x.long, longLine{x.n, off})
	}
	last := &x.chunks[len(x.chunks)-1]
	*last = append(*last, d)
	x.last = off
	x.n++
}

// len is the number of lines.
func (x lineIndex) len() int { return x.n }

// at is where line i starts.
func (x lineIndex) at(i int) int64 {
	at := x.marks[i/markEvery]
	for j := i - i%markEvery + 1; j <= i; j++ {
		if d := x.chunks[j/lineChunk][j%lineChunk]; d != longMark {
			at += int64(d)
		} else {
			k := sort.Search(len(x.long), func(k int) bool { return x.long[k].line >= j })
			at = x.long[k].at
		}
	}
	return at
}

// head is the first n lines, sharing x's memory (lines added to x after
// may change what it holds past n, never its n lines).
func (x lineIndex) head(n int) lineIndex {
	if n == 0 {
		return lineIndex{}
	}
	h := lineIndex{chunks: slices.Clone(x.chunks[:(n+lineChunk-1)/lineChunk]), n: n, last: x.at(n - 1)}
	if k := n % lineChunk; k > 0 {
		last := h.chunks[len(h.chunks)-1]
		h.chunks[len(h.chunks)-1] = last[:k:k]
	}
	m := (n + markEvery - 1) / markEvery
	h.marks = x.marks[:m:m]
	l := sort.Search(len(x.long), func(k int) bool { return x.long[k].line >= n })
	h.long = x.long[:l:l]
	return h
}

// clone is a copy of x.
func (x lineIndex) clone() lineIndex {
	c := lineIndex{n: x.n, last: x.last, marks: slices.Clone(x.marks), long: slices.Clone(x.long)}
	for _, ch := range x.chunks {
		c.chunks = append(c.chunks, slices.Clone(ch))
	}
	return c
}
