package tui

// lineIndex is where each line of a file starts, in 4 bytes a line: the
// low 32 bits of each offset, in chunks (no copy of the whole as it
// grows), and the lines from which the high bits grow (none in a file
// under 4 GiB). The Request pane's spool of a 50,000-call request holds
// 880,000 lines: 7 MB as int64s, and 14 for a moment as they grew.
type lineIndex struct {
	chunks [][]uint32 // each full but the last, of lineChunk lines
	n      int
	// wrap[k] is the first line whose offset is at least (k+1)<<32
	wrap []int
}

// lineChunk is how many lines a chunk holds (256 KB of them).
const lineChunk = 1 << 16

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
	for high := int(off >> 32); len(x.wrap) < high; {
		x.wrap = append(x.wrap, x.n)
	}
	if x.n%lineChunk == 0 {
		x.chunks = append(x.chunks, nil)
	}
	last := &x.chunks[len(x.chunks)-1]
	*last = append(*last, uint32(off))
	x.n++
}

// len is the number of lines.
func (x lineIndex) len() int { return x.n }

// at is where line i starts.
func (x lineIndex) at(i int) int64 {
	high := 0
	for high < len(x.wrap) && x.wrap[high] <= i {
		high++
	}
	return int64(high)<<32 | int64(x.chunks[i/lineChunk][i%lineChunk])
}

// head is the first n lines, sharing x's memory (lines added to x after
// may change what it holds past n, never its n lines).
func (x lineIndex) head(n int) lineIndex {
	h := lineIndex{chunks: append([][]uint32(nil), x.chunks[:(n+lineChunk-1)/lineChunk]...), n: n}
	if k := n % lineChunk; k > 0 {
		last := h.chunks[len(h.chunks)-1]
		h.chunks[len(h.chunks)-1] = last[:k:k]
	}
	for _, w := range x.wrap {
		if w < n {
			h.wrap = append(h.wrap, w)
		}
	}
	return h
}

// clone is a copy of x.
func (x lineIndex) clone() lineIndex {
	c := lineIndex{n: x.n, wrap: append([]int(nil), x.wrap...)}
	for _, ch := range x.chunks {
		c.chunks = append(c.chunks, append([]uint32(nil), ch...))
	}
	return c
}
