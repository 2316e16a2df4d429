// Command correx inspects recorded AI coding-agent sessions: for every tool
// call, what exactly the model saw, and how each provider API received it.
//
//	correx [--source PATH] [--session ID]       the inspector (plain transcript when piped)
//	correx ls [--source PATH] [--json]          sessions
//	correx calls [--source PATH] --session ID [--json]
//	correx show [--source PATH] --session ID --call ID [--json] [--lowering L] [--text-only|--images] [--provider P]
//	correx wire [--source PATH] --session ID --provider P [--step N] [--json] [--text-only|--images] [--lowering L]
//	correx transcript [--source PATH] --session ID
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"correx/formatters"
	"correx/internal/inert"
	"correx/internal/memlimit"
	"correx/model"
	"correx/render"
	"correx/sessions"
	_ "correx/sessions/all" // every agent driver
	"correx/tui"
)

const version = "0.1.0"

// memoryLimit is the soft memory limit policy for a run with args: a command's
// when they name one (as run reads them), else the inspector's.
func memoryLimit(args []string) memlimit.Policy {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return memlimit.Command
	}
	return memlimit.Inspector
}

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		memlimit.Keep(memoryLimit(os.Args[1:]))
	}
	exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// exit ends the process (prof.go stops its profile first).
var exit = os.Exit

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	c := &cli{out: stdout, errOut: stderr}
	var err error
	switch cmd {
	case "":
		err = c.inspect(args)
	case "ls":
		err = c.ls(args)
	case "calls":
		err = c.calls(args)
	case "show":
		err = c.show(args)
	case "wire":
		err = c.wire(args)
	case "transcript":
		err = c.transcript(args)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		fmt.Fprintln(stdout, "correx", version)
		return 0
	default:
		err = fmt.Errorf("%w: unknown command %q (want ls, calls, show, wire, transcript)", errUsage, cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "correx:", strings.TrimPrefix(err.Error(), "usage: "))
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

const usage = `correx: what exactly did the model see when this tool ran?

  correx [--source PATH] [--session ID]     open the inspector (a plain transcript when piped)
  correx ls [--source PATH] [--json]        list sessions
  correx calls --session ID [--json]        list a session's tool calls
  correx show --session ID --call ID [--json] [--lowering L] [--provider P] [--allow-outside-spill]
                                            print a call's model-visible result, byte for byte
                                            (as P received it; default the session's provider;
                                            --allow-outside-spill: measure a spill file the
                                            transcript names outside the agent's spill folder)
  correx wire --session ID --provider P [--step N] [--json] [--text-only|--images] [--lowering L]
                                            print the conversation a provider received
                                            (--json: {"capabilities", "conversation"}); the
                                            model's inputs are read from opencode's config
                                            (--text-only / --images: take none / all)
                                            P: openai-chat, openai-responses, anthropic, gemini, bedrock
                                            L: ai-sdk (the Vercel AI SDK converters, the default
                                            for v1 sessions) or native (opencode's packages/llm:
                                            v1 with OPENCODE_EXPERIMENTAL_NATIVE_LLM=1, and
                                            always for v2 sessions)
  correx transcript --session ID            print calls, results and truncation notes as text

PATH is an opencode data dir, a .db file, an 'opencode export' .json file (or a
directory of them) or a legacy storage dir; a Claude Code config, projects or
project dir or transcript .jsonl; a Codex home or rollout file; a Gemini CLI
.gemini dir or chat file. Without --source, correx looks in the default places
($OPENCODE_DB, $XDG_DATA_HOME/opencode, ~/.local/share/opencode,
$CLAUDE_CONFIG_DIR or ~/.claude, $CODEX_HOME or ~/.codex, ~/.gemini).
`

type cli struct {
	out, errOut io.Writer
	warned      map[string]bool // the warnings printed so far
	// flags shared by the commands
	source, session, call, provider string
	lowering                        string
	step                            int
	asJSON, textOnly, images        bool
	allowOutsideSpill               bool
}

// flags parses a command's flags; want names the ones it takes.
func (c *cli) flags(name string, args []string, want ...string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.source, "source", "", "")
	for _, w := range want {
		switch strings.TrimSuffix(w, "?") {
		case "session":
			fs.StringVar(&c.session, "session", "", "")
		case "call":
			fs.StringVar(&c.call, "call", "", "")
		case "provider":
			fs.StringVar(&c.provider, "provider", "", "")
		case "step":
			fs.IntVar(&c.step, "step", 0, "")
		case "json":
			fs.BoolVar(&c.asJSON, "json", false, "")
		case "text-only":
			fs.BoolVar(&c.textOnly, "text-only", false, "")
			fs.BoolVar(&c.images, "images", false, "")
		case "lowering":
			fs.StringVar(&c.lowering, "lowering", "", "")
		case "allow-outside-spill":
			fs.BoolVar(&c.allowOutsideSpill, "allow-outside-spill", false, "")
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(c.out, usage)
			return err
		}
		return fmt.Errorf("%w: %s: %v", errUsage, name, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s: unexpected argument %q", errUsage, name, fs.Arg(0))
	}
	for _, w := range want {
		if (w == "session" && c.session == "") || (w == "call" && c.call == "") || (w == "provider" && c.provider == "") {
			return fmt.Errorf("%w: %s needs --%s", errUsage, name, w)
		}
	}
	return nil
}

// open opens --source, or every store discovery finds.
func (c *cli) open() (sessions.Store, error) {
	if c.source != "" {
		return sessions.Open(c.source)
	}
	paths := sessions.Discover()
	if len(paths) == 0 {
		return nil, errors.New("no agent sessions found (looked in $OPENCODE_DB, $XDG_DATA_HOME/opencode, ~/.local/share/opencode, ~/.claude, ~/.codex, ~/.gemini); use --source PATH")
	}
	stores, errs := sessions.OpenAll(paths)
	if len(stores) == 0 {
		return nil, errors.Join(errs...)
	}
	return sessions.Combine(stores...), nil
}

// warn prints on stderr each warning not printed before, one inert line
// each: what the store could not read and left out, or why what is shown
// may be out of date.
func (c *cli) warn(ws ...string) {
	for _, w := range ws {
		if c.warned[w] {
			continue
		}
		if c.warned == nil {
			c.warned = map[string]bool{}
		}
		c.warned[w] = true
		fmt.Fprintf(c.errOut, "correx: warning: %s\n", inert.Cell(w))
	}
}

func (c *cli) ls(args []string) error {
	if err := c.flags("ls", args, "json"); err != nil {
		return err
	}
	st, err := c.open()
	if err != nil {
		return err
	}
	defer st.Close()
	return c.listSessions(st, c.asJSON)
}

// listSessions prints the sessions st lists; when some of its stores
// could not be listed, the others' sessions, with a warning.
func (c *cli) listSessions(st sessions.Store, asJSON bool) error {
	out := c.out
	list, err := st.List(context.Background())
	c.warn(sessions.Warnings(st)...)
	if err != nil {
		if len(list) == 0 {
			return err
		}
		c.warn(err.Error())
	}
	if asJSON {
		rows := make([]sessionRow, len(list))
		for i, s := range list {
			rows[i] = newSessionRow(s)
		}
		return writeJSON(out, rows)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tMSGS\tCALLS\tTRUNC\tERRORS\tPARENT\tTITLE\tDIRECTORY")
	for _, s := range list {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s %s\t%s\t%s\t%s\t%s\n", inert.Cell(s.ID), s.Updated.Local().Format(time.DateTime),
			s.Messages, atLeast(s.ToolCalls, s), atLeast(s.Truncated, s), s.TruncatedBy(), atLeast(s.Errors, s), inert.Cell(dash(s.ParentID)), inert.Cell(s.Title), inert.Cell(s.Directory))
	}
	return w.Flush()
}

// sessionRow is one session of `correx ls --json`: truncated_calls counted
// as truncated_by says ("flagged" by the agent, or "detected" by correx).
// A session that damage left partly unread has its counts null (these
// fields hide SessionInfo's), and damaged says what was lost.
type sessionRow struct {
	model.SessionInfo
	TruncatedBy string `json:"truncated_by"`
	ToolCalls   *int   `json:"tool_calls"`
	Truncated   *int   `json:"truncated_calls"`
	Errors      *int   `json:"errors"`
}

func newSessionRow(s model.SessionInfo) sessionRow {
	r := sessionRow{SessionInfo: s, TruncatedBy: s.TruncatedBy()}
	if s.Damaged == "" {
		r.ToolCalls, r.Truncated, r.Errors = &s.ToolCalls, &s.Truncated, &s.Errors
	}
	return r
}

// callRow is one line of `correx calls --json`.
type callRow struct {
	Step      int              `json:"step"`
	CallID    string           `json:"call_id"`
	Tool      string           `json:"tool"`
	Status    model.ToolStatus `json:"status"`
	Title     string           `json:"title,omitempty"`
	Result    model.ResultType `json:"result_type"`
	Bytes     int              `json:"bytes"`
	Truncated bool             `json:"truncated"` // as correx detects it
	// AgentFlagged is the agent's own record (formatters.AgentFlagged),
	// null when it keeps none.
	AgentFlagged *bool           `json:"agent_flagged"`
	Child        string          `json:"child_session,omitempty"`
	Input        json.RawMessage `json:"input"`
	// Rebuilt: the request that carried the result was rebuilt from the
	// transcript, not as sent (why, naming file and line).
	Rebuilt string `json:"request_rebuilt,omitempty"`
}

func (c *cli) calls(args []string) error {
	if err := c.flags("calls", args, "session", "json"); err != nil {
		return err
	}
	rows := []callRow{}
	rebuilt, err := c.walk(func(s *model.Session, step int, pt *model.Part) error {
		call := pt.Tool
		v := formatters.Visible(call, nil)
		rows = append(rows, callRow{
			Step: step, CallID: call.CallID, Tool: call.Tool, Status: call.Status,
			Title: call.Title, Result: v.Result.Type, Bytes: len(v.Text), Truncated: v.Truncation != nil, AgentFlagged: formatters.AgentFlagged(call),
			Child: call.ChildSessionID, Input: rawOrEmpty(call.Input),
		})
		return nil
	})
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].Rebuilt = rebuilt.note(rows[i].Step + 1)
	}
	if c.asJSON {
		return writeJSON(c.out, rows)
	}
	out := bufio.NewWriterSize(c.out, 64<<10) // tabwriter writes a cell at a time
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "STEP\tCALL\tTOOL\tSTATUS\tRESULT\tBYTES\tTRUNC\tFLAGGED\tTITLE")
	for _, r := range rows {
		trunc, flagged := "", "-" // "-": the agent keeps no record
		if r.Truncated {
			trunc = "yes"
		}
		if r.AgentFlagged != nil {
			flagged = map[bool]string{true: "yes", false: "no"}[*r.AgentFlagged]
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Step, inert.Cell(r.CallID), inert.Cell(r.Tool),
			inert.Cell(string(r.Status)), inert.Cell(string(r.Result)), r.Bytes, trunc, flagged, inert.Cell(r.Title))
	}
	return errors.Join(w.Flush(), out.Flush())
}

