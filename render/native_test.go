package render_test

import (
	"context"
	"path/filepath"
	"testing"

	"correx/model"
)

// The two lowerings of the v1 loop must differ on the recorded native runs,
// and correx must see where: rendering a native recording with the AI SDK
// converters has to miss some of its requests.
func TestLoweringDifferenceIsVisible(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		opts, _ := recordOpts(t, dir)
		if opts.Lowering != model.LoweringNative {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			st := openStore(t, dir)
			differ, total := 0, 0
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess, err := st.Load(context.Background(), e.Session)
				if err != nil {
					t.Fatal(err)
				}
				want := captured(t, dir, e, p)
				aisdk := opts
				aisdk.Lowering = model.LoweringAISDK
				got, err := rendered(t, sess, p, e.Step, aisdk)
				if err != nil {
					t.Fatal(err)
				}
				total++
				if path, _, _ := firstDiff("", got, want); path != "-" {
					differ++
					t.Logf("%s step %d: the AI SDK lowering differs at %s", e.File, e.Step, path)
				}
			}
			if differ == 0 {
				t.Errorf("all %d requests of a native recording render the same with the AI SDK lowering", total)
			}
		})
	}
}
