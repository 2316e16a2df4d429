package sessions_test

// The lazy path of the agents read through a LineStore, over every
// fixture of theirs.

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/formatters"
	"correx/internal/fixtures"
	"correx/internal/jsonskim"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// lazyJSONL are the agents whose JSON Lines sessions are read lazily.
var lazyJSONL = []string{"copilot", "qwen-code"}

// outline reads session id in pages of limit messages (0: one page) and
// fills in every elided call through LoadOutput; it returns the messages,
// the last page's info and how many calls were elided.
func outline(t *testing.T, l sessions.Lazy, id string, limit int) ([]model.Message, model.SessionInfo, int) {
	t.Helper()
	ctx := context.Background()
	var msgs []model.Message
	var info model.SessionInfo
	elided := 0
	for more := true; more; {
		page, err := l.LoadOutline(ctx, id, len(msgs), limit)
		require.NoError(t, err)
		require.Equal(t, len(msgs), page.From)
		more, info = page.More, page.Session.Info
		for _, m := range page.Session.Messages {
			for i, p := range m.Parts {
				if p.Tool == nil || !p.Tool.Elided {
					continue
				}
				elided++
				require.Positive(t, p.Tool.OutputBytes, "an elided call says how much it left out")
				tc, err := l.LoadOutput(ctx, id, p.ID)
				require.NoError(t, err)
				sameStreams(t, l, id, p.ID, tc)
				m.Parts = slices.Clone(m.Parts)
				m.Parts[i].Tool = tc
			}
			msgs = append(msgs, m)
		}
	}
	return msgs, info, elided
}

// TestLazyJSONLIsLoad: every session of every fixture of these agents,
// read in outline pages of 1, 2, 7 and all messages (each from a fresh
// store), with every elided call read again through LoadOutput, is what
// Load gives, calls and counts alike (an outline's Stored may hold
// stand-ins for the records left in the file: the wire of every step,
// written lazily from the outline, is Load's), and Load is what the file
// read whole without the lazy path gives; each agent's fixtures elide
// some call. A read-ahead (sessions.Preparer) holds a few hundred bytes,
// so its reading stops and starts again within every page.
func TestLazyJSONLIsLoad(t *testing.T) {
	sessions.SetAheadBytes(t, 256)
	for _, agent := range lazyJSONL {
		elided := 0
		for _, f := range fixtures.All(t) {
			if f.Agent == agent {
				t.Run(f.ID(), func(t *testing.T) { elided += lazyIsLoad(t, f) })
			}
		}
		if elided == 0 {
			t.Errorf("%s: no fixture's outline left an output out: the lazy path is not exercised", agent)
		}
	}
}

// lazyIsLoad is TestLazyJSONLIsLoad on fixture f; it returns how many
// calls the outlines elided.
func lazyIsLoad(t *testing.T, f fixtures.Fixture) (elided int) {
	st, infos := listFixture(t, f)
	for _, in := range infos {
		whole, err := st.Load(context.Background(), in.ID)
		require.NoError(t, err)
		rw, ok := sessions.LazyFor(st, in.ID).(interface {
			ReadWhole(path string) (*model.Session, error)
		})
		require.True(t, ok, "%s's store reads a file whole too", f.Agent)
		if ref, err := rw.ReadWhole(in.Source); err == nil && ref.Info.ID == in.ID {
			// the reader without the lazy path: Load is what it gives
			require.Equal(t, ref.Messages, whole.Messages, "session %s: Load", in.ID)
			require.Equal(t, ref.Info, whole.Info, "session %s: Load", in.ID)
			require.Equal(t, ref.Warnings, whole.Warnings, "session %s: Load", in.ID)
		} else {
			require.NotEmpty(t, in.ParentID, "only a subagent's session is not its file's")
		}
		for _, limit := range []int{1, 2, 7, 0} {
			fresh, err := sessions.Open(f.Source)
			require.NoError(t, err)
			l := sessions.LazyFor(fresh, in.ID)
			require.NotNil(t, l, "%s is read lazily", f.Agent)
			msgs, info, n := outline(t, l, in.ID, limit)
			require.Equal(t, withoutStored(whole.Messages), withoutStored(msgs), "session %s in pages of %d", in.ID, limit)
			require.Equal(t, whole.Info, info, "session %s in pages of %d", in.ID, limit)
			if limit == 0 {
				sameWires(t, l, whole)
			}
			fresh.Close()
			elided += n
		}
	}
	return elided
}

// TestLongLinesAreLoad: TestLazyJSONLIsLoad on copies of the fixtures of
// the agents whose readers take long lines (sessions.LongLiner), with
// every string of every resultDisplay (what the CLI showed, never sent
// nor read) made long and the long-line sizes lowered: the lines read
// without those strings give what the files read whole give, outlines,
// outputs and wires alike.
func TestLongLinesAreLoad(t *testing.T) {
	sessions.SetLongLines(t, 2<<10, 3000, 1<<10)
	taken := sessions.LongRead()
	for _, f := range fixtures.All(t) {
		if f.Agent != "gemini-cli" && f.Agent != "qwen-code" {
			continue
		}
		t.Run(f.ID(), func(t *testing.T) {
			f.Source = longDisplays(t, f.Source)
			lazyIsLoad(t, f)
		})
	}
	require.Greater(t, sessions.LongRead()-taken, int64(20), "lines taken long")
}

