package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// captured is one request to the fake provider, body kept verbatim.
type captured struct {
	Seq      int
	Method   string
	Path     string // RequestURI: raw path and query as sent
	Header   map[string]string
	Body     []byte
	Wire     string
	Kind     string // main, title, aux
	Scenario string // main, explore, "" (title/aux/unknown)
	Turn     int
	conv     conversation
}

// fakeProvider is the scripted LLM provider.
type fakeProvider struct {
	f       flavour
	main    []step
	explore []step

	mu       sync.Mutex
	requests []*captured
	problems []string

	srv *http.Server
	ln  net.Listener

	// interrupt is closed when the step running interruptCommand was
	// served (scenario three), once.
	interrupt     chan struct{}
	interruptOnce sync.Once
}

func startFakeProvider(f flavour) (*fakeProvider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &fakeProvider{f: f, ln: ln, interrupt: make(chan struct{})}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *fakeProvider) baseURL() string { return "http://" + p.ln.Addr().String() }

func (p *fakeProvider) setScripts(main, explore []step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.main, p.explore = main, explore
}

func (p *fakeProvider) close() { _ = p.srv.Close() }

func (p *fakeProvider) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	warnf("fake provider: %s", msg)
	p.mu.Lock()
	p.problems = append(p.problems, msg)
	p.mu.Unlock()
}

// keptHeaders are the request headers worth keeping next to the bodies.
func keptHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		lk := strings.ToLower(k)
		switch {
		case lk == "authorization", lk == "x-api-key", lk == "x-goog-api-key", lk == "x-amz-security-token":
			continue // fake credentials; not interesting
		case lk == "user-agent", lk == "content-type", lk == "accept",
			strings.HasPrefix(lk, "x-"), strings.HasPrefix(lk, "anthropic-"), strings.HasPrefix(lk, "openai-"):
			out[lk] = strings.Join(v, ", ")
		}
	}
	return out
}

