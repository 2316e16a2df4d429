package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
)

// claudeProbeScenario is testdata/claude-code/probe: a third Claude Code
// run, by another model (claude-opus-5: the <total_tokens> reminder and
// mid-conversation system messages together), on other files and tools
// than the first two: a prompt of several text blocks; Write of a new and
// of an existing file; Edit with replace_all and an ambiguous Edit; Grep in
// every output mode with -n/-A/-B/-i/head_limit and Glob over 100 matches;
// Read past the end, of an empty, a binary, a directory, a PDF and a JPEG;
// ToolSearch and a deferred tool, a tool not offered; Bash in the
// background, past its timeout, with a large stderr, with control
// characters and invalid UTF-8; parallel calls where one Bash fails and
// its siblings are cancelled; a subagent that makes parallel calls; two
// resumes.
func claudeProbeScenario(proj string) claudeScenario {
	p, bash, read := claudeCalls(proj)
	sc := claudeScenario{
		Dir:    "probe",
		Prompt: "Run the correx probe scenario: write, edit, search, read odd files, run odd shell commands, delegate, then report.",
		PromptBlocks: []string{
			"First block: some context before the request.",
			"Run the correx probe scenario: write, edit, search, read odd files, run odd shell commands, delegate, then report.",
			"Third block: keep the report short.",
		},
		FollowUps:   []string{"Resumed: show me fresh.txt and the poem now.", "Resumed once more: list the sub folder."},
		AgentPrompt: "In parallel: read notes.txt, cat a missing file, and grep for needle; then say what you found.",
		Allowed:     "Bash,Read,Write,Edit,Glob,Grep,Agent,ToolSearch,TaskCreate",
		Files:       claudeProbeFiles(),
	}
	grep := func(kv ...any) call { return c("Grep", J(kv...)) }
	sc.Steps = []step{
		{
			Reasoning: "Several independent calls at once; the failing shell command should cancel its slow sibling.",
			Text:      "Starting with writes and reads in parallel.",
			Calls: []call{
				c("Write", J("file_path", p("fresh.txt"), "content", "fresh one\nfresh two\n")),
				read("notes.txt"),
				read("poem.txt"),
				bash("sleep 3; echo slow sibling", "Wait, then print"),
				bash("ls no-such-dir", "List a missing folder"),
				c("Glob", J("pattern", "*.nomatch")),
			},
		},
		{Calls: []call{
			c("Write", J("file_path", p("notes.txt"), "content", "rewritten note\nwith a needle again\n")),
			c("Edit", J("file_path", p("poem.txt"), "old_string", "cat", "new_string", "dog", "replace_all", true)),
			c("Edit", J("file_path", p("poem.txt"), "old_string", "the", "new_string", "a")),
		}},
		{
			Text: "Searching in every output mode.",
			Calls: []call{
				grep("pattern", "needle", "output_mode", "content", "-n", true, "-A", 1),
				grep("pattern", "NEEDLE", "output_mode", "content", "-i", true, "-B", 2, "path", p("log.txt")),
				grep("pattern", "line", "output_mode", "content", "head_limit", 3),
				grep("pattern", "needle", "output_mode", "files_with_matches", "glob", "*.txt", "head_limit", 2),
				grep("pattern", "needle", "output_mode", "count"),
				grep("pattern", "def ", "type", "py", "output_mode", "content", "-n", false),
			},
		},
		{Calls: []call{
			c("Glob", J("pattern", "many/*.txt")),
			c("Glob", J("pattern", "*.txt", "path", p("sub"))),
		}},
		{
			Text: "Reading odd files.",
			Calls: []call{
				read("big.txt", "offset", 5000, "limit", 10),
				read("empty.txt"),
				read("data.bin"),
				read("sub"),
				read("doc.pdf"),
				read("dot.jpg"),
			},
		},
		{Calls: []call{
			c("ToolSearch", J("query", "select:TaskCreate", "max_results", 1)),
			c("TodoWrite", J("todos", A(J("content", "probe", "status", "pending", "activeForm", "Probing")))),
		}},
		{Calls: []call{c("TaskCreate", J("subject", "Check the probe", "description", "Verify every tool result of the probe run."))}},
		{Calls: []call{bash("sleep 1; echo background done", "Run in the background", "run_in_background", true)}},
		{Calls: []call{bash("echo before the timeout; sleep 6; echo never printed", "Sleep past the timeout", "timeout", 1500)}},
		{Calls: []call{bash("seq 1 7000 1>&2", "Print seven thousand lines to stderr")}},
		{Calls: []call{bash(`printf 'bell\a tab\t nul\000 esc\033[2J del\177 bad\377\376 half\342\202 end\n'; printf '\033]0;title\007osc\r\nbare cr\rover\n'`, "Print control characters and invalid UTF-8")}},
		{
			Reasoning: "A subagent can do three look-ups in parallel.",
			Calls:     []call{c("Agent", J("description", "Parallel look-ups", "prompt", sc.AgentPrompt, "subagent_type", "general-purpose", "run_in_background", false))},
		},
		{Text: "Probe done: writes, edits, searches, odd reads, odd shell output and a subagent."},
		// the timed-out Bash went on in the background; its notification is a turn
		{Text: "The command that timed out has finished in the background."},
		// first resume
		{Calls: []call{bash("cat fresh.txt", "Print fresh.txt"), read("poem.txt")}},
		{Text: "fresh.txt has two lines; the poem has dogs now."},
		// second resume
		{Calls: []call{c("Glob", J("pattern", "**/*", "path", p("sub")))}},
		{Text: "sub holds its instructions and an example."},
	}
	sc.Agent = []step{
		{Calls: []call{
			read("notes.txt"),
			bash("cat missing-file.txt", "Print a missing file"),
			grep("pattern", "needle", "output_mode", "content"),
		}},
		{Text: "notes.txt has a needle; the missing file is missing."},
	}
	return sc
}

// claudeProbeFiles are the probe's own project files: a poem with repeated
// words, a log for context lines, 120 files for Glob's 100-file cap, a
// binary file, a one-page PDF and an 8×8 JPEG.
func claudeProbeFiles() map[string][]byte {
	files := map[string][]byte{
		"poem.txt": []byte("the cat sat on the mat\nthe cat ran\n"),
		"log.txt":  []byte("start\nalpha\nbeta\nfound a Needle here\ngamma\nend\n"),
		"data.bin": {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0xff, 0xfe, 0x00, 0x01, 0x80, 0x90},
		"doc.pdf":  onePagePDF("correx probe pdf"),
		"dot.jpg":  smallJPEG(),
	}
	for i := 1; i <= 120; i++ {
		files[fmt.Sprintf("many/f%03d.txt", i)] = []byte(fmt.Sprintf("file %d\n", i))
	}
	return files
}

// onePagePDF is a minimal valid PDF of one page showing text.
func onePagePDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 18 Tf 20 50 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func smallJPEG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 32), G: uint8(y * 32), B: 0x80, A: 0xff})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// claudeStreamInput is one stream-json user message of the text blocks
// given, for `claude -p --input-format stream-json` on stdin.
func claudeStreamInput(blocks []string) string {
	var content []map[string]string
	for _, t := range blocks {
		content = append(content, map[string]string{"type": "text", "text": t})
	}
	b, err := json.Marshal(map[string]any{
		"type":    "user",
		"message": map[string]any{"role": "user", "content": content},
	})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}
