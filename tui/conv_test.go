package tui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/internal/props"
	"correx/model"
	"correx/render"
	"correx/sessions"
)

// TestLazyConversationSpooled checks the Request pane's conversation of a
// lazy session, read through a real store's outline (large outputs left
// in the store) and spooled to a file or kept in memory: byte for byte the
// JSON of the whole session, its line index right, and the Wire and
// Pipeline excerpts the same as from the whole conversation.
// spooledEarly counts the first results spooled saw; spooledEarlyKept
// those whose whole JSON was then kept in memory.
var spooledEarly, spooledEarlyKept, spooledHeads int

// spooled runs convSpool to its whole result. A JSON over mem bytes, or
// over firstScreenBytes, comes first as its first lines, still writing,
// with the excerpts already whole: those lines must be the whole
// result's, from its file (over mem bytes) or in memory.
func spooled(t *testing.T, ctx context.Context, k convKey, outline *model.Session, l sessions.Lazy, win *windowSource, mem int64) convResult {
	t.Helper()
	msg := convSpool(ctx, k, outline, l, win, model.SessionCapabilities{}, mem).(convMsg)
	if msg.next == nil {
		require.False(t, msg.res.writing)
		return msg.res
	}
	var heads []convResult
	if msg.res.head { // the first lines of a head first
		spooledHeads++
		require.True(t, msg.res.writing)
		require.NotNil(t, msg.res.file)
		heads = append(heads, msg.res)
		if msg = msg.next().(convMsg); msg.next == nil {
			require.False(t, msg.res.writing)
			whole := msg // the head is the first lines it checks
			msg.next = func() tea.Msg { return whole }
			msg.res = heads[0]
		}
	}
	early := msg.res
	spooledEarly++
	require.True(t, early.writing)
	require.NotNil(t, early.file)
	res := msg.next().(convMsg).res
	require.False(t, res.writing)
	require.NoError(t, res.err)
	for _, h := range heads {
		// the head's lines are the whole's, from its file or in memory
		lines, _ := splitLines(res.json)
		for i := range h.file.starts.len() {
			if res.file != nil {
				require.Equal(t, res.file.prefix(i, 1<<20), h.file.prefix(i, 1<<20), "the head's line %d", i)
			} else {
				require.Equal(t, lines[i], h.file.prefix(i, len(lines[i])+1), "the head's line %d", i)
			}
		}
		if early.head {
			early.excerpts = res.excerpts // a head has none
		} else {
			h.file.Close()
		}
	}
	if res.file == nil {
		spooledEarlyKept++
		require.LessOrEqual(t, res.size, mem, "a JSON over mem bytes is shown from its file")
		require.Greater(t, res.size, int64(firstScreenBytes))
		lines, _ := splitLines(res.json)
		require.LessOrEqual(t, early.file.starts.len(), len(lines))
		for i := range early.file.starts.len() {
			require.Equal(t, lines[i], early.file.prefix(i, len(lines[i])+1), "line %d", i)
		}
	} else {
		require.LessOrEqual(t, early.file.starts.len(), res.file.starts.len())
		for i := range early.file.starts.len() {
			require.Equal(t, res.file.prefix(i, 1<<20), early.file.prefix(i, 1<<20), "line %d", i)
		}
	}
	require.Equal(t, early.excerpts, res.excerpts)
	early.file.Close()
	return res
}

