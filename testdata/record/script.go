package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// call is one scripted tool call; Args is the raw JSON arguments text the
// model "produces" (key order as written).
type call struct {
	Name string
	Args string
}

// step is one scripted LLM answer: optional reasoning, optional text, and
// zero or more tool calls (parallel when several). No calls ends the turn.
type step struct {
	Reasoning string
	Text      string
	Calls     []call
	Unsigned  bool // reasoning without a signature (Anthropic, Bedrock)
}

const (
	mainPrompt     = "Please run the correx oracle scenario: exercise the tools as scripted, then summarise what happened."
	followUpPrompt = "One more thing: show me the final contents of new.txt."
	explorePrompt  = "List the text files at the top of the project directory and report how many there are."
	titleAnswer    = "Oracle scenario run"
)

// J builds a JSON object with keys in the order given: J("a", 1, "b", "x").
// Values that are rawJSON are inserted as they are.
func J(kv ...any) rawJSON {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(kv[i].(string)))
		b.WriteByte(':')
		b.WriteString(string(toJSON(kv[i+1])))
	}
	b.WriteByte('}')
	return rawJSON(b.String())
}

// A builds a JSON array of the values given.
func A(vs ...any) rawJSON {
	var parts []string
	for _, v := range vs {
		parts = append(parts, string(toJSON(v)))
	}
	return rawJSON("[" + strings.Join(parts, ",") + "]")
}

type rawJSON string