// longDisplays copies fixture dir src with every string within a
// "resultDisplay" value of its .jsonl files 4,000 bytes long, and returns
// the copy.
func longDisplays(t *testing.T, src string) string {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	long := strings.Repeat(`a \"display\" `, 300)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var out []byte
		const key = `"resultDisplay":`
		for {
			i := bytes.Index(b, []byte(key))
			if i < 0 {
				break
			}
			i += len(key)
			out = append(out, b[:i]...)
			end, ok := jsonskim.ValidValueEnd(b, i)
			if !ok {
				break
			}
			last := i
			jsonskim.Strings(b[i:end], func(str []byte) {
				at, _ := jsonskim.Within(b, str)
				out = append(append(out, b[last:at]...), `"`+long+`"`...)
				last = at + len(str)
			})
			out = append(out, b[last:end]...)
			b = b[end:]
		}
		return os.WriteFile(path, append(out, b...), 0o644)
	})
	require.NoError(t, err)
	return dir
}

// TestLazyJSONLAppend: a line appended to a copy of a fixture's session
// file is read by the next page, from where the last read ended: the
// session is what Load of the grown file gives.
func TestLazyJSONLAppend(t *testing.T) {
	for _, agent := range lazyJSONL {
		for _, f := range fixtures.All(t) {
			if f.Agent != agent {
				continue
			}
			t.Run(f.ID(), func(t *testing.T) {
				dir := t.TempDir()
				require.NoError(t, os.CopyFS(dir, os.DirFS(f.Source)))
				st, infos := listFixture(t, fixtures.Fixture{Source: dir})
				in := infos[0]
				l := sessions.LazyFor(st, in.ID)
				require.NotNil(t, l)
				before, _, _ := outline(t, l, in.ID, 0)
				// the last line again: a record the agent writes more of
				b, err := os.ReadFile(in.Source)
				require.NoError(t, err)
				lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
				fh, err := os.OpenFile(in.Source, os.O_APPEND|os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = fh.Write(append(slices.Clone(lines[len(lines)-1]), '\n'))
				require.NoError(t, err)
				require.NoError(t, fh.Close())
				after, info, _ := outline(t, l, in.ID, 0)
				fresh, err := sessions.Open(dir)
				require.NoError(t, err)
				defer fresh.Close()
				whole, err := fresh.Load(context.Background(), in.ID)
				require.NoError(t, err)
				require.Equal(t, withoutStored(whole.Messages), withoutStored(after))
				require.Equal(t, whole.Info, info)
				require.GreaterOrEqual(t, len(after), len(before))
			})
		}
	}
}

// sameStreams: a store that streams outputs gives call partID's output
// as LoadOutput gave it (full), decoded and as the body of its JSON
// string.
func sameStreams(t *testing.T, l sessions.Lazy, id, partID string, full *model.ToolCall) {
	t.Helper()
	ts, ok := l.(sessions.TextStreamer)
	if !ok {
		return
	}
	js, ok := l.(sessions.JSONStreamer)
	require.True(t, ok, "a store that streams text streams JSON too")
	enc, err := formatters.AppendStringify(nil, full.Output)
	require.NoError(t, err)
	for _, load := range []struct {
		fn   func(context.Context, string, string) (*model.ToolCall, func(string, func(string) error) error, error)
		want string
	}{{ts.LoadStreamed, full.Output}, {js.LoadStreamedJSON, string(enc[1 : len(enc)-1])}} {
		call, text, err := load.fn(context.Background(), id, partID)
		require.NoError(t, err)
		require.Equal(t, full.CallID, call.CallID)
		var b strings.Builder
		require.NoError(t, text("output", func(s string) error { b.WriteString(s); return nil }))
		require.Equal(t, load.want, b.String(), "tool part %s", partID)
	}
}

// withoutStored is msgs without their Stored records.
func withoutStored(msgs []model.Message) []model.Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Stored = nil
	}
	return out
}

// sameWires: the wire of every step of the outline of whole's session,
// its large results read as it is written, is the wire of whole, on the
// agent's own provider (OpenAI Chat for Copilot CLI and Qwen Code,
// Gemini for Gemini CLI) and projections.
func sameWires(t *testing.T, l sessions.Lazy, whole *model.Session) {
	t.Helper()
	ctx := context.Background()
	page, err := l.LoadOutline(ctx, whole.Info.ID, 0, 0)
	require.NoError(t, err)
	for _, p := range []render.Provider{render.OpenAIChat, render.Anthropic, render.Gemini} {
		for step := 1; step <= len(whole.AssistantSteps()); step++ {
			want, err := render.Conversation(whole, p, step, render.Model{})
			require.NoError(t, err)
			wantJSON, err := render.MarshalIndent(want)
			require.NoError(t, err)
			lc, err := render.ConversationLazy(ctx, l, page.Session, p, step, render.Model{})
			require.NoError(t, err)
			got, err := lc.MarshalIndent(ctx, lc.Value)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON), string(got), "session %s, %s, step %d", whole.Info.ID, p, step)
		}
	}
}
