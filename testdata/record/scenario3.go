package main

// The third opencode scenario ("three"), of the probe-* flavours: what the
// first two leave out. Edits with replaceAll, a write over an existing
// file, reads of a binary file, a directory and a 60 KB line, grep and glob
// past their 100-entry caps, a 52 KB one-line bash output, bash with
// workdir, webfetch as html and as text of HTML, todowrite then todoread,
// tools opencode does not have, a call with invalid JSON arguments, a
// subagent making parallel calls, a bash call interrupted by SIGINT, and
// two resumes. Model ids test the per-model rules on OpenAI-compatible
// Chat: a "claude" id and a Mistral id (tool call ids with ':' and '.').

import (
	"fmt"
	"strings"
)

const (
	mainPrompt3     = "Run the third correx probe scenario."
	followUpPrompt3 = "The sleep was interrupted. Say what happened, then carry on."
	secondPrompt3   = "Last thing: read notes.txt again."
	explorePrompt3  = "Search the project three ways at once and report."
	// interruptCommand is the bash call the recorder interrupts (SIGINT
	// to opencode's process group once its step was served).
	interruptCommand = "echo sleeping; sleep 60; echo woke"
)

// scenarioFiles3 adds scenario three's files to the project.
func scenarioFiles3(files map[string][]byte) {
	var hits strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&hits, "hit %d of the grep cap\n", i)
	}
	files["hits.log"] = []byte(hits.String())
	for i := 1; i <= 110; i++ {
		files[fmt.Sprintf("many/f%03d.txt", i)] = []byte(fmt.Sprintf("file %d\n", i))
	}
	files["huge-line.txt"] = []byte(strings.Repeat("H", 60000) + "\nsecond\n")
	bin := make([]byte, 256)
	for i := range bin {
		bin[i] = byte(i)
	}
	files["blob.bin"] = bin
}

// scripts3 is scenario three: the main conversation (and its two
// follow-ups) and the explore subagent.
func scripts3(f flavour, proj, pageURL string) (steps, explore []step) {
	p := func(rel string) string { return proj + "/" + rel }
	bash := func(cmd, desc string, extra ...any) call {
		return c("bash", J(append([]any{"command", cmd, "description", desc}, extra...)...))
	}
	read := func(rel string) call { return c("read", J("filePath", p(rel))) }
	steps = []step{
		{
			Reasoning: "Probe three: reads of odd files first.",
			Unsigned:  true,
			Text:      "Reading odd files.",
			Calls:     []call{read("README.md"), read("empty.txt"), read("sub"), read("blob.bin")},
		},
		{Calls: []call{
			c("edit", J("filePath", p("notes.txt"), "oldString", "note", "newString", "NOTE", "replaceAll", true)),
			c("write", J("filePath", p("README.md"), "content", "# proj\n\nRewritten by the probe.\n")),
			c("edit", J("filePath", p("crlf.txt"), "oldString", "beta", "newString", "beta")),
			c("multiedit", J("filePath", p("notes.txt"), "edits", A(J("oldString", "first", "newString", "1st")))),
		}},
		{Calls: []call{read("huge-line.txt"), bash(`head -c 52000 /dev/zero | tr '\0' x; echo`, "One 52 KB line")}},
		{Calls: []call{
			c("grep", J("pattern", "hit", "path", proj, "include", "*.log")),
			c("glob", J("pattern", "many/*.txt", "path", proj)),
		}},
		{Calls: []call{bash("pwd; ls", "List sub from inside it", "workdir", p("sub"), "timeout", 5000)}},
		{Calls: []call{
			c("webfetch", J("url", pageURL+"/page.html", "format", "html")),
			c("webfetch", J("url", pageURL+"/page.html", "format", "text")),
		}},
		{Calls: []call{c("todowrite", J("todos", A(J("content", "Probe the tools", "status", "in_progress", "priority", "high"))))}},
		{Calls: []call{c("todoread", J()), c("frobnicate", J("level", 3))}},
	}
	// Gemini's functionCall args are an object, never invalid JSON; the
	// native lowering ends the run on one ("ProviderShared.stream: Invalid
	// JSON input for anthropic-messages tool call bash").
	if f.Wire != "gemini" && f.Lowering != "native" {
		steps = append(steps, step{Calls: []call{{Name: "bash", Args: `{"command": "echo broken", "description": `}}})
	}
	steps = append(steps,
		step{
			Reasoning: "A subagent searches in parallel.",
			Calls:     []call{c("task", J("description", "Search three ways", "prompt", explorePrompt3, "subagent_type", "explore"))},
		},
		step{
			Reasoning: "Now a long sleep.",
			Text:      "Sleeping.",
			Calls:     []call{bash(interruptCommand, "Sleep a minute")},
		},
		// follow-up one (after the interruption)
		step{
			Reasoning: "The sleep was cut short.",
			Unsigned:  true,
			Calls:     []call{bash("echo resumed", "Resume")},
		},
		step{Text: "The sleep was interrupted; resumed."},
		// follow-up two
		step{Calls: []call{read("notes.txt")}},
		step{Text: "notes.txt now says NOTE."},
	)
	explore = []step{
		{
			Reasoning: "Three searches at once.",
			Calls: []call{
				c("glob", J("pattern", "**/*.md", "path", proj)),
				c("grep", J("pattern", "needle", "path", proj)),
				c("read", J("filePath", p("src/app.py"), "offset", 2, "limit", 2)),
			},
		},
		{Text: "Found the markdown files, the needle in src/app.py and its lines 2-3."},
	}
	return steps, explore
}

// probeConfig is the project's provider entry for the probe flavours on
// OpenAI-compatible Chat: probe-claude declares image input, probe-mistral
// text only.
func probeConfig(f flavour, baseURL string) map[string]any {
	input := []string{"text"}
	if f.Name == "probe-claude" {
		input = []string{"text", "image"}
	}
	return map[string]any{f.ProviderID: map[string]any{
		"npm":     "@ai-sdk/openai-compatible",
		"name":    "Oracle probe",
		"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": "sk-oracle-fake-key"},
		"models": map[string]any{f.ModelID: map[string]any{
			"name": "Oracle probe model", "tool_call": true, "reasoning": true, "attachment": len(input) > 1,
			"modalities": map[string]any{"input": input, "output": []string{"text"}},
			"limit":      map[string]any{"context": 200000, "output": 8192},
		}},
	}}
}
