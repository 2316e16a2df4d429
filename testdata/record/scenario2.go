package main

// The second opencode scenario ("two"), of the flavours local and
// anthropic-2: other files, commands and tool order than script.go's, every
// spill kind of opencode 1.18.33 just over its thresholds (2000 lines /
// 51200 bytes), an image read, parallel calls, a failing command, a
// subagent and a resumed session with a follow-up prompt. local also reads
// a PDF, the other input kind a tool result can carry (`opencode run -f`
// cannot attach audio: opencode reads the file as text and fails with
// "Cannot read binary file").

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
)

const (
	mainPrompt2     = "Please run the second correx oracle scenario, then summarise it."
	followUpPrompt2 = "Thanks. Now count the words in notes.txt."
	explorePrompt2  = "Name the markdown files of the project and say how many there are."
)

// prompts are the flavour's main, follow-up and subagent prompts, and
// the second follow-up's ("" for none).
func (f flavour) prompts() (main, followUp, explore, second string) {
	switch f.Scenario {
	case "two":
		return mainPrompt2, followUpPrompt2, explorePrompt2, ""
	case "three":
		return mainPrompt3, followUpPrompt3, explorePrompt3, secondPrompt3
	}
	return mainPrompt, followUpPrompt, explorePrompt, ""
}

// scenarioFiles are the project files of a flavour's scenario.
func (f flavour) scenarioFiles() map[string][]byte {
	files := projectFiles()
	if f.Scenario == "three" {
		scenarioFiles3(files)
	}
	if f.Scenario != "two" {
		return files
	}
	var lines, wide strings.Builder
	for i := 1; i <= 2100; i++ {
		fmt.Fprintf(&lines, "row %d\n", i)
	}
	for i := 1; i <= 760; i++ { // 760 × 70 bytes = 53,200 > 51,200
		fmt.Fprintf(&wide, "wide %04d %s\n", i, strings.Repeat("w", 59))
	}
	files["rows.txt"] = []byte(lines.String())
	files["wide.txt"] = []byte(wide.String())
	files["logo.png"] = logoPNG()
	files["doc.pdf"] = []byte(tinyPDF)
	files["docs/guide.md"] = []byte("# Guide\n\nSecond scenario notes.\n")
	return files
}

// scripts2 is scenario two: the main conversation and the explore subagent.
func scripts2(f flavour, proj, pageURL string) (steps, explore []step) {
	p := func(rel string) string { return proj + "/" + rel }
	bash := func(cmd, desc string) call { return c("bash", J("command", cmd, "description", desc)) }
	read := func(rel string, extra ...any) call {
		return c("read", J(append([]any{"filePath", p(rel)}, extra...)...))
	}
	steps = []step{
		{
			Reasoning: "Second scenario: an image, a listing and a glob, all at once.",
			Text:      "Looking around first.",
			Calls: []call{
				read("logo.png"),
				bash("ls -1 | head -n 4", "List a few files"),
				c("glob", J("pattern", "**/*.md", "path", proj)),
			},
		},
		{Calls: []call{
			c("grep", J("pattern", "needle", "path", proj, "include", "*.py")),
			bash("cat missing-file.txt; echo 'cat failed' 1>&2; exit 2", "Fail on a missing file"),
		}},
		{Calls: []call{bash("seq 1 2100; sleep 1", "Print 2,100 lines")}},
		{Calls: []call{bash(`awk 'BEGIN { for (i = 1; i <= 760; i++) printf "awk %04d %s\n", i, sprintf("%060d", 0) }'; sleep 1`, "Print 53 KB in 760 lines")}},
		{
			Reasoning: "Reading past the read tool's limits: 2,100 lines, then 53 KB.",
			Calls:     []call{read("rows.txt"), read("wide.txt")},
		},
		{Calls: []call{c("webfetch", J("url", pageURL+"/rows-page.txt", "format", "text"))}},
	}
	if f.Name == "local" {
		steps = append(steps, step{Calls: []call{read("doc.pdf")}})
	}
	steps = append(steps,
		step{
			Reasoning: "A subagent can find the markdown files.",
			Calls:     []call{c("task", J("description", "Find markdown files", "prompt", explorePrompt2, "subagent_type", "explore"))},
		},
		step{
			Reasoning: "Done; summarise.",
			Text:      "Second scenario done: image, listing, searches, a failing command, long outputs, a web page and a subagent.",
		},
		// follow-up prompt
		step{
			Reasoning: "Counting words with wc.",
			Calls:     []call{bash("wc -w notes.txt", "Count the words")},
		},
		step{Text: "notes.txt has 10 words."},
	)
	explore = []step{
		{
			Reasoning: "Globbing for markdown.",
			Calls:     []call{c("glob", J("pattern", "**/*.md", "path", proj))},
		},
		{Text: "There are three markdown files: AGENTS.md, README.md and docs/guide.md (plus sub/AGENTS.md)."},
	}
	return steps, explore
}

// rowsPage is served for scenario two's webfetch: 2,100 lines, just over
// the generic truncation's 2,000.
func rowsPage() []byte {
	var b strings.Builder
	for i := 1; i <= 2100; i++ {
		fmt.Fprintf(&b, "page row %d\n", i)
	}
	return []byte(b.String())
}

func logoPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.NRGBA{R: 0x20, G: 0x60, B: 0xd0, A: 0xff})
	img.Set(1, 1, color.NRGBA{R: 0xf0, G: 0xc0, B: 0x10, A: 0xff})
	return encodePNG(img)
}

