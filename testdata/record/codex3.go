package main

// The third Codex scenario: long-running processes polled and fed with
// write_stdin, bytes that are not UTF-8, several images, a multi-file patch
// with a move and a delete, parallel calls that partly fail, two resumes,
// and a model id Codex has no preset for.

import (
	"regexp"
	"strings"
)

// Placeholders in a call's arguments, filled from the request: the agents
// pick process ids at run time.
const (
	// the last process Codex reported running ("Process running with
	// session ID N")
	sessionPlaceholder = `"$SESSION"`
	// the last background process Gemini CLI started ("PID: N")
	pidPlaceholder = `"$PID"`
	// the last agent Codex spawned ("agent_id":"…" in spawn_agent's output)
	agentPlaceholder = `"$AGENT"`
	// the fake server's base URL, inside a JSON string
	basePlaceholder = "$BASE"
)

var (
	codexSessionRe = regexp.MustCompile(`Process running with session ID (\d+)`)
	geminiPIDRe    = regexp.MustCompile(`PID: (\d+)`)
	codexAgentRe   = regexp.MustCompile(`\\"agent_id\\":\\"([^"\\]+)\\"`)
)

func fillPlaceholders(st step, body []byte, baseURL string) step {
	last := func(re *regexp.Regexp) string {
		m := re.FindAllSubmatch(body, -1)
		if len(m) == 0 {
			return "0"
		}
		return string(m[len(m)-1][1])
	}
	calls := make([]call, len(st.Calls))
	for i, c := range st.Calls {
		c.Args = strings.NewReplacer(sessionPlaceholder, last(codexSessionRe), pidPlaceholder, last(geminiPIDRe),
			agentPlaceholder, `"`+last(codexAgentRe)+`"`, basePlaceholder, baseURL).Replace(c.Args)
		calls[i] = c
	}
	st.Calls = calls
	return st
}

// codexSubPrompt is the message of the subagent codex-third spawns; it
// selects the subagent's script.
const codexSubPrompt = "Count the lines of notes.txt and answer with the number only."

func codexThirdScenario(proj string, exec func(string, ...any) call, patch func(string) call, image func(string) call) cliScenario {
	const prompt = "Please run the third correx oracle scenario for Codex: processes, odd bytes, images, patches, then summarise."
	stdin := func(chars string, extra ...any) call {
		return c("write_stdin", J(append([]any{"session_id", rawJSON(sessionPlaceholder), "chars", chars}, extra...)...))
	}
	return cliScenario{
		suffix: "-third", prompt: prompt,
		subs: []cliScript{{name: "sub", prompt: codexSubPrompt, steps: []step{
			{Calls: []call{exec("wc -l notes.txt")}},
			{Text: "3"},
		}}},
		followUps: []string{
			"Next: show what a.txt holds now.",
			"Last: list the moved directory.",
		},
		steps: []step{
			{
				Reasoning: "A slow command first, polled later; an image copy for later.",
				Calls:     []call{exec("sleep 2; echo slow done", "yield_time_ms", 250), exec("cp pixel.png copy.png")},
			},
			{Calls: []call{stdin("", "yield_time_ms", 5000)}},
			{Calls: []call{exec("cat", "tty", true, "yield_time_ms", 300)}},
			{Calls: []call{stdin("hello cat\n", "yield_time_ms", 300)}},
			{Calls: []call{stdin("\u0004", "yield_time_ms", 2000)}},
			{Calls: []call{exec(`printf 'bad \377\376 utf8 \001\007\033[31m red\033[0m\r\nlast\n'`)}},
			{
				Text:  "Three images at once: two pixels and a text file.",
				Calls: []call{image("pixel.png"), image("copy.png"), image("notes.txt")},
			},
			{Calls: []call{patch("*** Begin Patch\n*** Add File: a.txt\n+first\n*** Update File: sub/example.txt\n*** Move to: moved/example.txt\n@@\n-an example inside sub\n+an example, moved\n*** Delete File: empty.txt\n*** End Patch\n")}},
			{Calls: []call{patch("*** Begin Patch\n*** Delete File: no-such-file.txt\n*** End Patch\n")}},
			{Calls: []call{patch("this is not a patch\n")}},
			{
				Text: "Some of these fail.",
				Calls: []call{
					exec("echo fine"),
					c("exec_command", J("cmd", "ls", "workdir", proj+"/no-such-dir")),
					image("missing.png"),
					c("no_such_tool", J("x", 1)),
					exec("exit 4"),
				},
			},
			{Calls: []call{exec("seq 1 20000")}},
			{Text: "Asking a subagent.", Calls: []call{c("multi_agent_v1/spawn_agent", J("message", codexSubPrompt))}},
			{Calls: []call{c("multi_agent_v1/wait_agent", J("targets", A(rawJSON(`"$AGENT"`)), "timeout_ms", 30000))}},
			{Calls: []call{exec("sleep 40; echo never", "yield_time_ms", 1000)}},
			{Reasoning: "That is everything.", Text: "Third scenario done: processes, odd bytes, images, patches and failures."},
			// first resume
			{Calls: []call{exec("cat a.txt")}},
			{Text: "a.txt holds first."},
			// second resume
			{Calls: []call{exec("ls moved")}},
			{Text: "moved holds example.txt."},
		},
	}
}
