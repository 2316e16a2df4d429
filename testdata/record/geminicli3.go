package main

// The third Gemini CLI scenario: gemini-2.5-pro, an image and a PDF,
// overwrites and multi-occurrence replaces, a background shell, web_fetch
// against the fake server, a capped grep, a subagent making parallel calls, and three resumes in different minutes.

const geminiSubPrompt3 = "Look at the project from three sides at once and report in one sentence."

func geminiThirdScenario(proj string, p func(string) string, shell func(cmd, desc string) call, read func(string, ...any) call) cliScenario {
	const prompt = "Please run the third correx oracle scenario for Gemini CLI: media, edits, background work, a fetch, then summarise."
	replace := func(old, new string, extra ...any) call {
		return c("replace", J(append([]any{"file_path", p("rep.txt"), "old_string", old, "new_string", new, "instruction", "Swap letters."}, extra...)...))
	}
	return cliScenario{
		suffix: "-third", prompt: prompt, model: "gemini-2.5-pro",
		files: map[string][]byte{"logo.png": logoPNG(), "doc.pdf": []byte(tinyPDF), "rep.txt": []byte("x y x y x\n")},
		followUps: []string{
			"Next: read rep.txt again.",
			"Then: print README.md with cat.",
			"Last: search the web for correx.",
		},
		newMinute: []bool{true, true, true},
		subs: []cliScript{{name: "generalist", prompt: geminiSubPrompt3, steps: []step{
			{Reasoning: "Three looks at once.", Calls: []call{c("glob", J("pattern", "src/*.py")), shell("wc -c notes.txt", "Count bytes"), read("src/app.py")}},
			{Calls: []call{c("complete_task", J("result", J("response", "One Python file, notes of 49 bytes, and an answer of 42.")))}},
		}}},
		steps: []step{
			{
				Reasoning: "An image, a PDF and a listing at once.",
				Text:      "Reading media and listing sub/.",
				Calls:     []call{read("logo.png"), read("doc.pdf"), c("list_directory", J("dir_path", p("sub")))},
			},
			{Calls: []call{c("write_file", J("file_path", p("README.md"), "content", "# proj\n\nRewritten by the third scenario.\n"))}},
			{Calls: []call{replace("x", "z", "allow_multiple", true)}},
			{Calls: []call{replace("y", "w")}},
			{Calls: []call{c("run_shell_command", J("command", "sleep 3; echo background done", "description", "Slow echo", "is_background", true))}},
			{Calls: []call{c("list_background_processes", J())}},
			{Calls: []call{c("read_background_output", J("pid", rawJSON(pidPlaceholder), "delay_ms", 4000))}},
			{Calls: []call{c("web_fetch", J("prompt", "Summarise "+basePlaceholder+"/page.html in one line."))}},
			{Calls: []call{c("grep_search", J("pattern", "note", "total_max_matches", 2))}},
			{Text: "Asking a subagent.", Calls: []call{c("invoke_agent", J("agent_name", "generalist", "prompt", geminiSubPrompt3))}},
			{Reasoning: "All scripted work ran.", Text: "Third scenario done: media, edits, a background job, a fetch, large outputs and a subagent."},
			// first resume
			{Calls: []call{read("rep.txt")}},
			{Text: "rep.txt holds z y z y z."},
			// second resume
			{Calls: []call{shell("cat README.md", "Print README.md")}},
			{Text: "README.md is the rewritten one."},
			// third resume
			{Calls: []call{c("google_web_search", J("query", "correx"))}},
			{Text: "Nothing more about correx."},
		},
	}
}
