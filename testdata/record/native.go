package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// lowering names how opencode built the requests of a flavour, as stored in
// record.json: "ai-sdk" (the Vercel AI SDK, the default), "native"
// (packages/llm, OPENCODE_EXPERIMENTAL_NATIVE_LLM=1) or "v2" (the v2 loop of
// opencode serve).
func (f flavour) lowering() string {
	if f.Lowering == "" {
		return "ai-sdk"
	}
	return f.Lowering
}

// loweringEnv is what the native and v2 flavours add to opencode's
// environment.
func loweringEnv(f flavour) []string {
	var env []string
	if f.Lowering == "native" {
		env = append(env, "OPENCODE_EXPERIMENTAL_NATIVE_LLM=1")
	}
	if f.Lowering == "v2" && f.ProviderID == "anthropic" {
		// The v2 loop takes a built-in provider's key only from the
		// environment (with options.apiKey alone: "Model unavailable").
		env = append(env, "ANTHROPIC_API_KEY=sk-ant-oracle-fake-key")
	}
	return env
}

// nativeExpectations adjusts the verbatim check for native lowering: a
// completed tool part with attachments (read of an image) is sent as the
// JSON string of its content, not as media:
// [{"type":"text","text":<output>},{"type":"media","mediaType":<mime>,"data":<base64>}…].
func nativeExpectations(sessions []*sessionInfo, exports map[string][]byte) {
	for _, s := range sessions {
		var ex struct {
			Messages []struct {
				Parts []struct {
					CallID string `json:"callID"`
					State  struct {
						Status      string `json:"status"`
						Output      string `json:"output"`
						Attachments []struct {
							Mime string `json:"mime"`
							URL  string `json:"url"`
						} `json:"attachments"`
					} `json:"state"`
				} `json:"parts"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(exports[s.ID], &ex); err != nil {
			continue
		}
		want := map[string]string{}
		for _, m := range ex.Messages {
			for _, p := range m.Parts {
				if p.State.Status != "completed" || len(p.State.Attachments) == 0 {
					continue
				}
				items := []any{J("type", "text", "text", p.State.Output)}
				for _, a := range p.State.Attachments {
					_, data, _ := strings.Cut(a.URL, ",")
					items = append(items, J("type", "media", "mediaType", a.Mime, "data", data))
				}
				want[p.CallID] = string(A(items...))
			}
		}
		for i := range s.Tools {
			if w, ok := want[s.Tools[i].CallID]; ok {
				s.Tools[i].Text = w
			}
		}
	}
}

// lockRecorder waits until no other recorder process holds the neutral
// home (two recordings at once would wipe each other's home), then holds it
// until this process exits.
func lockRecorder(home string) {
	path := filepath.Join(os.TempDir(), "correx-record"+strings.ReplaceAll(filepath.Clean(home), "/", "-")+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		warnf("cannot open the lock file %s: %v (not locking)", path, err)
		return
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		logf("another recorder is using %s; waiting for it (lock %s)", home, path)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			warnf("lock %s: %v (not locking)", path, err)
			return
		}
	}
	lockFile = f // kept open (and locked) until exit
}

var lockFile *os.File