func (p *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/page.html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, smallPage)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/big-page.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(bigPage())
		return
	case r.Method == http.MethodGet && r.URL.Path == "/rows-page.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(rowsPage())
		return
	case r.Method != http.MethodPost:
		p.problem("unexpected %s %s", r.Method, r.URL.RequestURI())
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		p.problem("reading body of %s: %v", r.URL.RequestURI(), err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	wire, stream := wireOf(r.URL.Path, body)
	c := &captured{Method: r.Method, Path: r.URL.RequestURI(), Header: keptHeaders(r.Header), Body: body, Wire: wire}
	p.mu.Lock()
	c.Seq = len(p.requests) + 1
	p.requests = append(p.requests, c)
	main, explore := p.main, p.explore
	p.mu.Unlock()
	if wire == "" {
		p.problem("request to unknown endpoint %s", c.Path)
		http.NotFound(w, r)
		return
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		p.problem("request %d: body is not JSON: %v", c.Seq, err)
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	c.conv = analyze(wire, doc)
	var st step
	if !c.conv.hasTools {
		c.Kind = "aux"
		if strings.Contains(strings.Join(c.conv.userTexts, "\n"), "Generate a title for this conversation") {
			c.Kind = "title"
		}
		st = step{Text: titleAnswer}
	} else {
		c.Kind = "main"
		name, script := scriptFor(c.conv.firstUser, main, explore)
		c.Scenario, c.Turn = name, c.conv.assistants
		switch {
		case script == nil:
			p.problem("request %d: no script for first user text %q", c.Seq, clip(c.conv.firstUser, 80))
			st = step{Text: "I have nothing scripted for this."}
		case c.Turn >= len(script):
			p.problem("request %d: %s turn %d is past the end of its script (%d turns)", c.Seq, name, c.Turn, len(script))
			st = step{Text: "Nothing more is scripted."}
		default:
			st = script[c.Turn]
		}
	}
	logf("  request %03d %s %s kind=%s scenario=%s turn=%d -> %s", c.Seq, r.Method, c.Path, c.Kind, c.Scenario, c.Turn, st)
	for _, cl := range st.Calls {
		if strings.Contains(cl.Args, interruptCommand) {
			defer p.interruptOnce.Do(func() { close(p.interrupt) })
		}
	}
	a := answer{step: st, ids: newIDs(p.f.Name, c), inTokens: len(body) / 4, model: p.f.ModelID, oddIDs: p.f.Scenario == "three"}
	if !stream {
		writeNonStream(w, wire, a)
		return
	}
	writeStream(w, wire, a)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// wireOf tells the protocol from the endpoint, and whether it streams.
func wireOf(path string, body []byte) (wire string, stream bool) {
	var probe struct {
		Stream *bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &probe)
	streams := probe.Stream != nil && *probe.Stream
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return "chat", streams
	case strings.HasSuffix(path, "/messages"):
		return "anthropic", streams
	case strings.HasSuffix(path, "/responses"):
		return "responses", streams
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return "gemini", true
	case strings.HasSuffix(path, ":generateContent"):
		return "gemini", false
	case strings.HasSuffix(path, "/converse-stream"):
		return "bedrock", true
	case strings.HasSuffix(path, "/converse"):
		return "bedrock", false
	}
	return "", false
}

// conversation is what the fake provider needs to know about a request.
type conversation struct {
	hasTools   bool
	firstUser  string   // first text of the first user message
	userTexts  []string // all user texts, in order
	assistants int      // assistant messages (steps) already in the conversation
}

func analyze(wire string, doc map[string]any) conversation {
	var cv conversation
	arr := func(v any) []any { a, _ := v.([]any); return a }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	str := func(v any) string { s, _ := v.(string); return s }
	addUser := func(texts []string) {
		for _, t := range texts {
			if cv.firstUser == "" && len(cv.userTexts) == 0 {
				cv.firstUser = t
			}
			cv.userTexts = append(cv.userTexts, t)
		}
	}
	// texts of a content that is a string or a list of blocks with "text"
	texts := func(content any, types ...string) []string {
		if s, ok := content.(string); ok {
			return []string{s}
		}
		var out []string
		for _, b := range arr(content) {
			m := obj(b)
			t, ok := m["text"].(string)
			if !ok {
				continue
			}
			if ty, has := m["type"].(string); has && len(types) > 0 {
				okType := false
				for _, want := range types {
					okType = okType || ty == want
				}
				if !okType {
					continue
				}
			}
			out = append(out, t)
		}
		return out
	}
	switch wire {
	case "chat", "anthropic":
		cv.hasTools = len(arr(doc["tools"])) > 0
		for _, m := range arr(doc["messages"]) {
			mm := obj(m)
			switch str(mm["role"]) {
			case "user":
				addUser(texts(mm["content"], "text"))
			case "assistant":
				// not the "Done." opencode puts between tool results and a
				// user message for Mistral models: no step of the script
				if mm["content"] != "Done." || mm["tool_calls"] != nil {
					cv.assistants++
				}
			}
		}
	case "gemini":
		cv.hasTools = len(arr(doc["tools"])) > 0
		for _, m := range arr(doc["contents"]) {
			mm := obj(m)
			switch str(mm["role"]) {
			case "user":
				addUser(texts(mm["parts"]))
			case "model":
				cv.assistants++
			}
		}
	case "bedrock":
		cv.hasTools = len(arr(obj(doc["toolConfig"])["tools"])) > 0
		for _, m := range arr(doc["messages"]) {
			mm := obj(m)
			switch str(mm["role"]) {
			case "user":
				addUser(texts(mm["content"]))
			case "assistant":
				cv.assistants++
			}
		}
	case "responses":
		cv.hasTools = len(arr(doc["tools"])) > 0
		inStep := false
		for _, it := range arr(doc["input"]) {
			m := obj(it)
			role, typ := str(m["role"]), str(m["type"])
			assistantSide := role == "assistant" || typ == "reasoning" || typ == "function_call"
			if assistantSide && !inStep {
				cv.assistants++
			}
			inStep = assistantSide
			if role == "user" {
				addUser(texts(m["content"], "input_text"))
			}
		}
	}
	return cv
}

// sortedCaptured returns the requests in arrival order.
func (p *fakeProvider) captured() []*captured {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]*captured(nil), p.requests...)
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}
