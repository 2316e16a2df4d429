package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// TestWalkReadsAhead: walk reads a session's pages ahead of the calls it
// walks where the store reads pages and outputs side by side (each page
// while the one before is walked), in turn elsewhere, and gives, for
// every session of every fixture, in small pages, the calls a whole load
// gives, in order, with their steps and outputs.
func TestWalkReadsAhead(t *testing.T) {
	defer func(n int) { walkPage = n }(walkPage)
	walkPage = 3
	type seen struct {
		step               int
		id, output, errTxt string
	}
	walked, ahead := 0, 0
	for _, f := range fixtures.All(t) {
		st, err := sessions.Open(f.Source)
		require.NoError(t, err)
		infos, err := st.List(context.Background())
		require.NoError(t, err)
		for _, in := range infos {
			var got, want []seen
			collect := func(out *[]seen) func(*model.Session, int, *model.Part) error {
				return func(_ *model.Session, step int, pt *model.Part) error {
					*out = append(*out, seen{step, pt.Tool.CallID, pt.Tool.Output, pt.Tool.Error})
					return nil
				}
			}
			_, err := walk(st, in.ID, func(...string) {}, collect(&got))
			require.NoError(t, err, "%s %s", f.ID(), in.ID)
			s, err := st.Load(context.Background(), in.ID)
			require.NoError(t, err)
			_, err = walkMessages(s, 0, rebuiltSteps{}, nil, func(...string) {}, collect(&want))
			require.NoError(t, err)
			require.Equal(t, want, got, "%s %s", f.ID(), in.ID)
			walked += len(got)
			if _, ok := sessions.LazyFor(st, in.ID).(sessions.SideBySide); ok {
				ahead += len(got)
			}
		}
		st.Close()
	}
	require.NotZero(t, walked)
	require.NotZero(t, ahead, "no fixture's calls were walked with their pages read ahead")
	require.Less(t, ahead, walked, "every fixture's calls were walked with their pages read ahead")
}
