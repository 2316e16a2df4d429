package render_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
	"correx/render"
)

// missesAssumingAllInputs renders request e as if its model took every
// input: 1 when that differs from the captured request, which must not
// happen when the decided capabilities already take every input.
func missesAssumingAllInputs(t *testing.T, sess *model.Session, p render.Provider, e manifestEntry, m render.Model, want any) int {
	step := sess.Messages[sess.AssistantSteps()[e.Step-1]]
	all := m
	all.Caps.Override = model.CapsAllInputs
	got, err := rendered(t, sess, p, e.Step, all)
	if err != nil {
		return 1
	}
	path, _, _ := firstDiff("", got, want)
	if path == "-" {
		return 0
	}
	if len(m.Caps.For(step.ProviderID, step.ModelID).Input) == len(model.InputKinds) {
		t.Errorf("%s: the model takes every input, yet assuming so misses at %s", e.File, path)
	}
	return 1
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
