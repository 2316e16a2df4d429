package tui

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExactTextHeldOnce: what exactText is written, in pieces small and
// large, below and past exactMemBytes, comes back whole, allocated about
// once at its size past it (a growing buffer, and a copy of it, held it
// up to three times).
func TestExactTextHeldOnce(t *testing.T) {
	for _, size := range []int{0, 10, exactMemBytes, exactMemBytes + 1, 8 * exactMemBytes} {
		var want strings.Builder
		for i := 0; want.Len() < size; i++ {
			want.WriteString(strings.Repeat(string(rune('a'+i%26)), min(i%5000+1, size-want.Len())))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := exactText(func(w io.Writer) error {
			for s := want.String(); len(s) > 0; {
				n := min(len(s), 1+len(s)%70000)
				if _, err := io.WriteString(w, s[:n]); err != nil {
					return err
				}
				s = s[n:]
			}
			return nil
		})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Equal(t, want.String(), got, "size %d", size)
		if size > exactMemBytes {
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size+3*exactMemBytes), "size %d: bytes allocated", size)
		}
	}
}

// TestLargeExcerptsShownFromFiles: with every excerpt over the memory
// bound (lowered to nothing), Wire shows it from its spool file, and Wire,
// Compare and Pipeline show what they show with it in memory.
func TestLargeExcerptsShownFromFiles(t *testing.T) {
	filed := 0
	for _, dir := range fixtureFlavours(t) {
		shown := func(lowered bool) (wire string, file bool, compare, pipeline string) {
			if lowered {
				defer func(n int) { exactMemBytes = n }(exactMemBytes)
				exactMemBytes = 0
			}
			h := openFixture(t, dir, 160, 40)
			if lowered {
				h.m.cfg.MaxInMemoryJSON = 0
			}
			v := h.m.current()
			v.list.Select(len(v.list.rows) - 1)
			h.send(nil)
			h.key("3")
			tv := v.views[paneWire]
			wire = tv.text
			if tv.file != nil {
				var err error
				wire, err = tv.file.readAll()
				require.NoError(t, err)
			}
			file = tv.file != nil
			h.key("5")
			compare = v.raw[paneCompare]
			h.key("6")
			return wire, file, compare, v.raw[panePipeline]
		}
		wire, file, compare, pipeline := shown(false)
		require.False(t, file, dir)
		fWire, fFile, fCompare, fPipeline := shown(true)
		require.Equal(t, wire, fWire, dir)
		require.Equal(t, compare, fCompare, dir)
		require.Equal(t, pipeline, fPipeline, dir)
		if fFile {
			filed++
		}
	}
	require.NotZero(t, filed, "no Wire pane was shown from a file")
}

// TestClippedFromFile: an excerpt in a file larger than clipBytes is
// shown by its whole lines at each end around a note of what is left out.
func TestClippedFromFile(t *testing.T) {
	f, err := createSpool()
	require.NoError(t, err)
	var want strings.Builder
	for i := 0; want.Len() < 2*clipBytes; i++ {
		fmt.Fprintf(&want, "line %d %s\n", i, strings.Repeat("x", i%300))
	}
	_, err = f.WriteString(want.String())
	require.NoError(t, err)
	fl, err := spoolLines(f, int64(want.Len()))
	require.NoError(t, err)
	defer fl.Close()
	got := clipped([]xpiece{{text: "[\n"}, {file: fl, n: fl.size}}, "Wire (3) shows it whole")
	whole := "[\n" + want.String()
	head, rest, ok := strings.Cut(got, "… ")
	require.True(t, ok, "no note")
	note, tail, ok := strings.Cut(rest, "\n")
	require.True(t, ok)
	require.Contains(t, note, "left out here, whole lines kept at each end (Wire (3) shows it whole)")
	require.True(t, strings.HasPrefix(whole, head) && strings.HasSuffix(whole, tail))
	require.True(t, strings.HasSuffix(head, "\n") && len(head) <= clipKeep && len(tail) <= clipKeep && len(head) > clipKeep/2)
	require.Less(t, len(got), 2*clipKeep+200)
}