// tinyPDF is a one-page PDF with no content.
const tinyPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// localGlobalConfig is local's ~/.config/opencode/opencode.jsonc: the
// OpenAI-compatible provider and its text-only model with an interleaved
// reasoning field, declared globally, in JSONC (comments, trailing commas),
// its key through {env:}.
func localGlobalConfig(f flavour, baseURL string) string {
	return `{
  "$schema": "https://opencode.ai/config.json",
  // A local model behind an OpenAI-compatible server: it reads text only
  // and wants its reasoning sent back in reasoning_content.
  "provider": {
    "` + f.ProviderID + `": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Oracle local server",
      "options": {
        "baseURL": "` + baseURL + `/v1",
        "apiKey": "{env:ORACLE_LOCAL_KEY}", /* from the environment */
      },
      "models": {
        "` + f.ModelID + `": {
          "name": "Oracle Local Model",
          "tool_call": true,
          "reasoning": true,
          "attachment": false,
          "interleaved": { "field": "reasoning_content" },
          "modalities": { "input": ["text"], "output": ["text"] },
          "limit": { "context": 131072, "output": 8192 },
        },
      },
    },
  },
}
`
}

// anthropicCatalogue is anthropic-2's models.dev cache
// (~/.cache/opencode/models.json): opencode 1.18.33's own catalogue entry
// for the model, cut to that provider and model to keep the fixture small.
func anthropicCatalogue(f flavour) ([]byte, error) {
	var entry map[string]any
	if err := json.Unmarshal([]byte(`{"id":"claude-sonnet-4-5","name":"Claude Sonnet 4.5 (latest)","description":"Balanced Claude model for coding, analysis, agent workflows, and cost control","family":"claude-sonnet","attachment":true,"reasoning":true,"reasoning_options":[{"type":"budget_tokens","min":1024}],"tool_call":true,"structured_output":true,"temperature":true,"knowledge":"2025-07-31","release_date":"2025-09-29","last_updated":"2025-09-29","modalities":{"input":["text","image","pdf"],"output":["text"]},"open_weights":false,"limit":{"context":1000000,"output":64000},"cost":{"input":3,"output":15,"cache_read":0.3,"cache_write":3.75}}`), &entry); err != nil {
		return nil, err
	}
	cat := map[string]any{"anthropic": map[string]any{
		"id": "anthropic", "env": []string{"ANTHROPIC_API_KEY"}, "npm": "@ai-sdk/anthropic", "name": "Anthropic",
		"doc": "https://docs.anthropic.com/en/docs/about-claude/models", "models": map[string]any{f.ModelID: entry},
	}}
	return json.Marshal(cat)
}

// setupScenarioConfig writes what scenario two adds to opencode's config:
// local's global JSONC config, anthropic-2's models.dev cache.
func setupScenarioConfig(l layout, f flavour, baseURL string) error {
	switch f.Name {
	case "local":
		dir := filepath.Join(l.Config, "opencode")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "opencode.jsonc"), []byte(localGlobalConfig(f, baseURL)), 0o644)
	case "anthropic-2":
		b, err := anthropicCatalogue(f)
		if err != nil {
			return err
		}
		dir := filepath.Join(l.Cache, "opencode")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "models.json"), b, 0o644)
	}
	return nil
}

// configChain lists the files opencode 1.18.33 reads its config and model
// catalogue from, for a session in the project (see sessions/opencode/caps.go):
// the global config dir, ~/.opencode, the project's files and .opencode/,
// the models.dev cache.
func configChain(l layout) []string {
	global := filepath.Join(l.Config, "opencode")
	var out []string
	for _, dir := range []string{global, filepath.Join(l.Home, ".opencode"), l.Proj, filepath.Join(l.Proj, ".opencode")} {
		for _, name := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return append(out, filepath.Join(l.Cache, "opencode", "models.json"))
}

// saveConfigChain copies the config files opencode read (as they are after
// the run: opencode adds "$schema" to a file without one) into the
// fixture's root/, at their paths on the recording machine, so correx can
// decide the model's capabilities from them as it does on a real machine.
func saveConfigChain(l layout, stage string) error {
	for _, src := range configChain(l) {
		st, err := os.Stat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		dst := filepath.Join(stage, "root", src)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyFile(src, dst); err != nil {
			return err
		}
	}
	return nil
}

// rebuildRoot gives a fixture recorded before the recorder kept root/ its
// config chain: the project's opencode.json as the recorder wrote it, from
// record.json's opencode_json (written with the same json.MarshalIndent of
// a map; opencode then added "$schema" to the file, which is not kept). The
// recorder wrote no other config file for those flavours.
func rebuildRoot(outDir string, f flavour) error {
	dir := filepath.Join(outDir, f.Name)
	b, err := os.ReadFile(filepath.Join(dir, "record.json"))
	if err != nil {
		return err
	}
	var rec struct {
		Project string         `json:"project"`
		Config  map[string]any `json:"opencode_json"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	if rec.Project == "" || rec.Config == nil {
		return fmt.Errorf("%s/record.json has no project or opencode_json", dir)
	}
	cfg, err := json.MarshalIndent(rec.Config, "", "  ")
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, "root", rec.Project, "opencode.json")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	logf("%s: %s from record.json", f.Name, dst)
	return os.WriteFile(dst, append(cfg, '\n'), 0o644)
}