// showJSON is `correx show --json`.
type showJSON struct {
	Session    string            `json:"session"`
	CallID     string            `json:"call_id"`
	Tool       string            `json:"tool"`
	Input      json.RawMessage   `json:"input"`
	Status     model.ToolStatus  `json:"status"`
	Result     resultJSON        `json:"result"`
	Text       string            `json:"text"`
	Why        string            `json:"why,omitempty"`
	Truncation *model.Truncation `json:"truncation"`
	SpillGone  bool              `json:"spill_gone"`
	// SentUnknown says why text may not be what the model got in the
	// call's own run (model.Visible.SentUnknown)
	SentUnknown string `json:"sent_unknown,omitempty"`
	// Capabilities: what the model of the call's step takes (opencode)
	Capabilities *capsJSON `json:"capabilities,omitempty"`
	Rebuilt      string    `json:"request_rebuilt,omitempty"` // as in callRow
	// SpillProblem says why the spill found is not read: outside the
	// agent's spill folder, not a regular file, permission denied.
	SpillProblem string `json:"spill_problem,omitempty"`
}

// wireNotes prints what correx says of the request of --step on p
// beside its JSON (render.WireNote, gaps the request's), and why it was
// rebuilt.
func (c *cli) wireNotes(s *model.Session, p render.Provider, gaps []render.Gap) {
	if note := render.WireNote(s, p, c.step, gaps); note != "" {
		fmt.Fprintln(c.errOut, "correx: note:", note)
	}
	step := c.step
	if step == 0 {
		step = len(s.AssistantSteps())
	}
	if note := rebuiltNote(s, step); note != "" {
		fmt.Fprintln(c.errOut, "correx: warning:", note)
	}
}

