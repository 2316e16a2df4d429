package opencode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/model"
)

// capsMachine lays files out under a temporary root, at their machine
// paths, with the git repository /home/u/p (the sessions' worktree).
func capsMachine(t *testing.T, files map[string]string, env ...string) Machine {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "/home/u/p/.git"), 0o755))
	for p, body := range files {
		full := filepath.Join(root, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(body), 0o644))
	}
	return FixtureMachine(root, append([]string{"HOME=/home/u"}, env...))
}

func capsSession(dir, provider, modelID string) *model.Session {
	return &model.Session{
		Info: model.SessionInfo{Agent: model.AgentOpencode, Directory: dir},
		Messages: []model.Message{
			{Role: model.RoleUser},
			{Role: model.RoleAssistant, ProviderID: provider, ModelID: modelID},
		},
	}
}

func decideOne(t *testing.T, mc Machine, s *model.Session) (model.Capabilities, []string) {
	caps, warns := Capabilities(s, mc)
	require.Len(t, caps.Models, 1)
	return caps.Models[0], warns
}

const localModel = `"provider": {"loc": {"npm": "@ai-sdk/openai-compatible", "models": {"m": %s}}}`

func cfg(model string) string { return "{" + strings.Replace(localModel, "%s", model, 1) + "}" }

func TestOpencodeCapsGlobalJSONC(t *testing.T) {
	mc := capsMachine(t, map[string]string{
		"/home/u/.config/opencode/opencode.jsonc": `{
  // a comment, and trailing commas
  "provider": {"loc": {"models": {"m": {
    "modalities": {"input": ["text", "pdf"], "output": ["text"],},
    "interleaved": {"field": "reasoning_content"}, /* block */
  }}}},
}`,
	})
	c, warns := decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	assert.Empty(t, warns)
	assert.Equal(t, []model.InputKind{model.InputPDF}, c.Input)
	assert.Equal(t, "reasoning_content", c.Interleaved)
	assert.Equal(t, "~/.config/opencode/opencode.jsonc", c.Source)
	assert.False(t, c.Assumed)
	assert.Equal(t, "text, pdf", c.Decision())
}

// opencode's merge order: global, $OPENCODE_CONFIG, the project's files
// from the worktree root down, .opencode dirs, $OPENCODE_CONFIG_CONTENT,
// the managed dir; a later one wins.
func TestOpencodeCapsMergeOrder(t *testing.T) {
	img := cfg(`{"modalities": {"input": ["text", "image"]}}`)
	txt := cfg(`{"modalities": {"input": ["text"]}}`)
	layers := []struct{ name, path string }{
		{"global", "/home/u/.config/opencode/opencode.json"},
		{"OPENCODE_CONFIG", "/home/u/custom.json"},
		{"worktree root", "/home/u/p/opencode.json"},
		{"session dir", "/home/u/p/sub/opencode.jsonc"},
		{".opencode", "/home/u/p/sub/.opencode/opencode.json"},
		{"managed", "/etc/opencode/opencode.json"},
	}
	s := capsSession("/home/u/p/sub", "loc", "m")
	for i, l := range layers {
		files := map[string]string{}
		for j, o := range layers[:i+1] {
			files[o.path] = img
			if j == i {
				files[o.path] = txt // the last one says text-only
			}
		}
		mc := capsMachine(t, files, "OPENCODE_CONFIG=/home/u/custom.json")
		c, warns := decideOne(t, mc, s)
		assert.Empty(t, warns)
		assert.Empty(t, c.Input, "%s should win", l.name)
		assert.Equal(t, strings.Replace(l.path, "/home/u", "~", 1), c.Source, l.name)
	}
	// $OPENCODE_CONFIG_CONTENT over the .opencode dirs, under the managed dir
	mc := capsMachine(t, map[string]string{"/home/u/p/.opencode/opencode.json": img},
		"OPENCODE_CONFIG_CONTENT="+txt)
	c, _ := decideOne(t, mc, s)
	assert.Equal(t, "$OPENCODE_CONFIG_CONTENT", c.Source)
	assert.Empty(t, c.Input)
	// project files above the worktree are not read; with project config disabled none is
	mc = capsMachine(t, map[string]string{"/home/u/opencode.json": txt, "/home/u/p/sub/opencode.json": img})
	c, _ = decideOne(t, mc, capsSession("/home/u/p/sub", "loc", "m"))
	assert.Equal(t, "~/p/sub/opencode.json", c.Source)
	mc = capsMachine(t, map[string]string{"/home/u/.config/opencode/opencode.json": txt, "/home/u/p/opencode.json": img},
		"OPENCODE_DISABLE_PROJECT_CONFIG=1")
	c, _ = decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	assert.Equal(t, "~/.config/opencode/opencode.json", c.Source)
}

