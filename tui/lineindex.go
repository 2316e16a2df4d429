package tui

// lineIndex is where each line of a file starts, in 4 bytes a line: the
// low 32 bits of each offset, and the lines from which the high bits
// grow (none in a file under 4 GiB). The Request pane's spool of a
// 50,000-call request holds 880,000 lines: 7 MB as int64s, 3.5 as these.
type lineIndex struct {
	low []uint32
	// wrap[k] is the first line whose offset is at least (k+1)<<32
	wrap []int
}

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
		x.wrap = append(x.wrap, len(x.low))
	}
	x.low = append(x.low, uint32(off))
}

// len is the number of lines.
func (x lineIndex) len() int { return len(x.low) }

// at is where line i starts.
func (x lineIndex) at(i int) int64 {
	high := 0
	for high < len(x.wrap) && x.wrap[high] <= i {
		high++
	}
	return int64(high)<<32 | int64(x.low[i])
}

// head is the first n lines, sharing x's memory (lines added to x after
// may change what it holds past n, never its n lines).
func (x lineIndex) head(n int) lineIndex {
	h := lineIndex{low: x.low[:n:n]}
	for _, w := range x.wrap {
		if w < n {
			h.wrap = append(h.wrap, w)
		}
	}
	return h
}

// clone is a copy of x.
func (x lineIndex) clone() lineIndex {
	return lineIndex{low: append([]uint32(nil), x.low...), wrap: append([]int(nil), x.wrap...)}
}
