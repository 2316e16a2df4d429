package tui

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
)

// TestWarmComputesPanesAhead: once the list rests on a call of a lazy
// session, the conversations its Wire and Pipeline panes show are
// computed unasked, so that the pane opens with nothing to compute; once
// Compare was shown, its other side is warmed too, for the next call
// rested on. Over every fixture of every agent.
func TestWarmComputesPanesAhead(t *testing.T) {
	defer func(d time.Duration) { warmAfter = d }(warmAfter)
	warmAfter = time.Nanosecond // the synchronous harness waits it out
	warmed := map[string]bool{} // by agent
	for _, f := range fixtures.All(t) {
		dir := f.ID()
		h := openFixture(t, f.Source, 120, 30)
		v := h.m.current()
		if v.data.lazy == nil {
			continue
		}
		// a call whose result a later request carried
		steps := map[int]int{} // request step -> its first row
		for i, r := range v.list.rows {
			if st := requestStep(r.info(), r.data.sess); st > 0 && r.data == v.data {
				if _, ok := steps[st]; !ok {
					steps[st] = i
				}
			}
		}
		if len(steps) < 2 {
			continue
		}
		rows := slices.Sorted(maps.Values(steps)) // the first two such steps
		h.key("g")
		for range rows[0] {
			h.key("j")
		}
		keys := v.warmKeys()
		require.Len(t, keys, 1, "%s: the current provider's conversation", dir)
		res, ok := h.m.convs.convs[keys[0]]
		require.True(t, ok, "%s: warmed once the list rested", dir)
		require.NoError(t, res.err)
		require.Empty(t, h.m.convs.pending)
		require.Empty(t, h.m.convs.warming)
		n := len(h.m.convs.age)
		h.key("6")
		require.Equal(t, n, len(h.m.convs.age), "%s: the Pipeline pane computes nothing more", dir)
		require.Empty(t, v.need)
		h.key("5") // Compare: the other side computed now, and warmed from here on
		require.Len(t, v.warmKeys(), 2)
		h.key("3")
		h.key("g")
		for range rows[1] {
			h.key("j")
		}
		for _, k := range v.warmKeys() {
			_, ok := h.m.convs.convs[k]
			require.True(t, ok, "%s: both of Compare's sides warmed (%s)", dir, k.p)
		}
		warmed[f.Agent] = true
	}
	// every agent read lazily has such a session among its fixtures
	require.Len(t, warmed, 7, "agents warmed: %v", warmed)
}

// onCarriedCall opens the first opencode fixture on its first call whose
// result a later request carried.
func onCarriedCall(t *testing.T) (*harness, *sessionView, *convCache) {
	h := openFixture(t, fixtureFlavours(t)[0], 120, 30)
	toCarriedCall(t, h)
	return h, h.m.current(), &h.m.convs
}

// toCarriedCall moves to the next call whose result a later request
// carried, unless the selected one's was.
func toCarriedCall(t *testing.T, h *harness) {
	v := h.m.current()
	for i := 0; len(v.warmKeys()) == 0 && i < len(v.list.rows); i++ {
		h.key("j")
	}
	require.NotEmpty(t, v.warmKeys(), "a call whose result a later request carried")
}

// TestWarmNotOverWhole: a call whose whole request the Request pane has
// computed is not warmed again (the whole has its excerpts).
func TestWarmNotOverWhole(t *testing.T) {
	h, v, c := onCarriedCall(t)
	h.key("4")
	k := v.warmKeys()[0]
	_, whole := c.convs[wholeKey(k)]
	require.True(t, whole, "the Request pane's conversation")
	defer func(d time.Duration) { warmAfter = d }(warmAfter)
	warmAfter = time.Nanosecond
	h.key("4")
	require.Nil(t, c.rest, "no rest timed")
	_, warmed := c.convs[k]
	require.False(t, warmed)
}

// TestWarmSkipsLargeResults: a request whose results are larger in all
// than warmMaxBytes is not warmed; resultBytes counts the outputs of the
// step's calls.
func TestWarmSkipsLargeResults(t *testing.T) {
	h, v, c := onCarriedCall(t)
	k := v.warmKeys()[0]
	want := 0
	for _, ci := range v.data.calls {
		if int(ci.step) == k.step-1 {
			want += len(ci.call().Output) + len(ci.call().Error)
		}
	}
	require.Positive(t, want)
	require.Equal(t, want, v.data.resultBytes(k.step))
	defer func(d time.Duration, n int) { warmAfter, warmMaxBytes = d, n }(warmAfter, warmMaxBytes)
	warmAfter, warmMaxBytes = time.Nanosecond, want-1
	h.key("2")
	_, warmed := c.convs[k]
	require.False(t, warmed, "over warmMaxBytes")
	warmMaxBytes = want
	c.rest = nil // as when the selection comes back to the call
	h.key("2")
	_, warmed = c.convs[k]
	require.True(t, warmed, "within warmMaxBytes")
}

// TestWarmStops: a warm the selection no longer wants is stopped and its
// result dropped; one a pane asks for while it runs is kept (and is
// then busy work); warming alone is not busy.
func TestWarmStops(t *testing.T) {
	h := openFixture(t, fixtureFlavours(t)[0], 120, 30)
	v, c := h.m.current(), &h.m.convs
	k := convKey{sess: v.data.sess, data: v.data, p: v.provider, step: 1 << 20} // no call's
	stopped := false
	c.pending[k] = true
	c.warming[k] = &warmRun{stop: func() { stopped = true }}
	require.False(t, c.busy(), "warming is not busy")
	c.restOn(v)
	require.True(t, stopped, "the selection does not want it")
	c.put(h.m.app, convMsg{key: k, res: convResult{err: context.Canceled}})
	_, kept := c.convs[k]
	require.False(t, kept, "a stopped warm's result is dropped")
	require.False(t, c.pending[k])

	// a warm's tail comes first: it does not end the warm, and a stopped
	// warm's tail is dropped with it
	stopped = false
	c.pending[k] = true
	c.warming[k] = &warmRun{stop: func() { stopped = true }}
	c.put(h.m.app, convMsg{key: k, res: convResult{rendered: true, writing: true, tail: true}})
	require.False(t, stopped, "a tail is not the end of the warm")
	require.Contains(t, c.warming, k)
	require.True(t, c.pending[k])
	c.restOn(v)
	require.True(t, stopped, "the selection does not want it")
	c.put(h.m.app, convMsg{key: k, res: convResult{err: context.Canceled}})
	_, kept = c.convs[k]
	require.False(t, kept, "a stopped warm's tail is dropped")
	require.NotContains(t, c.age, k)
	require.False(t, c.pending[k])

	// the Wire pane asks for the selected call's conversation while it
	// is warmed
	toCarriedCall(t, h)
	k = v.warmKeys()[0]
	c.pending[k] = true
	c.warming[k] = &warmRun{stop: func() { t.Error("a warm asked for is not stopped") }}
	h.key("3")
	require.Equal(t, []convKey{k}, v.need)
	require.NotContains(t, c.warming, k, "asked for: kept")
	require.True(t, c.pending[k])
	require.True(t, c.busy())
}
