package sessions

// Lazy loading, for viewers of sessions too large to hold: a session is
// read as an outline, in pages of messages, with the large tool outputs
// left in the store, and a call's full output is read when it is shown.
// Load keeps its meaning (everything, in one snapshot); opencode's SQLite
// store (sessions/opencode) is the one store that offers the lazy path.

import (
	"context"

	"correx/model"
)

// OutlinePage is one page of a session outline.
type OutlinePage struct {
	// Session holds the session's Info (its counts are those of List, except
	// Messages, counted when the page was read) and the page's messages, in
	// order, their tool calls marked Elided where the output was left out.
	// Warnings are the page's (the first page's also carry the store's).
	Session *model.Session
	// From is the index of the page's first message in the session.
	From int
	// More tells that messages follow: the next page starts at
	// From+len(Session.Messages).
	More bool
}

// OutlineLoader is implemented by stores that read a session in pages
// without its large outputs.
type OutlineLoader interface {
	// LoadOutline reads up to limit messages of session id from message
	// index from on (limit <= 0: all), each page from its own snapshot. A
	// session the store cannot page (opencode's v2 loop) comes whole in the
	// first page, outputs included, with More false. An unknown id gives an
	// error that wraps ErrNotFound.
	LoadOutline(ctx context.Context, id string, from, limit int) (*OutlinePage, error)
}

// MessageLister is implemented by lazy stores that can read a session's
// messages without their parts: what a lowering a window at a time
// decides from (the steps, their models) before it reads the parts a
// page at a time.
type MessageLister interface {
	// LoadMessages reads the messages of session id, in order, with no
	// parts, and the warnings reading them raised; a session the store
	// cannot page gives its info alone.
	LoadMessages(ctx context.Context, id string) (*model.Session, error)
}

// OutputLoader is implemented by stores whose outlines elide outputs.
type OutputLoader interface {
	// LoadOutput reads tool part partID of session sessionID whole (output,
	// error, attachments and metadata as Load gives them).
	LoadOutput(ctx context.Context, sessionID, partID string) (*model.ToolCall, error)
}

// WholeOutliner is implemented by lazy stores that can give an outline page
// with every output in place but those read best one at a time (the
// largest), for readers of every output (correx calls and transcript):
// they then read only those with LoadOutput.
type WholeOutliner interface {
	// LoadOutlineWhole is LoadOutline with the outputs it does not elide
	// as LoadOutput reads them (model.ToolCall.Elided false).
	LoadOutlineWhole(ctx context.Context, id string, from, limit int) (*OutlinePage, error)
}

// RequestLoader is implemented by stores whose outlines leave the requests
// an agent logged in the store (model.LoggedRequest.Elided: Claude Code's
// api-request records, whose messages are its transcript's lines).
type RequestLoader interface {
	// LoadRequest reads the logged request of message index msg (an
	// assistant step) of session sessionID whole, read for this call:
	// the caller's to keep or let go.
	LoadRequest(ctx context.Context, sessionID string, msg int) (*model.LoggedRequest, error)
}

// DeferringRequestLoader is a RequestLoader that can leave the large
// strings of a logged request in its file (render.DeferringRequestLoader):
// LoadRequestDeferred puts in the request, in the place of each, the
// placeholder place returns for the body writer that copies it from the
// file (a Leaver) when the wire is written; closed closes the file.
type DeferringRequestLoader interface {
	LoadRequestDeferred(ctx context.Context, sessionID string, msg int, place func(body func(ctx context.Context, write func(body string) error) error) string) (req *model.LoggedRequest, closed func() error, err error)
}

// WindowRequestLoader is a DeferringRequestLoader that can read a window
// of a logged request alone (render.WindowRequestLoader), so that a
// request of thousands of messages shows its start (the Request pane) or
// its end (the calls whose results it carries) at once.
type WindowRequestLoader interface {
	// LoadRequestWindow is LoadRequestDeferred of the request's first
	// head messages, or (head 0) its last tail messages, alone, from its
	// message from on, with the cache marks among them (their Message
	// counted in the window); req is nil when the request has no more
	// messages than that, or is not read as logged (rebuilt).
	LoadRequestWindow(ctx context.Context, sessionID string, msg, head, tail int, place func(body func(ctx context.Context, write func(body string) error) error) string) (req *model.LoggedRequest, from int, closed func() error, err error)
}

// Lazy is a store that offers both parts of the lazy path.
type Lazy interface {
	OutlineLoader
	OutputLoader
}

// LazyFor returns the store of s that can read session id lazily, or nil
// when it must be loaded whole with Load. A combined store answers for the
// sessions its List attributed to a lazy store.
func LazyFor(s Store, id string) Lazy {
	if m, ok := s.(*multi); ok {
		m.mu.Lock()
		s = m.owner[id]
		m.mu.Unlock()
		if s == nil && len(m.stores) == 1 {
			s = m.stores[0]
		}
	}
	if l, ok := s.(Lazy); ok {
		return l
	}
	return nil
}

// SideBySide is implemented by a Lazy whose outline pages and outputs are
// read side by side, none waiting on another (opencode's database, read
// through a pool of connections): a walk over a session reads its next
// page while the calls of this one are formatted. A JSON Lines store
// reads a file's pages and outputs in turn, so reading ahead only made it
// slower.
type SideBySide interface{ ReadsSideBySide() }

// TextStreamer is implemented by stores that can give a call's output and
// error a piece at a time, so that a writer never holds them whole.
type TextStreamer interface {
	// LoadStreamed reads tool part partID of session sessionID as an
	// outline gives a large one (model.ToolCall.Elided: output, error,
	// attachments and big metadata left out) and returns text, which
	// writes its output (field "output") or error ("error"), decoded as
	// LoadOutput decodes them, to write in pieces of whole runes; a piece
	// is valid during its write only (its buffer is reused for the next).
	LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(string) error) error, error)
}

// MetaStreamer is a TextStreamer that gives the call with its metadata
// as stored, big or not: only its output and error are left out, to be
// written by text (the inspector's Call pane shows the metadata whole).
type MetaStreamer interface {
	LoadStreamedMeta(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(string) error) error, error)
}

// JSONStreamer is a TextStreamer that can give the output and error as
// the body of the JSON string formatters.Stringify writes for them (no
// quotes), so that a text stored in that form is copied to the wire, not
// decoded and encoded again.
type JSONStreamer interface {
	LoadStreamedJSON(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(field string, write func(body string) error) error, error)
}

// PageWarnings remembers the warnings the pages of one session gave, so
// that a later page gives those the lines read for it raised, each once.
type PageWarnings map[string]bool

// Of is what the page from message from says of all, the warnings so far:
// the first page all of them, a later one those no page gave.
func (g *PageWarnings) Of(from int, all []string) []string {
	if from == 0 || *g == nil {
		*g = PageWarnings{}
	}
	var out []string
	for _, w := range all {
		if from == 0 || !(*g)[w] {
			out = append(out, w)
		}
		(*g)[w] = true
	}
	return out
}