func TestLazyConversationSpooled(t *testing.T) {
	defer func(n int) { render.WindowMessages = n }(render.WindowMessages)
	render.WindowMessages = 2 // a window every few messages
	t.Cleanup(func() {
		spools.Lock()
		dir := spools.dir
		spools.dir = ""
		spools.Unlock()
		os.RemoveAll(dir)
	})
	ctx := context.Background()
	elided, excerpted, filed, windowed := 0, 0, 0, 0
	for _, dir := range fixtureFlavours(t) {
		st, err := sessions.Open(dir)
		require.NoError(t, err)
		defer st.Close()
		infos, err := st.List(ctx)
		require.NoError(t, err)
		for _, in := range infos {
			l := sessions.LazyFor(st, in.ID)
			if l == nil || in.Pipeline == model.PipelineV2 {
				continue
			}
			full, err := st.Load(ctx, in.ID)
			require.NoError(t, err)
			p, err := l.LoadOutline(ctx, in.ID, 0, 0)
			require.NoError(t, err)
			for _, r := range p.Session.ToolCalls() {
				if r.Call.Elided {
					elided++
				}
			}
			step := len(full.AssistantSteps())
			for _, prov := range render.Providers {
				r, err := render.Render(full, prov, step, render.Model{})
				require.NoError(t, err)
				val := r.Value
				want, err := render.MarshalIndent(val)
				require.NoError(t, err)
				// lowered whole, and a window at a time from pages of two
				// messages where it can be
				ways := []*windowSource{nil}
				if render.Windowable(p.Session, prov, step, render.Model{}) {
					at := p.Session.AssistantSteps()[step-1]
					ways = append(ways, &windowSource{info: p.Session.Info, at: at, step: p.Session.Messages[at],
						pages: func(_ context.Context, lo int) ([]model.Message, error) {
							return p.Session.Messages[lo:min(lo+2, len(p.Session.Messages))], nil
						}})
					windowed++
				}
				for _, mem := range []int64{0, 1 << 30} {
					for _, pages := range ways {
						res := spooled(t, ctx, convKey{p: prov, step: step, whole: true}, p.Session, l, pages, mem)
						require.NoError(t, res.err)
						got := res.json
						if res.file != nil {
							b, err := os.ReadFile(res.file.f.Name())
							require.NoError(t, err)
							got = string(b)
							lines, _ := splitLines(got)
							require.Equal(t, len(lines), res.file.starts.len())
							for i := range res.file.starts.len() {
								s := res.file.starts.at(i)
								require.Equal(t, lines[i], res.file.prefix(i, len(lines[i])+1), "line %d", i)
								require.True(t, s == 0 || got[s-1] == '\n')
							}
							res.file.Close()
						}
						require.Equal(t, string(want), got, "%s %s %s", dir, in.ID, prov)
						require.Equal(t, int64(len(want)), res.size)
						require.Equal(t, len(val.([]render.Value)), res.items)
					}
				}
				var outs []convResult
				for _, pages := range ways {
					outs = append(outs, spooled(t, ctx, convKey{p: prov, step: step, whole: true}, p.Session, l, pages, 1<<30))
					excerpt := convSpool(ctx, convKey{p: prov, step: step}, p.Session, l, pages, model.SessionCapabilities{}, 1<<30).(convMsg)
					for excerpt.next != nil { // a tail first
						excerpt = excerpt.next().(convMsg)
					}
					outs = append(outs, excerpt.res)
				}
				ids := stepCallIDs(full, step)
				wantEx, spooled := excerpts(val, 0, r.Places, ids, render.WriteIndent, 1<<30)
				require.Empty(t, spooled)
				items := val.([]render.Value)
				pick := func(idx []int) string {
					var vs []render.Value
					for _, j := range idx {
						vs = append(vs, items[j])
					}
					b, err := render.MarshalIndent(vs)
					require.NoError(t, err)
					return string(b)
				}
				for _, id := range ids {
					require.True(t, wantEx[id].wireOK && wantEx[id].resultOK, "%s %s: call %s not in the request of step %d", dir, prov, id, step)
					// an excerpt is the JSON of its items, written once each
					require.Equal(t, pick(r.Places[id].Items()), wantEx[id].wire)
					require.Equal(t, pick(r.Places[id].ResultItems()), piecesText(t, wantEx[id].result))
					require.Nil(t, wantEx[id].wireFile)
					for _, res := range outs {
						require.Equal(t, wantEx[id], res.excerpts[id], "%s %s call %s", dir, prov, id)
						require.Equal(t, len(items), res.items)
					}
					excerpted++
				}
				// held in spool files (every list, lowered from 1 MiB), the
				// excerpts are the same bytes
				func() {
					defer func(n int) { exactMemBytes = n }(exactMemBytes)
					exactMemBytes = 0
					got, files := excerpts(val, 0, r.Places, ids, render.WriteIndent, 0)
					defer func() {
						for _, fl := range files {
							fl.Close()
						}
					}()
					for _, id := range ids {
						e, w := got[id], wantEx[id]
						require.NotNil(t, e.wireFile, "%s %s call %s", dir, prov, id)
						require.Empty(t, e.wire)
						require.Equal(t, w.wire, piecesText(t, e.wirePieces()), "%s %s call %s", dir, prov, id)
						require.Equal(t, piecesText(t, w.result), piecesText(t, e.result), "%s %s call %s", dir, prov, id)
						e.wireFile, e.result, w.result = nil, nil, nil
						e.wire = w.wire
						require.Equal(t, w, e)
						filed++
					}
				}()
			}
		}
	}
	require.NotZero(t, excerpted)
	require.NotZero(t, windowed, "no conversation was lowered a window at a time")
	require.NotZero(t, elided, "no fixture call was elided by its outline")
	require.NotZero(t, filed, "no excerpt was kept in a spool file")
	// with mem 0 every JSON comes first as its first lines, unless the
	// whole one is ready as soon (then either may come): over every
	// fixture, some do
	require.NotZero(t, spooledEarly, "no conversation came first as its first lines")
	require.NotZero(t, spooledEarlyKept, "no conversation came first as its first lines, then whole in memory")
}

