package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	neutralHome = "/home/user"
	markerFile  = ".correx-recorder"
)

// layout is where things live under the neutral home.
type layout struct {
	Home, Proj, Data, Config, Cache, State, Tmp string
}

func newLayout(home string) layout {
	return layout{
		Home:   home,
		Proj:   filepath.Join(home, "proj"),
		Data:   filepath.Join(home, ".local", "share"),
		Config: filepath.Join(home, ".config"),
		Cache:  filepath.Join(home, ".cache"),
		State:  filepath.Join(home, ".local", "state"),
		Tmp:    filepath.Join(home, "tmp"),
	}
}

// opencodeData is opencode's own data dir ($XDG_DATA_HOME/opencode).
func (l layout) opencodeData() string { return filepath.Join(l.Data, "opencode") }

// homeUsable tells whether resetHome may wipe home, without touching it.
func homeUsable(home string) error {
	st, err := os.Stat(home)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%w: %s exists and is not a directory", errRefuseHome, home)
	}
	if _, err := os.Stat(filepath.Join(home, markerFile)); err != nil {
		return fmt.Errorf("%w: %s exists and has no %s marker, so it was not made by this recorder; move it away or remove it yourself", errRefuseHome, home, markerFile)
	}
	return nil
}

// resetHome wipes and recreates the neutral home, but only if it does not
// exist or carries the marker this recorder left there.
func resetHome(home string) error {
	if err := homeUsable(home); err != nil {
		return err
	}
	if err := os.RemoveAll(home); err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, markerFile), []byte("made by correx testdata/record; wiped on every recording\n"), 0o644)
}

// projectFiles are the files of the scenario's project, committed to git.
func projectFiles() map[string][]byte {
	files := map[string][]byte{
		"notes.txt":       []byte("first note\nsecond note with a needle\nthird note\n"),
		"crlf.txt":        []byte("alpha\r\nbeta\r\ngamma\r\n"),
		"lone-cr.txt":     []byte("one\rtwo\rthree\n"),
		"empty.txt":       {},
		"nul.txt":         []byte("before\x00after\n"),
		"AGENTS.md":       []byte("# Project instructions\n\nThis is the correx oracle project. Keep answers short.\n"),
		"sub/AGENTS.md":   []byte("# Instructions for sub/\n\nFiles in sub/ are examples; do not edit them.\n"),
		"sub/example.txt": []byte("an example inside sub\n"),
		"src/app.py":      []byte("def answer():\n    needle = 42\n    return needle\n\n\nif __name__ == \"__main__\":\n    print(answer())\n"),
		"README.md":       []byte("# proj\n\nA small project for recording opencode sessions.\n"),
	}
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&big, "big line %d\n", i)
	}
	files["big.txt"] = []byte(big.String())
	var large strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&large, "large line %04d %s\n", i, strings.Repeat("y", 60))
	}
	files["large.txt"] = []byte(large.String())
	files["long-line.txt"] = []byte(strings.Repeat("W", 2500) + "\nshort second line\n")
	files["pixel.png"] = pixelPNG()
	return files
}

func pixelPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 0xd0, G: 0x40, B: 0x20, A: 0xff})
	return encodePNG(img)
}

func encodePNG(img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// bigPage is served for webfetch's truncation case.
func bigPage() []byte {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "page line %d\n", i)
	}
	return []byte(b.String())
}

const smallPage = `<!DOCTYPE html>
<html>
<head><title>Oracle page</title></head>
<body>
<h1>Oracle page</h1>
<p>This page is served by the <b>correx recorder</b> for the webfetch tool.</p>
<ul><li>first</li><li>second</li></ul>
</body>
</html>
`