// rebuiltNote says why the request of step was rebuilt from the
// transcript, "" when it is as the agent logged it (or logs none).
func rebuiltNote(s *model.Session, step int) string {
	if req := s.StepRequest(step); req != nil {
		return rebuiltSteps{step: req.Rebuilt}.note(step)
	}
	return ""
}

type resultJSON struct {
	Type  model.ResultType `json:"type"`
	Value any              `json:"value"`
}

func (c *cli) show(args []string) error {
	if err := c.flags("show", args, "session", "call", "json", "lowering", "text-only", "allow-outside-spill", "provider?"); err != nil {
		return err
	}
	lowering, err := c.parseLowering("show")
	if err != nil {
		return err
	}
	override, err := c.capsOverride("show")
	if err != nil {
		return err
	}
	var p render.Provider
	if c.provider != "" {
		if p, err = render.ParseProvider(c.provider); err != nil {
			return fmt.Errorf("%w: show: %v", errUsage, err)
		}
	}
	var (
		s     *model.Session
		found *model.ToolCall
		owner *model.Message
		step  int
	)
	rebuilt, err := c.walk(func(page *model.Session, n int, pt *model.Part) error {
		if found != nil {
			if n > step { // the next step's request, which carried the result, is seen
				return errStop
			}
			return nil
		}
		s = page
		if pt.Tool.CallID == c.call || pt.ID == c.call {
			found, owner, step = pt.Tool, messageOf(page, pt), n
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if s == nil || found == nil {
		if n := len(c.warned); n > 0 {
			return fmt.Errorf("call %q not found in session %s; it may be among what the %d warning(s) above name as left out", c.call, c.session, n)
		}
		return fmt.Errorf("call %q not found in session %s", c.call, c.session)
	}
	if s.Info.Pipeline == model.PipelineV2 && lowering == model.LoweringAISDK {
		return fmt.Errorf("session %s is a v2 session: opencode always lowers it natively (--lowering native)", s.Info.ID)
	}
	ref, _ := s.FindCall(found.CallID)
	ref.Call = found
	m := render.CarrierModel(s, ref.Message, render.SessionLowering(s.Info, lowering))
	if p == "" {
		p = render.OwnProvider(s.Info, &model.Message{ProviderID: m.ProviderID, ModelID: m.ModelID})
	}
	if p == "" && m.Lowering == model.LoweringNative && formatters.LoweringMatters(found) {
		return fmt.Errorf("%w: show: call %s: under the native lowering its media stay in the result or not by provider, and the session's provider %q is not one correx knows: pass --provider", errUsage, found.CallID, m.ProviderID)
	}
	spills := sessions.SpillsFor(s.Info)
	spills.AllowOutside = c.allowOutsideSpill
	v := render.Visible(found, spills, p, m)
	if !c.asJSON {
		text := v.Text
		if v.SentUnknown != "" {
			fmt.Fprintln(c.errOut, "correx: note:", inert.Cell(v.SentUnknown))
		}
		if isTerminal(c.out) {
			text = inert.Text(text) // bytes exact when piped, never raw controls on a terminal
		}
		_, err := io.WriteString(c.out, text)
		return err
	}
	out := showJSON{
		Session: s.Info.ID, CallID: ref.Call.CallID, Tool: ref.Call.Tool, Input: rawOrEmpty(ref.Call.Input),
		Status: ref.Call.Status, Result: resultJSON{Type: v.Result.Type, Value: resultValue(v.Result)},
		Text: v.Text, Why: v.Why, Truncation: v.Truncation,
		SpillGone:   v.Truncation != nil && v.Truncation.SpillGone(),
		SentUnknown: v.SentUnknown,
		Rebuilt:     rebuilt.note(step + 1),
	}
	if t := v.Truncation; t != nil && t.SpillFound != "" {
		out.SpillProblem = spills.SpillProblem(t.SpillFound)
	}
	if owner != nil && s.Info.Agent.UsesOpencode() {
		one := &model.Session{Info: s.Info, Messages: []model.Message{*owner}}
		out.Capabilities = newCapsJSON(sessionCaps(one, override, c.errOut), owner.ProviderID, owner.ModelID)
	}
	return writeJSON(c.out, out)
}

// messageOf is the message of s holding part pt (walk passes a copy).
func messageOf(s *model.Session, pt *model.Part) *model.Message {
	for i := range s.Messages {
		for j := range s.Messages[i].Parts {
			if s.Messages[i].Parts[j].ID == pt.ID {
				return &s.Messages[i]
			}
		}
	}
	return nil
}

func resultValue(r model.ToolResultValue) any {
	switch r.Type {
	case model.ResultJSON:
		return r.JSON
	case model.ResultContent:
		return r.Content
	}
	return r.Text
}

func (c *cli) wire(args []string) error {
	if err := c.flags("wire", args, "session", "provider", "step", "text-only", "lowering", "json"); err != nil {
		return err
	}
	lowering, err := c.parseLowering("wire")
	if err != nil {
		return err
	}
	override, err := c.capsOverride("wire")
	if err != nil {
		return err
	}
	p, err := render.ParseProvider(c.provider)
	if err != nil {
		return fmt.Errorf("%w: wire: %v", errUsage, err)
	}
	st, err := c.open()
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	m := render.Model{Lowering: lowering}
	w := bufio.NewWriterSize(c.out, 64<<10)
	// --json: the conversation inside {"capabilities", "conversation"}
	var out io.Writer = w
	begin := func(s *model.Session) error {
		m.Caps = sessionCaps(s, override, c.errOut)
		if !c.asJSON {
			return nil
		}
		steps := s.AssistantSteps()
		step := c.step
		if step <= 0 || step > len(steps) {
			step = len(steps)
		}
		var cj *capsJSON
		if step > 0 && s.Info.Agent.UsesOpencode() {
			at := s.Messages[steps[step-1]]
			cj = newCapsJSON(m.Caps, at.ProviderID, at.ModelID)
		}
		b, err := json.MarshalIndent(cj, "  ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "{\n  \"capabilities\": %s,\n  \"conversation\": ", b)
		out = prefixWriter{w: w, prefix: "  "}
		return nil
	}
	l := sessions.LazyFor(st, c.session)
	if ml, ok := l.(sessions.MessageLister); ok {
		// a conversation lowered a window at a time, its outline read a
		// page at a time: never held whole
		skel, err := ml.LoadMessages(ctx, c.session)
		if err != nil {
			return err
		}
		if render.Windowable(skel, p, c.step, m) {
			c.warn(skel.Warnings...)
			if err := begin(skel); err != nil {
				return err
			}
			c.wireNotes(skel, p, nil)
			win, err := render.WriteWindowed(ctx, l, skel, c.outlinePages(l, skel), p, c.step, m, out)
			if err != nil {
				return err
			}
			win.Last.Close()
			return c.endWire(w)
		}
	}
	if l != nil {
		// from the outline, each large output read as it is written
		page, err := l.LoadOutline(ctx, c.session, 0, 0)
		if err != nil {
			return err
		}
		c.warn(page.Session.Warnings...)
		if err := begin(page.Session); err != nil {
			return err
		}
		lc, err := render.ConversationLazy(ctx, l, page.Session, p, c.step, m)
		if err != nil {
			return err
		}
		defer lc.Close()
		c.wireNotes(page.Session, p, lc.Gaps)
		if err := lc.WriteIndent(ctx, out, lc.Value); err != nil {
			return err
		}
	} else {
		s, err := st.Load(ctx, c.session)
		if err != nil {
			return err
		}
		c.warn(s.Warnings...)
		if err := begin(s); err != nil {
			return err
		}
		r, err := render.Render(s, p, c.step, m)
		if err != nil {
			return err
		}
		c.wireNotes(s, p, r.Gaps)
		if err := render.WriteIndent(out, r.Value); err != nil {
			return err
		}
	}
	return c.endWire(w)
}

// endWire ends what wire wrote to w.
func (c *cli) endWire(w *bufio.Writer) error {
	if c.asJSON {
		w.WriteString("\n}")
	}
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		return err
	}
	if n := len(c.warned); n > 0 {
		fmt.Fprintf(c.errOut, "correx: wire: what is printed may be incomplete or not what the provider received: see the %d warning(s) above\n", n)
	}
	return nil
}

// wirePage is how many messages of an outline wire reads at once.
var wirePage = 512 // tests lower it

// outlinePages reads the outline of skel, a session's messages
// (sessions.MessageLister), a page at a time, with its warnings; a page
// whose messages are not skel's (the session changed since) is an error.
// A store that reads side by side (sessions.SideBySide) reads the next
// page while this one is lowered and written.
func (c *cli) outlinePages(l sessions.Lazy, skel *model.Session) render.Pages {
	type read struct {
		lo   int
		page *sessions.OutlinePage
		err  error
	}
	load := func(ctx context.Context, lo int) read {
		page, err := l.LoadOutline(ctx, skel.Info.ID, lo, wirePage)
		return read{lo, page, err}
	}
	_, ahead := l.(sessions.SideBySide)
	var next chan read
	return func(ctx context.Context, lo int) ([]model.Message, error) {
		var r read
		if next != nil {
			if r = <-next; r.lo != lo {
				r = load(ctx, lo)
			}
		} else {
			r = load(ctx, lo)
		}
		next = nil
		if r.err != nil {
			return nil, r.err
		}
		c.warn(r.page.Session.Warnings...)
		msgs := r.page.Session.Messages
		for k := range msgs {
			if lo+k >= len(skel.Messages) || msgs[k].ID != skel.Messages[lo+k].ID {
				return nil, fmt.Errorf("session %s changed while it was read: run again", skel.Info.ID)
			}
		}
		if after := lo + len(msgs); ahead && r.page.More && after < len(skel.Messages) {
			ch := make(chan read, 1)
			next = ch
			go func() { ch <- load(ctx, after) }()
		}
		return msgs, nil
	}
}

func (c *cli) transcript(args []string) error {
	if err := c.flags("transcript", args, "session"); err != nil {
		return err
	}
	st, err := c.open()
	if err != nil {
		return err
	}
	defer st.Close()
	return writeTranscript(c.out, c.warn, st, c.session)
}

// inspect is correx without a command: the inspector on a terminal;
// piped, the transcript of --session, or else the session list. With no
// --source and no agent data on the machine it opens the built-in demo.
func (c *cli) inspect(args []string) error {
	if err := c.flags("correx", args, "session?"); err != nil {
		return err
	}
	opts := tui.Options{SessionID: c.session}
	demo := c.source == "" && len(sessions.Discover()) == 0
	if demo || isTerminal(c.out) {
		// the terminal closing (SIGHUP), kill and ctrl+c end correx through
		// its returns, so that its deferred clean-ups run: the demo's copy,
		// the TUI's spool files and window title
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		opts.Context = ctx
	}
	var st sessions.Store
	var err error
	if demo {
		var cleanup func()
		st, cleanup, err = openDemo()
		if err != nil {
			return err
		}
		defer cleanup()
		opts.Demo = true
		if !isTerminal(c.out) {
			fmt.Fprintln(c.out, "No agent sessions on this machine: showing the built-in demo (recorded from opencode 1.18.33).")
		}
	} else if st, err = c.open(); err != nil {
		return err
	}
	defer st.Close()
	if !isTerminal(c.out) {
		if c.session == "" {
			return c.listSessions(st, false)
		}
		return writeTranscript(c.out, c.warn, st, c.session)
	}
	opts.Stores = []sessions.Store{st}
	opts.Live = !opts.Demo
	opts.Warnings = sessions.Warnings(st)
	return tui.Run(opts)
}

// writeTranscript prints a session's calls and model-visible results as
// plain text, with truncation notes and the warnings (also given to warn).
func writeTranscript(out io.Writer, warn func(...string), st sessions.Store, id string) error {
	w := bufio.NewWriterSize(out, 64<<10) // one write a line is a syscall a line
	var last *model.Session
	_, err := walk(st, id, warn, func(s *model.Session, step int, pt *model.Part) error {
		if last == nil {
			fmt.Fprintf(w, "session %s: %s\n", inert.Cell(s.Info.ID), inert.Cell(s.Info.Title))
		}
		if s != last { // a new page: its warnings
			for _, warn := range s.Warnings {
				fmt.Fprintf(w, "warning: %s\n", warn)
			}
			last = s
		}
		call := pt.Tool
		v := formatters.Visible(call, sessions.SpillsFor(s.Info))
		fmt.Fprintf(w, "\n── step %d · %s %s · %s · %s\n", step, inert.Cell(call.Tool), inert.Cell(call.CallID),
			inert.Cell(string(call.Status)), inert.Cell(string(v.Result.Type)))
		fmt.Fprintf(w, "input: %s\n", inert.Text(string(rawOrEmpty(call.Input))))
		if v.Why != "" {
			fmt.Fprintf(w, "note: %s\n", inert.Cell(v.Why))
		}
		if t := v.Truncation; t != nil {
			lines := seenOf(t)
			fmt.Fprintf(w, "truncated (%s): %s\n", inert.Cell(string(t.Kind)), inert.Cell(lines[0]))
			for _, l := range lines[1:] {
				fmt.Fprintf(w, "  %s\n", inert.Cell(l))
			}
		}
		if err := inert.WriteText(w, v.Text); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		for _, c := range v.Result.Content {
			switch c.Type {
			case model.ContentFile:
				fmt.Fprintf(w, "+ file: %s\n", inert.Cell(c.Mime))
			case model.ContentToolRef:
				fmt.Fprintf(w, "+ tool reference: %s (the Anthropic API puts the tool's definition here; that text is not recorded)\n", inert.Cell(c.Name))
			}
		}
		return nil
	})
	return errors.Join(err, w.Flush())
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// walk calls fn for every tool part of --session, in order, with the
// 1-based step of its assistant message and the session (or, read lazily,
// the page) that holds it. A store that reads lazily (opencode's SQLite) is
// read a page at a time, each left-out output read for its call and dropped
// after, so memory stays bounded whatever the session's size.
func (c *cli) walk(fn func(s *model.Session, step int, pt *model.Part) error) (rebuiltSteps, error) {
	st, err := c.open()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return walk(st, c.session, c.warn, fn)
}

// walk gives warn the warnings of every page, and of every call whose
// left-out output could not be read (the call is then left out). It
// returns why each step it passed had its request rebuilt: fn's s is a
// page, so a step's request is looked up there, not in s.
func walk(st sessions.Store, id string, warn func(...string), fn func(s *model.Session, step int, pt *model.Part) error) (rebuiltSteps, error) {
	ctx := context.Background()
	rebuilt := rebuiltSteps{}
	l := sessions.LazyFor(st, id)
	if l == nil {
		s, err := st.Load(ctx, id)
		if err != nil {
			return rebuilt, err
		}
		warn(s.Warnings...)
		_, err = walkMessages(s, 0, rebuilt, nil, warn, fn)
		return rebuilt, err
	}
	full := func(pt *model.Part) (*model.ToolCall, error) { return l.LoadOutput(ctx, id, pt.ID) }
	outline := l.LoadOutline
	if w, ok := l.(sessions.WholeOutliner); ok {
		outline = w.LoadOutlineWhole // the small outputs with their page
	}
	// a store that reads pages and outputs side by side has the next page
	// read while fn walks this one: reading a page and formatting its
	// calls each take a core (elsewhere the two reads wait on each other)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, sideBySide := l.(sessions.SideBySide)
	page := func(from int) func() (*sessions.OutlinePage, error) {
		if !sideBySide {
			return func() (*sessions.OutlinePage, error) { return outline(ctx, id, from, walkPage) }
		}
		type read struct {
			p   *sessions.OutlinePage
			err error
		}
		ch := make(chan read, 1)
		go func() {
			p, err := outline(ctx, id, from, walkPage)
			ch <- read{p, err}
		}()
		return func() (*sessions.OutlinePage, error) { r := <-ch; return r.p, r.err }
	}
	steps := 0
	for next := page(0); ; {
		p, err := next()
		if err != nil {
			return rebuilt, err
		}
		if p.More {
			next = page(p.From + len(p.Session.Messages))
		}
		warn(p.Session.Warnings...)
		if steps, err = walkMessages(p.Session, steps, rebuilt, full, warn, fn); err != nil || !p.More {
			return rebuilt, err
		}
	}
}

// walkPage is how many messages walk reads at a time; tests lower it.
var walkPage = 256

// rebuiltSteps holds why the request of a step was rebuilt from the
// transcript, by step, for the steps with one.
type rebuiltSteps map[int]string

// note is rebuiltNote's sentence for step, "" when its request is as
// logged (or not passed).
func (r rebuiltSteps) note(step int) string {
	if why := r[step]; why != "" {
		return why + ": " + model.RebuiltLabel
	}
	return ""
}

// walkMessages calls fn for the tool parts of s's messages; steps counts
// the assistant messages before them, and rebuilt is told of their
// rebuilt requests. full, when not nil, reads an output the outline left
// out; it is dropped once fn has seen it.
func walkMessages(s *model.Session, steps int, rebuilt rebuiltSteps, full func(*model.Part) (*model.ToolCall, error), warn func(...string), fn func(*model.Session, int, *model.Part) error) (int, error) {
	for mi := range s.Messages {
		m := &s.Messages[mi]
		if m.Role == model.RoleAssistant {
			steps++
			if m.Request != nil && m.Request.Rebuilt != "" {
				rebuilt[steps] = m.Request.Rebuilt
			}
		}
		for _, pt := range m.Parts {
			if pt.Tool == nil {
				continue
			}
			if pt.Tool.Elided && full != nil {
				call, err := full(&pt)
				if err != nil {
					warn(fmt.Sprintf("call %s (part %s) left out: %v", pt.Tool.CallID, pt.ID, err))
					continue
				}
				pt.Tool = call
			}
			if err := fn(s, steps, &pt); err != nil {
				return steps, err
			}
		}
	}
	return steps, nil
}

// seenOf says how much of the full output the model saw and where the full
// output is, then where each seen range is: one line each, for the caller
// to make inert (a spill path comes from the transcript).
func seenOf(t *model.Truncation) []string {
	s := fmt.Sprintf("model saw %d lines / %d bytes", t.SeenLines, t.SeenBytes)
	lines, bytes := t.Full()
	if lines >= 0 {
		s += fmt.Sprintf(" of %d lines", lines)
	}
	if bytes >= 0 {
		s += fmt.Sprintf(" / %d bytes", bytes)
	}
	if t.FullUnknown != "" {
		s += " (full size unknown: " + t.FullUnknown + ")"
	}
	switch {
	case t.SpillFound != "":
		s += "; full output: " + t.SpillFound
	case t.SpillPath != "":
		s += "; the spill file is gone (" + t.SpillGoneReason() + "), expected at " + t.SpillPath
	}
	out := []string{s}
	for _, r := range t.Seen {
		out = append(out, "seen: "+seenRangeNote(r))
	}
	if t.Notice != nil {
		n := "notice, not in the result: " + t.Notice.Where
		if t.Notice.Text != "" {
			n += ": " + t.Notice.Text
		}
		out = append(out, n)
	}
	return out
}

// seenRangeNote is one seen range for the transcript: where it is in the
// text and in the full output.
func seenRangeNote(r model.SeenRange) string {
	s := fmt.Sprintf("text bytes %d–%d", r.Text.Start, r.Text.End)
	if r.Lines != nil {
		s += fmt.Sprintf(" = lines %d–%d", r.Lines.First, r.Lines.Last)
	}
	if r.Bytes != nil {
		s += fmt.Sprintf(", bytes %d–%d", r.Bytes.Start, r.Bytes.End)
	}
	switch {
	case r.Placed:
		s += " (placed in the spill file)"
	case r.Lines == nil:
		s += " (position in the full output unknown)"
	}
	if r.PartialFirst {
		s += "; first line in part"
	}
	if r.PartialLast {
		s += "; last line in part"
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal); a
// variable so that tests can stand in a terminal.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// atLeast is a count of a session's rows, "N+" when damage left some
// unread (a warning says which).
func atLeast(n int, s model.SessionInfo) string {
	if s.Damaged != "" {
		return fmt.Sprintf("%d+", n)
	}
	return fmt.Sprint(n)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func rawOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// parseLowering checks --lowering; "" leaves the session's default.
func (c *cli) parseLowering(cmd string) (model.Lowering, error) {
	l, ok := model.ParseLowering(c.lowering)
	if !ok {
		return "", fmt.Errorf("%w: %s: unknown lowering %q (want ai-sdk or native)", errUsage, cmd, c.lowering)
	}
	return l, nil
}