// TestOnlyRequestWritesTheJSON: Wire, Compare and Pipeline are shown from
// the excerpts alone, and the whole conversation's JSON is written only
// for Request (for a lazy session's conversation, that is reading every
// output of the session).
func TestOnlyRequestWritesTheJSON(t *testing.T) {
	for _, dir := range fixtureFlavours(t) {
		h := openFixture(t, dir, 160, 40)
		v := h.m.current()
		v.list.Select(len(v.list.rows) - 1)
		h.send(nil)
		written := func() (n int) {
			for k, res := range h.m.convs.convs {
				if k.whole || res.json != "" || res.file != nil {
					n++
				}
			}
			return n
		}
		for _, pane := range []string{"3", "5", "6"} {
			h.key(pane)
			require.Zero(t, written(), "%s: pane %s had the whole JSON written", dir, pane)
		}
		h.key("4")
		require.NotZero(t, written(), "%s: Request has no JSON", dir)
		h.key("3") // a whole conversation serves Wire too
		require.Contains(t, h.plain(), "request of step", dir)
	}
}

// piecesText is the pieces' text, those in files read back.
func piecesText(t *testing.T, ps []xpiece) string {
	var b strings.Builder
	require.NoError(t, writePieces(&b, ps))
	return b.String()
}

// TestRequestHeadIsTheWholesStart: on every fixture of every agent, the
// Request pane's JSON of every step on every provider, lowered from a
// lazy session's outline, comes first as its head where one can be
// lowered (convHead: Claude Code's logged requests), and the head's lines
// are the whole JSON's (spooled checks them).
func TestRequestHeadIsTheWholesStart(t *testing.T) {
	defer func(n int) { headMessages = n }(headMessages)
	headMessages = 3
	ctx := context.Background()
	before := spooledHeads
	eachLazyStep(t, func(_ fixtures.Fixture, _ string, l sessions.Lazy, outline *model.Session, step int) {
		for _, prov := range render.Providers {
			res := spooled(t, ctx, convKey{p: prov, step: step, whole: true}, outline, l, nil, 0)
			if res.file != nil {
				res.file.Close()
			}
		}
	})
	require.Greater(t, spooledHeads-before, 20, "conversations that came first as their head")
	t.Logf("%d conversations came first as their head", spooledHeads-before)
}