func toJSON(v any) rawJSON {
	if r, ok := v.(rawJSON); ok {
		return r
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return rawJSON(strings.TrimSuffix(b.String(), "\n"))
}

func jsonString(s string) string { return string(toJSON(s)) }

func c(name string, args rawJSON) call { return call{Name: name, Args: string(args)} }

// scripts returns the scripted turns for the main conversation and for the
// explore subagent. Turn N of a conversation is answered by element N.
func scripts(f flavour, proj, pageURL string) (steps, explore []step) {
	switch f.Scenario {
	case "two":
		return scripts2(f, proj, pageURL)
	case "three":
		return scripts3(f, proj, pageURL)
	}
	p := func(rel string) string {
		if rel == "" {
			return proj
		}
		return proj + "/" + rel
	}
	gpt := f.Name == "responses" || f.Name == "responses-native"
	bash := func(cmd, desc string, extra ...any) call {
		kv := append([]any{"command", cmd, "description", desc}, extra...)
		return c("bash", J(kv...))
	}
	read := func(rel string, extra ...any) call {
		return c("read", J(append([]any{"filePath", p(rel)}, extra...)...))
	}

	steps = []step{
		{
			Reasoning: "The user wants the scripted oracle scenario. I will start with some shell commands: one with output, one silent, one failing.",
			Text:      "I'll start with a few shell commands.",
			Calls: []call{
				bash("echo hello from bash; echo second line", "Print two lines"),
				bash("true", "Produce no output"),
				bash("echo about to fail; echo this goes to stderr 1>&2; exit 3", "Fail with exit code 3"),
			},
		},
		{Calls: []call{bash("seq 1 100000; sleep 1", "Print a hundred thousand lines")}},
		{Calls: []call{bash("echo started; sleep 5; echo finished", "Sleep past the timeout", "timeout", 1000)}},
		{Calls: []call{bash(`printf '\033[31mred\033[0m plain\n'; printf 'emoji 🎉 ünïcödé\r\nsecond line\r\n'; printf 'no trailing newline'`, "Print ANSI, unicode and CRLF")}},
		{
			Reasoning: "Now the read tool: a small file, a long one, a window of it, and a file with a very long line.",
			Text:      "Now some reads.",
			Calls: []call{
				read("notes.txt"),
				read("big.txt"),
				read("big.txt", "offset", 2990, "limit", 5),
				read("long-line.txt"),
			},
		},
		{Calls: []call{
			read("does-not-exist.txt"),
			read(""),
			read("sub/example.txt"),
			read("crlf.txt"),
		}},
		{Calls: []call{
			read("pixel.png"),
			read("large.txt"),
			c("read", J()),
			read("nul.txt"),
		}},
	}
	if gpt {
		steps = append(steps,
			step{Text: "Creating a file with a patch.", Calls: []call{c("apply_patch", J("patchText",
				"*** Begin Patch\n*** Add File: new.txt\n+alpha\n+beta\n+gamma\n*** End Patch"))}},
			step{Calls: []call{c("apply_patch", J("patchText",
				"*** Begin Patch\n*** Update File: new.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch"))}},
			step{Calls: []call{c("apply_patch", J("patchText",
				"*** Begin Patch\n*** Update File: new.txt\n@@\n-no such text\n+replacement\n*** End Patch"))}},
		)
	} else {
		steps = append(steps,
			step{Text: "Creating a file.", Calls: []call{c("write", J("filePath", p("new.txt"), "content", "alpha\nbeta\ngamma\n"))}},
			step{Calls: []call{
				c("edit", J("filePath", p("new.txt"), "oldString", "beta", "newString", "BETA")),
				c("edit", J("filePath", p("crlf.txt"), "oldString", "no such text", "newString", "replacement")),
			}},
		)
	}
	todos := A(
		J("content", "Run the shell commands", "status", "completed", "priority", "high"),
		J("content", "Read the files", "status", "completed", "priority", "medium"),
		J("content", "Search and fetch ✓", "status", "in_progress", "priority", "medium"),
		J("content", "Delegate to a subagent", "status", "pending", "priority", "low"),
	)
	if f.Legacy {
		todos = A(
			J("content", "Run the shell commands", "status", "completed", "priority", "high", "id", "1"),
			J("content", "Read the files", "status", "completed", "priority", "medium", "id", "2"),
			J("content", "Search and fetch ✓", "status", "in_progress", "priority", "medium", "id", "3"),
			J("content", "Delegate to a subagent", "status", "pending", "priority", "low", "id", "4"),
		)
	}
	skill := "customize-opencode"
	if f.Legacy {
		skill = "oracle-skill"
	}
	steps = append(steps,
		step{
			Text: "Searching the project.",
			Calls: []call{
				c("glob", J("pattern", "**/*.txt", "path", proj)),
				c("glob", J("pattern", "*.nomatch", "path", proj)),
				c("grep", J("pattern", "needle", "path", proj)),
				c("grep", J("pattern", "zzz_no_match_zzz", "path", proj)),
			},
		},
		step{Calls: []call{c("todowrite", J("todos", todos))}},
		step{Calls: []call{
			c("webfetch", J("url", pageURL+"/page.html", "format", "markdown")),
			c("webfetch", J("url", pageURL+"/big-page.txt", "format", "text")),
		}},
		step{Calls: []call{c("skill", J("name", skill))}},
		step{Calls: []call{c("list", J("path", proj))}},
		step{
			Reasoning: "A subagent can list the text files while I wait.",
			Calls:     []call{c("task", J("description", "Find text files", "prompt", explorePrompt, "subagent_type", "explore"))},
		},
		step{
			Reasoning: "Everything in the script has run; time to summarise.",
			Text:      "All done: the shell, file, search, todo, web, skill and subagent tools have each been exercised, including their failure cases.",
		},
		// follow-up prompt
		step{
			Reasoning: "The user wants to see new.txt after the edits.",
			Calls:     []call{read("new.txt")},
		},
		step{Text: "new.txt now holds alpha, BETA and gamma."},
	)

	explore = []step{
		{
			Reasoning: "I'll glob for text files at the top level.",
			Calls:     []call{c("glob", J("pattern", "*.txt", "path", proj))},
		},
		{Text: "There are several text files at the top of the project, among them notes.txt, big.txt, large.txt and crlf.txt."},
	}
	return steps, explore
}

// scriptFor picks the script from the conversation's first user text.
func scriptFor(firstUser string, main, explore []step) (string, []step) {
	t := strings.TrimSpace(firstUser)
	switch {
	case t == mainPrompt, t == mainPrompt2, t == mainPrompt3:
		return "main", main
	case t == explorePrompt, strings.Contains(t, explorePrompt2), strings.Contains(t, explorePrompt3):
		return "explore", explore
	case strings.Contains(t, explorePrompt):
		return "explore", explore
	case strings.Contains(t, mainPrompt), strings.Contains(t, mainPrompt2), strings.Contains(t, mainPrompt3):
		return "main", main
	}
	return "", nil
}

func (s step) String() string {
	var names []string
	for _, c := range s.Calls {
		names = append(names, c.Name)
	}
	return fmt.Sprintf("reasoning=%v text=%v calls=%v", s.Reasoning != "", s.Text != "", names)
}
