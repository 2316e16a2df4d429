package render_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"correx/model"
	"correx/render"
	"correx/sessions/opencode"
)

// Conformance: for every request opencode made in a recorded run, correx's
// Conversation must equal the conversation in the captured body, and every
// tool result in that body must equal what `correx show` prints.
//
// The fixtures are real runs (testdata/record); a flavour is a directory of
// testdata/opencode.

// fixtureDirs returns the recorded flavours of opencode and of its forks
// (model.AgentSpec.Fork: Kilo Code), whose requests opencode's code builds.
func fixtureDirs(t *testing.T) []string {
	dirs := manifestDirs("../testdata/opencode/*")
	if len(dirs) == 0 {
		t.Fatal("no recorded fixtures under testdata/opencode: run `go run ./testdata/record`")
	}
	return append(dirs, forkFixtureDirs(t)...)
}

// forkFixtureDirs are the recorded flavours of opencode's forks.
func forkFixtureDirs(t *testing.T) []string {
	var dirs []string
	for _, a := range model.RegisteredAgents() {
		if a != model.AgentOpencode && a.UsesOpencode() {
			fork := manifestDirs("../testdata/" + string(a) + "/*")
			if len(fork) == 0 {
				t.Errorf("no recorded %s fixtures", a)
			}
			dirs = append(dirs, fork...)
		}
	}
	return dirs
}

// fixtureName is a fixture's subtest name: its flavour, after its agent
// for a fork's ("kilo/oracle-model").
func fixtureName(dir string) string {
	if agent := filepath.Base(filepath.Dir(dir)); agent != "opencode" {
		return agent + "/" + filepath.Base(dir)
	}
	return filepath.Base(dir)
}

// recordOpts reads what the recorder says about a flavour (record.json):
// lowering ("ai-sdk", "native" for OPENCODE_EXPERIMENTAL_NATIVE_LLM=1,
// "v2" for the v2 loop; absent means ai-sdk) which lowering built the
// requests (v2 sessions are lowered natively by default); env, the
// environment opencode ran with, which with the config files the recorder
// kept in root/ is the machine the models' capabilities are decided on.
func recordOpts(t *testing.T, dir string) (render.Model, opencode.Machine) {
	var rec struct {
		Lowering string   `json:"lowering"`
		Env      []string `json:"env"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "record.json"))
	_ = json.Unmarshal(b, &rec)
	var m render.Model
	switch rec.Lowering {
	case "", "ai-sdk":
		m.Lowering = model.LoweringAISDK
	case "native":
		m.Lowering = model.LoweringNative
	case "v2":
		// the session's own default: native
	default:
		t.Fatalf("%s: unknown lowering %q in record.json", dir, rec.Lowering)
	}
	return m, opencode.FixtureMachine(filepath.Join(dir, "root"), rec.Env)
}

// withCaps is opts with the capabilities decided for sess on the
// recording's machine.
func withCaps(t *testing.T, opts render.Model, sess *model.Session, mc opencode.Machine) render.Model {
	caps, warns := opencode.Capabilities(sess, mc)
	for _, w := range warns {
		t.Errorf("session %s: %s", sess.Info.ID, w)
	}
	opts.Caps = caps
	return opts
}

func TestConformance(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		t.Run(fixtureName(dir), func(t *testing.T) {
			st := openStore(t, dir)
			loaded := map[string]*model.Session{}
			opts, mc := recordOpts(t, dir)
			checked, results, missedAll := 0, 0, 0
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess := loadOnce(t, st, loaded, e, nil)
				want := captured(t, dir, e, p)
				if opts.Lowering == "" && sess.Info.Pipeline != model.PipelineV2 {
					t.Fatalf("%s: a v2 flavour whose session %s did not load as v2", e.File, e.Session)
				}
				m := withCaps(t, opts, sess, mc)
				got, err := rendered(t, sess, p, e.Step, m)
				if err != nil {
					t.Errorf("%s: %v", e.File, err)
					continue
				}
				if path, g, w := firstDiff("", got, want); path != "-" {
					t.Errorf("%s (session %s step %d, %s): differs at %s:\n got: %s\nwant: %s", e.File, e.Session, e.Step, p, path, short(g), short(w))
				}
				missedAll += missesAssumingAllInputs(t, sess, p, e, m, want)
				results += checkShow(t, e.File, p, sess, want, opts.Lowering)
				checked++
			}
			t.Logf("%s: %d requests, %d tool results compared; the capabilities decided from root/ reproduce them, assuming all inputs would miss %d",
				fixtureName(dir), checked, results, missedAll)
			if checked == 0 {
				t.Fatal("no main request in the manifest")
			}
		})
	}
}