// TestCompareTailIsTheWholes: on every fixture of every agent, Compare's
// two sides of every step, lowered from a lazy session's outline
// (convSpoolPair), come first as their tails where they can, and each
// call a tail places has the whole's excerpt on its side, byte for byte.
func TestCompareTailIsTheWholes(t *testing.T) {
	defer func(n int) { tailMessages = n }(tailMessages)
	ctx := context.Background()
	tails, calls := 0, 0
	for _, n := range []int{2, 8} {
		tailMessages = n
		eachLazyStep(t, func(f fixtures.Fixture, id string, l sessions.Lazy, outline *model.Session, step int) {
			for i, prov := range render.Providers {
				ks := [2]convKey{{p: prov, step: step}, {p: render.Providers[(i+1)%len(render.Providers)], step: step}}
				msgs := []convMsg{convSpoolPair(ctx, ks, outline, l, nil, model.SessionCapabilities{}, 1<<20).(convMsg)}
				for last := msgs[0]; last.next != nil; {
					last = last.next().(convMsg)
					msgs = append(msgs, last)
				}
				if !msgs[0].res.tail {
					require.Len(t, msgs, 2)
					continue
				}
				require.Len(t, msgs, 4)
				tails++
				// one side alone (the other lowered already) comes as
				// its tail too
				one := convSpool(ctx, ks[0], outline, l, nil, model.SessionCapabilities{}, 1<<20).(convMsg)
				require.True(t, one.res.tail, "%s %s step %d %s alone", f.ID(), id, step, ks[0].p)
				require.Equal(t, tailTexts(msgs[0].res), tailTexts(one.res))
				one.res.close()
				one.next().(convMsg).res.close()
				for side := range 2 {
					at := fmt.Sprintf("%s %s step %d %s", f.ID(), id, step, ks[side].p)
					tail, whole := msgs[side].res, msgs[2+side].res
					require.Equal(t, ks[side], msgs[side].key)
					require.Equal(t, ks[side], msgs[2+side].key)
					require.True(t, tail.writing)
					require.False(t, whole.writing || whole.tail)
					require.NoError(t, whole.err)
					for call, e := range tail.excerpts {
						if !e.wireOK {
							continue
						}
						w := whole.excerpts[call]
						require.True(t, w.wireOK, "%s: call %s", at, call)
						require.Equal(t, excerptText(w), excerptText(e), "%s: call %s", at, call)
						calls++
					}
					tail.close()
					whole.close()
				}
			}
		})
	}
	require.Greater(t, tails, 20, "Compare's sides that came first as their tails")
	require.Greater(t, calls, 100, "calls placed in the tails")
	t.Logf("%d pairs came first as their tails, %d calls placed in them", tails, calls)
}

// tailTexts are the wire texts of the excerpts a tail places.
func tailTexts(r convResult) map[string]string {
	out := map[string]string{}
	for call, e := range r.excerpts {
		if e.wireOK {
			out[call] = excerptText(e)
		}
	}
	return out
}

// eachLazyStep calls fn with every step of every session of every
// fixture that its store reads lazily, and the session's outline in one
// page.
func eachLazyStep(t *testing.T, fn func(f fixtures.Fixture, id string, l sessions.Lazy, outline *model.Session, step int)) {
	t.Helper()
	for _, f := range fixtures.All(t) {
		st, infos := props.OpenList(t, sessions.Open, f.Source)
		for _, in := range infos {
			l := sessions.LazyFor(st, in.ID)
			if l == nil {
				continue
			}
			p, err := l.LoadOutline(context.Background(), in.ID, 0, 0)
			require.NoError(t, err, f.ID())
			for step := 1; step <= len(p.Session.AssistantSteps()); step++ {
				fn(f, in.ID, l, p.Session, step)
			}
		}
		st.Close()
	}
}

// excerptText is an excerpt's wire JSON, from its file when it is held
// there.
func excerptText(e excerpt) string {
	if e.wireFile == nil {
		return e.wire
	}
	var b strings.Builder
	for _, p := range e.wirePieces() {
		b.WriteString(p.text)
		if p.file != nil {
			buf := make([]byte, p.n)
			_, _ = p.file.f.ReadAt(buf, p.off)
			b.Write(buf)
		}
	}
	return b.String()
}

// TestSpoolRemovedOnClose: a spool file closed (as Update does when it
// evicts a conversation) is removed, in the background, once.
func TestSpoolRemovedOnClose(t *testing.T) {
	f, err := createSpool()
	require.NoError(t, err)
	_, err = f.WriteString("{}\n")
	require.NoError(t, err)
	fl, err := spoolLines(f, 3)
	require.NoError(t, err)
	require.True(t, fl.spool)
	fl.Close()
	fl.Close() // twice: removed once, no harm
	require.Eventually(t, func() bool {
		_, err := os.Stat(f.Name())
		spools.Lock()
		defer spools.Unlock()
		return os.IsNotExist(err) && !spools.open[fl]
	}, 10*time.Second, 5*time.Millisecond)
}
