package main

import (
	"fmt"
	"strings"
)

// The masked Gemini CLI scenario: two reads of 72,000 characters, then
// two resumes. A resume sends every earlier function response twice (see
// geminiCheckStoredVsSent), so the first resume's history holds about
// 73,000 tokens of tool output (Gemini CLI estimates 4 characters a
// token): past the 50,000 tokens ToolOutputMaskingService protects, with
// the 36,000 beyond (both copies of the older read) over its 30,000-token
// minimum. That run masks them, re-records the history under new ids and
// sets the chat's list to those (setHistory); the next resume converts
// those records, losing the main prompt merged into the session context.
func geminiMaskedScenario(proj string, read func(string, ...any) call) cliScenario {
	const prompt = "Please run the masked correx oracle scenario for Gemini CLI: read two big files, then summarise."
	big := func(tag string) []byte { // 1,200 lines of 60 characters
		var b strings.Builder
		for i := 1; i <= 1200; i++ {
			fmt.Fprintf(&b, "%-59s\n", fmt.Sprintf("%s big line %d", tag, i))
		}
		return []byte(b.String())
	}
	return cliScenario{
		suffix: "-masked", prompt: prompt, model: "gemini-2.5-pro",
		files: map[string][]byte{"big1.txt": big("first"), "big2.txt": big("second"), "small.txt": []byte("one small line\n")},
		followUps: []string{
			"Next: read small.txt.",
			"Last: say you are done.",
		},
		newMinute: []bool{true, true},
		steps: []step{
			{Text: "Reading the first big file.", Calls: []call{read("big1.txt")}},
			{Calls: []call{read("big2.txt")}},
			{Text: "Both big files read."},
			// first resume: masks the first read
			{Calls: []call{read("small.txt")}},
			{Text: "small.txt holds one small line."},
			// second resume
			{Text: "Done."},
		},
	}
}
