// Command gen writes large synthetic agent sessions for benchmarking
// correx:
//
//	go run ./testdata/gen -calls 5000 -mb 250 -out DIR
//	go run ./testdata/gen -agent claude-code -calls 5000 -mb 200 -out DIR
//
// Flags:
//
//	-agent A     opencode (default), claude-code, codex or gemini-cli
//	-out DIR     dir to write (required; best a new one: opencode.db is
//	             replaced, other files are written over); what goes in it
//	             depends on the agent (below)
//	-calls N     tool calls per session (default 5000)
//	-mb M        total size of the tool outputs per session, in MiB
//	             (default 250); most outputs are small (100 B–20 KB), about
//	             one call in a hundred is a bash output of several MB that
//	             takes the rest, and a few more are truncated by the agent
//	-sessions S  sessions in the store (opencode only; default 1): for the
//	             session picker
//	-huge M      make the last call a bash output of M MiB (beyond -mb),
//	             written, truncated and spilled as that agent's writer does
//	             with its other big outputs: for one huge output in the TUI
//	-seed S      random seed (default 1); the same flags give the same bytes
//	-quiet       print nothing but the session id
//
// Every agent's records are cloned from the real recorded ones in
// testdata/<agent> (run from the repository root, or set -fixtures): the
// same record types, fields and field order, with the ids made unique,
// steps of one to five parallel calls, errors, and the big outputs
// truncated the way that agent truncates them, spill files included.
//
//   - opencode 1.18.33: DIR/opencode.db (the exact schema of a real store)
//     and DIR/tool-output/tool_… spill files; see opencode.go.
//   - Claude Code 2.1.332: DIR is a config dir: DIR/projects/-home-user-proj/
//     <session>.jsonl with its api-request records (each step's request,
//     resolvable as Claude Code logs it), and <session>/tool-results/ for
//     the persisted outputs; see claude.go.
//   - Codex CLI 0.171.0: DIR is a CODEX_HOME: DIR/sessions/YYYY/MM/DD/
//     rollout-….jsonl; outputs truncated in the model's text as Codex
//     does (it keeps no spill file); see codex.go.
//   - Gemini CLI 0.61.0: DIR is a .gemini dir: DIR/projects.json,
//     DIR/tmp/proj/chats/session-….jsonl and DIR/tmp/proj/tool-outputs/;
//     see gemini.go.
//
// It prints the session id (the newest one with -sessions) on stdout and,
// unless -quiet, a summary on stderr.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// prompt is the user's one message.
const prompt = "Please go through the whole repository: build it, read the sources, search for the call sites and fix what fails."

func main() {
	agent := flag.String("agent", "opencode", "opencode, claude-code, codex or gemini-cli")
	calls := flag.Int("calls", 5000, "tool calls per session")
	mb := flag.Float64("mb", 250, "total tool output per session in MiB")
	sessions := flag.Int("sessions", 1, "sessions in the store (opencode)")
	huge := flag.Float64("huge", 0, "the last call's output in MiB (0: none)")
	out := flag.String("out", "", "dir to write (required)")
	fixtures := flag.String("fixtures", "testdata", "the recorded fixtures to clone")
	seed := flag.Uint64("seed", 1, "random seed")
	quiet := flag.Bool("quiet", false, "print only the session id")
	flag.Parse()
	if *out == "" || *calls < 1 || *mb <= 0 || *sessions < 1 || (*sessions > 1 && *agent != "opencode") {
		fmt.Fprintln(os.Stderr, "usage: gen -out DIR [-agent opencode|claude-code|codex|gemini-cli] [-calls N] [-mb M] [-sessions S (opencode)] [-seed S]")
		os.Exit(2)
	}
	g := newGen(*seed, *out, *fixtures)
	g.huge = int(*huge * (1 << 20))
	total := int64(*mb * (1 << 20))
	var err error
	switch *agent {
	case "opencode":
		err = g.opencode(*sessions, *calls, total)
	case "claude-code":
		err = g.claude(*calls, total)
	case "codex":
		err = g.codex(*calls, total)
	case "gemini-cli":
		err = g.gemini(*calls, total)
	default:
		err = fmt.Errorf("unknown agent %q", *agent)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "wrote %s (%s): %d session(s), last %s, %d messages, %d tool calls per session (%d errors, %d truncated in all), %.1f MiB of results as the model saw them, largest %.1f MiB\n",
			*out, *agent, *sessions, g.sid, g.msgs, *calls, g.errors, g.truncated, float64(g.outBytes)/(1<<20), float64(g.largest)/(1<<20))
	}
	fmt.Println(g.sid)
}

type gen struct {
	rng      *rand.Rand
	dir      string
	fixtures string
	clock    int64 // ms
	last     uint64
	sid      string
	huge     int // bytes of the last call's output, 0 for none

	opencodeDB // the opencode writer's state
	claudeStep // the Claude Code writer's state

	msgs, errors, truncated int
	outBytes, largest       int64
}

