package render_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/render"
)

// For every captured request of every opencode fixture, the capabilities
// correx decides from the recorded config chain reproduce the request,
// and rendering as if the model took every input misses exactly the
// requests whose model did not: the decision is what makes them right.
func TestCapabilitiesReproduceRequests(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			st := openStore(t, dir)
			opts, mc := recordOpts(t, dir)
			loaded := map[string]*model.Session{}
			total, reproduced, missedAll := 0, 0, 0
			decisions := map[string]bool{}
			for _, e := range readManifest(t, dir) {
				if e.Kind != "main" {
					continue
				}
				p := providerOf(e.Path)
				sess := loadOnce(t, st, loaded, e, nil)
				want := captured(t, dir, e, p)
				m := withCaps(t, opts, sess, mc)
				step := sess.Messages[sess.AssistantSteps()[e.Step-1]]
				c := m.Caps.For(step.ProviderID, step.ModelID)
				decisions[c.Decision()+" · "+c.Source+c.Note] = true
				total++
				if got, err := rendered(t, sess, p, e.Step, m); err == nil {
					if path, _, _ := firstDiff("", got, want); path == "-" {
						reproduced++
					}
				}
				all := m
				all.Caps.Override = model.CapsAllInputs
				if got, err := rendered(t, sess, p, e.Step, all); err == nil {
					if path, _, _ := firstDiff("", got, want); path != "-" {
						missedAll++
						if len(c.Input) == len(model.InputKinds) {
							t.Errorf("%s: the model takes every input, yet assuming so misses at %s", e.File, path)
						}
					}
				}
			}
			for d := range decisions {
				t.Logf("decided: %s", d)
			}
			t.Logf("%d requests: the decided capabilities reproduce %d; assuming all inputs would miss %d", total, reproduced, missedAll)
			assert.Equal(t, total, reproduced)
		})
	}
}

// opencode's unsupportedParts for every input kind: named by the file part's
// filename, else by its kind; kinds the model takes, and text, are kept.
func TestUnsupportedPartsEveryKind(t *testing.T) {
	sess := &model.Session{Info: model.SessionInfo{ID: "s", Agent: model.AgentOpencode}, Messages: []model.Message{
		{Role: model.RoleUser, Parts: []model.Part{
			{Type: model.PartText, Text: "look"},
			{Type: model.PartFile, File: &model.File{Mime: "image/png", URL: "data:image/png;base64,AA==", Filename: "a.png"}},
			{Type: model.PartFile, File: &model.File{Mime: "audio/wav", URL: "data:audio/wav;base64,AA==", Filename: "b.wav"}},
			{Type: model.PartFile, File: &model.File{Mime: "video/mp4", URL: "data:video/mp4;base64,AA=="}},
			{Type: model.PartFile, File: &model.File{Mime: "application/pdf", URL: "data:application/pdf;base64,AA==", Filename: "c.pdf"}},
		}},
		{Role: model.RoleAssistant, ProviderID: "loc", ModelID: "m", Parts: []model.Part{{Type: model.PartText, Text: "ok"}}},
	}}
	caps := model.SessionCapabilities{Models: []model.Capabilities{{ProviderID: "loc", ModelID: "m", Input: []model.InputKind{model.InputImage}}}}
	conv, err := render.Conversation(sess, render.OpenAIChat, 1, render.Model{Caps: caps})
	require.NoError(t, err)
	b, err := render.Marshal(conv)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"user","content":[{"type":"text","text":"look"},
		{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}},
		{"type":"text","text":"ERROR: Cannot read \"b.wav\" (this model does not support audio input). Inform the user."},
		{"type":"text","text":"ERROR: Cannot read video (this model does not support video input). Inform the user."},
		{"type":"text","text":"ERROR: Cannot read \"c.pdf\" (this model does not support pdf input). Inform the user."}]}]`, string(b))
}