func TestOpencodeCapsSubstitutions(t *testing.T) {
	// {file:} text is escaped for a JSON string; a missing file on a
	// comment line is left alone, elsewhere it is an error naming the file
	mc := capsMachine(t, map[string]string{
		"/home/u/.config/opencode/opencode.json": `{"a": "{file:missing.txt}"}`,
		"/home/u/p/opencode.json":                cfg(`{"modalities": {"input": ["text"]}}`),
	})
	c, warns := decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], `"{file:missing.txt}" ~/.config/opencode/missing.txt`)
	assert.Empty(t, c.Input)
	mc = capsMachine(t, map[string]string{
		"/home/u/.config/opencode/opencode.json": `{"provider": {"{env:PROV}": {"models": {"m": {"name": "{file:~/note.txt}",
  // "x": "{file:missing.txt}",
  "modalities": {"input": ["text", "video"]}}}}}}`,
		"/home/u/note.txt": "a \"quoted\" note\n",
	}, "PROV=loc")
	c, warns = decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	assert.Empty(t, warns)
	assert.Equal(t, []model.InputKind{model.InputVideo}, c.Input)
}

func TestOpencodeCapsBadFileIsNamed(t *testing.T) {
	mc := capsMachine(t, map[string]string{
		"/home/u/.config/opencode/opencode.json": cfg(`{"modalities": {"input": ["text"]}}`),
		"/home/u/p/opencode.json":                `{"provider": {`,
	})
	c, warns := decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0], "~/p/opencode.json")
	assert.Equal(t, "~/.config/opencode/opencode.json", c.Source)
}

// The models.dev catalogue: a config entry without modalities takes the
// catalogue's; a model only there takes them from there; without the file
// the decision is assumed and says why.
func TestOpencodeCapsCatalogue(t *testing.T) {
	catalogue := `{"anthropic": {"npm": "@ai-sdk/anthropic", "models": {"claude": {"id": "claude",
  "modalities": {"input": ["text", "image", "pdf"], "output": ["text"]}, "interleaved": true}}}}`
	mc := capsMachine(t, map[string]string{"/home/u/.cache/opencode/models.json": catalogue})
	c, _ := decideOne(t, mc, capsSession("/home/u/p", "anthropic", "claude"))
	assert.Equal(t, []model.InputKind{model.InputImage, model.InputPDF}, c.Input)
	assert.Equal(t, "the models.dev catalogue ~/.cache/opencode/models.json", c.Source)
	assert.Equal(t, "", c.Interleaved, "interleaved true names no field")
	assert.Equal(t, "@ai-sdk/anthropic", c.NPM)

	mc = capsMachine(t, map[string]string{
		"/home/u/.cache/opencode/models.json": catalogue,
		"/home/u/p/opencode.json":             `{"provider": {"anthropic": {"models": {"claude": {"name": "mine"}}}}}`,
	})
	c, _ = decideOne(t, mc, capsSession("/home/u/p", "anthropic", "claude"))
	assert.Equal(t, []model.InputKind{model.InputImage, model.InputPDF}, c.Input)

	mc = capsMachine(t, nil)
	c, _ = decideOne(t, mc, capsSession("/home/u/p", "anthropic", "claude"))
	assert.True(t, c.Assumed)
	assert.Equal(t, "all inputs", c.Decision())
	assert.Contains(t, c.Note, "~/.cache/opencode/models.json is not there")

	// declared without modalities, catalogue read and without the model: opencode's default
	mc = capsMachine(t, map[string]string{"/home/u/.cache/opencode/models.json": catalogue,
		"/home/u/p/opencode.json": cfg(`{"name": "x"}`)})
	c, _ = decideOne(t, mc, capsSession("/home/u/p", "loc", "m"))
	assert.False(t, c.Assumed)
	assert.Equal(t, "text-only", c.Decision())
	assert.Contains(t, c.Source, "no modalities")

	// a deepseek model declared only in the config gets reasoning_content
	mc = capsMachine(t, map[string]string{"/home/u/.cache/opencode/models.json": catalogue,
		"/home/u/p/opencode.json": `{"provider": {"ds": {"models": {"deepseek-chat": {}}}}}`})
	c, _ = decideOne(t, mc, capsSession("/home/u/p", "ds", "deepseek-chat"))
	assert.Equal(t, "reasoning_content", c.Interleaved)
}

func TestOpencodeCapsOverride(t *testing.T) {
	var caps model.SessionCapabilities // nothing read: assumed all inputs
	assert.True(t, caps.For("p", "m").Takes(model.InputImage))
	caps.Override = model.CapsTextOnly
	c := caps.For("p", "m")
	assert.False(t, c.Takes(model.InputImage))
	assert.Contains(t, c.Summary(caps.Declared("p", "m")), "text-only · overridden (declared: all inputs, assumed:")
}

func TestStripJSONC(t *testing.T) {
	out, err := stripJSONC([]byte(`{"a": "// not a comment", /* c */ "b": [1, 2,], // end
}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"a": "// not a comment", "b": [1, 2]}`, string(out))
	_, err = stripJSONC([]byte(`{"a": "open`))
	assert.Error(t, err)
}