func newGen(seed uint64, dir, fixtures string) *gen {
	return &gen{rng: rand.New(rand.NewPCG(seed, 0x636f72726578)), dir: dir, fixtures: fixtures, clock: baseMS}
}

func (g *gen) tick(ms int) { g.clock += int64(ms) }

// ts is the clock as the JSON Lines agents write it.
func (g *gen) ts() string {
	return time.UnixMilli(g.clock).UTC().Format("2006-01-02T15:04:05.000Z")
}

// setClock sets the clock to a recorded timestamp.
func (g *gen) setClock(ts string) {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		g.clock = t.UnixMilli()
	}
}

// count adds one result of n bytes to the summary.
func (g *gen) count(isErr bool, n int) {
	if isErr {
		g.errors++
	}
	g.outBytes += int64(n)
	g.largest = max(g.largest, int64(n))
}

func marshal(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // JSON.stringify does not escape <, >, &
	if err := e.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// alnum is n random characters of alphabet.
func (g *gen) alnum(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// uuid is a random version 4 UUID.
func (g *gen) uuid() string {
	const hexd = "0123456789abcdef"
	s := []byte(g.alnum(32, hexd))
	s[12] = '4'
	s[16] = hexd[8+g.rng.IntN(4)]
	return fmt.Sprintf("%s-%s-%s-%s-%s", s[:8], s[8:12], s[12:16], s[16:20], s[20:])
}

// steps splits the plans into steps of one to five parallel calls.
func (g *gen) steps(ps []plan) [][]plan {
	var out [][]plan
	for i := 0; i < len(ps); {
		n := min(1+g.rng.IntN(5), len(ps)-i)
		out = append(out, ps[i:i+n])
		i += n
	}
	return out
}

// plan is one tool call to write.
type plan struct {
	tool  string
	size  int  // target output bytes
	err   bool // state error
	trunc bool // truncated bash with a spill file
}

// plans draws the calls: the tool mix, small sizes, errors, truncations,
// then hands the remaining bytes to about one call in a hundred (bash).
func (g *gen) plans(calls int, total int64) []plan {
	ps := make([]plan, calls)
	var small int64
	for i := range ps {
		p := &ps[i]
		switch r := g.rng.IntN(100); {
		case r < 35:
			p.tool = "bash"
		case r < 65:
			p.tool = "read"
		case r < 80:
			p.tool = "grep"
		case r < 90:
			p.tool = "glob"
		default:
			p.tool = "edit"
		}
		// log-uniform 100 B .. 20 KB
		p.size = int(100 * math.Pow(200, g.rng.Float64()))
		switch p.tool {
		case "read":
			p.err = g.rng.IntN(25) == 0
		case "edit":
			p.err = g.rng.IntN(8) == 0
			p.size = 26
		}
		if p.err {
			p.size = 80
		}
		small += int64(p.size)
	}
	nTrunc := max(3, calls/500)
	for k := 0; k < nTrunc; k++ {
		i := (k*calls)/nTrunc + calls/(2*nTrunc)
		ps[i] = plan{tool: "bash", size: 12000, trunc: true}
	}
	nBig := max(1, calls/100)
	rest := total - small
	if rest > 0 {
		for k := 0; k < nBig; k++ {
			i := (k*calls)/nBig + g.rng.IntN(max(1, calls/nBig))
			if ps[i].trunc {
				i = (i + 1) % calls
			}
			// share of the rest, ±50%, the last one takes what is left
			share := rest / int64(nBig-k)
			if k < nBig-1 {
				share = share/2 + g.rng.Int64N(share+1)
			}
			rest -= share
			ps[i] = plan{tool: "bash", size: int(share)}
		}
	}
	if g.huge > 0 {
		ps[calls-1] = plan{tool: "bash", size: g.huge}
	}
	return ps
}

var (
	words = strings.Fields("alpha beta gamma delta config handler request response error value result buffer index cache token parser render session store model layout")
	dirs  = []string{"cmd", "internal/app", "internal/db", "pkg/api", "pkg/util", "web/src", "scripts", "docs"}
)

func (g *gen) word() string { return words[g.rng.IntN(len(words))] }

func (g *gen) file() string {
	return fmt.Sprintf("%s/%s_%s.go", dirs[g.rng.IntN(len(dirs))], g.word(), g.word())
}

// callID is an Anthropic tool_use id.
func (g *gen) callID() string { return "toolu_01" + g.alnum(24, base62) }

// lines writes lines from mk until about size bytes.
func lines(size int, mk func(i int) string) string {
	var b strings.Builder
	b.Grow(size + 128)
	for i := 1; b.Len() < size; i++ {
		b.WriteString(mk(i))
		b.WriteByte('\n')
	}
	return b.String()
}

func (g *gen) logLine(i int) string {
	return fmt.Sprintf("%s:%d: %s %s %s (%d ms)", g.file(), 1+g.rng.IntN(900), g.word(), g.word(), g.word(), g.rng.IntN(1000))
}