// setupProject wipes the neutral home, makes its XDG dirs and dirs, and
// lays out the project: files in a git repo with one commit at a fixed
// date, so its id is the same in every recording.
func setupProject(l layout, files map[string][]byte, dirs ...string) error {
	if err := resetHome(l.Home); err != nil {
		return err
	}
	for _, d := range append([]string{l.Proj, l.Data, l.Config, l.Cache, l.State, l.Tmp}, dirs...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, body := range files {
		p := filepath.Join(l.Proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = l.Proj
		cmd.Env = append(baseEnv(l),
			"GIT_AUTHOR_NAME=Oracle User", "GIT_AUTHOR_EMAIL=user@example.com",
			"GIT_COMMITTER_NAME=Oracle User", "GIT_COMMITTER_EMAIL=user@example.com",
			"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
			"GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// setupHome is setupProject with opencode's config (opencode.json, and a
// skill for 1.1.x).
func setupHome(l layout, f flavour, baseURL string) error {
	if err := setupProject(l, f.scenarioFiles()); err != nil {
		return err
	}
	if err := setupScenarioConfig(l, f, baseURL); err != nil {
		return err
	}
	cfg := opencodeConfig(f, baseURL)
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	// opencode.json is written after the commit: it stays untracked.
	if err := os.WriteFile(filepath.Join(l.Proj, "opencode.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if f.Legacy {
		// 1.1.x has no built-in skill: give it one.
		dir := filepath.Join(l.Config, "opencode", "skills", "oracle-skill")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		skill := "---\nname: oracle-skill\ndescription: A small skill used by the correx recorder.\n---\n\n# Oracle skill\n\nWhen this skill is loaded, answer with the word oracle.\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// opencodeConfig is the project's opencode.json for a flavour.
func opencodeConfig(f flavour, baseURL string) map[string]any {
	textOnly := map[string]any{"input": []string{"text"}, "output": []string{"text"}}
	withImage := map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}}
	limit := map[string]any{"context": 200000, "output": 8192}
	cfg := map[string]any{
		"autoupdate":  false,
		"share":       "disabled",
		"permission":  map[string]any{"*": "allow", "external_directory": "allow"},
		"model":       f.model(),
		"small_model": f.model(),
	}
	var provider map[string]any
	switch f.Name {
	case "openai", "legacy":
		provider = map[string]any{f.ProviderID: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Oracle OpenAI-compatible",
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-oracle-fake-key"},
			"models": map[string]any{f.ModelID: map[string]any{
				"name": "Oracle Model", "tool_call": true, "reasoning": false, "attachment": false,
				"modalities": textOnly, "limit": limit,
			}},
		}}
	case "local":
		// declared in the global config (scenario2.go), not here
		return cfg
	case "anthropic", "anthropic-native", "v2-anthropic", "anthropic-2", "probe-native":
		provider = map[string]any{"anthropic": map[string]any{
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-ant-oracle-fake-key"},
		}}
	case "responses", "responses-native":
		provider = map[string]any{"openai": map[string]any{
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-oracle-fake-key"},
		}}
	case "v2":
		provider = map[string]any{f.ProviderID: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Oracle OpenAI-compatible",
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-oracle-fake-key"},
			"models": map[string]any{f.ModelID: map[string]any{
				"name": "Oracle Model", "tool_call": true, "reasoning": false, "attachment": true,
				"modalities": withImage, "limit": limit,
			}},
		}}
	case "probe-claude", "probe-mistral", "probe-legacy":
		provider = probeConfig(f, baseURL)
	case "gemini", "probe-gemini":
		provider = map[string]any{f.ProviderID: map[string]any{
			"npm":     "@ai-sdk/google",
			"name":    "Oracle Gemini",
			"options": map[string]any{"baseURL": baseURL + "/v1beta", "apiKey": "oracle-fake-gemini-key"},
			"models": map[string]any{f.ModelID: map[string]any{
				"name": "Gemini 2.5 Pro (oracle)", "tool_call": true, "reasoning": true, "attachment": true,
				"modalities": withImage, "limit": limit,
			}},
		}}
	case "bedrock", "probe-bedrock":
		provider = map[string]any{"amazon-bedrock": map[string]any{
			"options": map[string]any{"region": "us-east-1", "baseURL": baseURL},
		}}
	}
	cfg["provider"] = provider
	return cfg
}

// baseEnv is the whole environment opencode (and git) run with: nothing
// from the build machine but PATH's system directories.
func baseEnv(l layout) []string {
	return []string{
		"HOME=" + l.Home,
		"USER=user",
		"LOGNAME=user",
		"SHELL=/bin/bash",
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"XDG_DATA_HOME=" + l.Data,
		"XDG_CONFIG_HOME=" + l.Config,
		"XDG_CACHE_HOME=" + l.Cache,
		"XDG_STATE_HOME=" + l.State,
		"TMPDIR=" + l.Tmp,
	}
}
