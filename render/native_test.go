package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"correx/model"
	"correx/render"
)

// The two lowerings of the v1 loop must differ on the recorded native runs,
// and correx must see where: rendering a native recording with the AI SDK
// converters has to miss some of its requests.
func TestLoweringDifferenceIsVisible(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		opts := recordOpts(t, dir)
		if opts.Lowering != model.LoweringNative {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var manifest []manifestEntry
			b, err := os.ReadFile(filepath.Join(dir, "requests", "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &manifest); err != nil {
				t.Fatal(err)
			}
			st := openStore(t, dir)
			differ, total := 0, 0
			for _, e := range manifest {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess, err := st.Load(context.Background(), e.Session)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := os.ReadFile(filepath.Join(dir, "requests", e.File))
				want := capturedConversation(p, decode(t, body).(map[string]any))
				aisdk := opts
				aisdk.Lowering = model.LoweringAISDK
				conv, err := render.Conversation(sess, p, e.Step, aisdk)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := render.Marshal(conv)
				total++
				if path, _, _ := firstDiff("", decode(t, raw), want); path != "-" {
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
