package sessions

// A LineStore's outputs streamed to a wire (TextStreamer, JSONStreamer):
// an output left in its line is copied from the JSON string it lies in,
// not decoded with the rest of the line and encoded again.

import (
	"context"
	"fmt"
	"unsafe"

	"correx/formatters"
	"correx/internal/jsonskim"
	"correx/model"
)

// OutputStringer is implemented by a LineReader that can find, in the
// line it left a call's output in, that output's JSON string as it lies.
type OutputStringer interface {
	// OutputString is call partID as the outline gives it and, when its
	// output was left out (model.ToolCall.Elided), the JSON string of that
	// output (quotes included) in its line, read again through read; a
	// call not left out comes whole, with no string.
	OutputString(partID string, read func(Line) ([]byte, error)) (*model.ToolCall, []byte, error)
}

// LoadStreamed implements TextStreamer.
func (s *LineStore) LoadStreamed(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	return s.streamed(ctx, sessionID, partID, false)
}

// LoadStreamedJSON implements JSONStreamer: an output whose JSON string
// in the file has the escapes formatters.Stringify writes
// (jsonskim.Canonical; JSON.stringify's, as the agents in Node write
// their logs) is copied as it lies.
func (s *LineStore) LoadStreamedJSON(ctx context.Context, sessionID, partID string) (*model.ToolCall, func(string, func(string) error) error, error) {
	return s.streamed(ctx, sessionID, partID, true)
}

// streamed is LoadStreamed, or with asJSON LoadStreamedJSON.
func (s *LineStore) streamed(ctx context.Context, sessionID, partID string, asJSON bool) (*model.ToolCall, func(string, func(string) error) error, error) {
	call, str, err := s.outputString(ctx, sessionID, partID)
	if err != nil {
		return nil, nil, err
	}
	return call, StreamOutput(call, str, asJSON), nil
}

// StreamOutput is the text function of a TextStreamer (with asJSON, of a
// JSONStreamer) for call, whose output, when str is not nil, is the JSON
// string str (as OutputStringer gives them); nil for no call.
func StreamOutput(call *model.ToolCall, str []byte, asJSON bool) func(field string, write func(string) error) error {
	if call == nil {
		return nil
	}
	if str == nil {
		return func(field string, write func(string) error) error {
			text := call.Output
			if field == "error" {
				text = call.Error
			}
			return writeText(text, asJSON, write)
		}
	}
	return func(field string, write func(string) error) error {
		if field != "output" {
			return fmt.Errorf("tool call %q: its %s was not left in the file", call.CallID, field)
		}
		// str is the line's, read for this call alone and never written
		if body := str[1 : len(str)-1]; asJSON && jsonskim.Canonical(unsafe.String(unsafe.SliceData(body), len(body))) {
			return write(unsafe.String(unsafe.SliceData(body), len(body)))
		}
		text, ok := jsonskim.Text(str)
		if !ok {
			return fmt.Errorf("tool call %q: its output is not a JSON string", call.CallID)
		}
		return writeText(text, asJSON, write)
	}
}

// writeText writes text, with asJSON as the body of the JSON string
// formatters.Stringify writes for it.
func writeText(text string, asJSON bool, write func(string) error) error {
	if !asJSON {
		return write(text)
	}
	b, err := formatters.AppendStringify(nil, text)
	if err != nil {
		return err
	}
	return write(string(b[1 : len(b)-1]))
}

// outputString is call partID of session sessionID and its output's JSON
// string as OutputStringer gives them; a reader that is no
// OutputStringer gives the call whole (LoadOutput).
func (s *LineStore) outputString(ctx context.Context, sessionID, partID string) (*model.ToolCall, []byte, error) {
	f, err := s.lazyFile(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	if f != nil {
		f.mu.Lock()
		if os, ok := f.reader.(OutputStringer); ok {
			defer f.mu.Unlock()
			return os.OutputString(partID, f.lines.Read)
		}
		f.mu.Unlock() // LoadOutput takes it
	}
	call, err := s.LoadOutput(ctx, sessionID, partID)
	return call, nil, err
}
