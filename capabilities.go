package main

import (
	"fmt"
	"io"

	"correx/model"
	"correx/sessions/opencode"
)

// capsJSON is the `capabilities` object of `show --json` and `wire --json`:
// what the step's model was decided to take, from where, and whether the
// user overrode it.
type capsJSON struct {
	Provider    string            `json:"provider"`
	Model       string            `json:"model"`
	Decision    string            `json:"decision"` // "text-only", "all inputs", "text, image, pdf"
	Input       []model.InputKind `json:"input"`
	Interleaved string            `json:"interleaved,omitempty"`
	Source      string            `json:"source,omitempty"`
	Assumed     bool              `json:"assumed"`
	Note        string            `json:"note,omitempty"`
	Overridden  bool              `json:"overridden"`
	Override    string            `json:"override,omitempty"`
	Declared    string            `json:"declared"` // the decision before the override
	// ReadNow says the config was read now, not when the session ran.
	ReadNow string `json:"read_now"`
}

const readNowNote = "opencode's config files as they are now: they may have changed since the session ran"

func newCapsJSON(caps model.SessionCapabilities, providerID, modelID string) *capsJSON {
	d := caps.Declared(providerID, modelID)
	c := caps.For(providerID, modelID)
	input := c.Input
	if input == nil {
		input = []model.InputKind{}
	}
	return &capsJSON{
		Provider: providerID, Model: modelID, Decision: c.Decision(), Input: input,
		Interleaved: c.Interleaved, Source: d.Source, Assumed: d.Assumed, Note: d.Note,
		Overridden: c.Override != model.CapsDeclared, Override: string(c.Override),
		Declared: d.Decision(), ReadNow: readNowNote,
	}
}

// capsOverride is --text-only or --images.
func (c *cli) capsOverride(name string) (model.CapsOverride, error) {
	switch {
	case c.textOnly && c.images:
		return "", fmt.Errorf("%w: %s: --text-only and --images cannot go together", errUsage, name)
	case c.textOnly:
		return model.CapsTextOnly, nil
	case c.images:
		return model.CapsAllInputs, nil
	}
	return model.CapsDeclared, nil
}

// sessionCaps decides the session's models' capabilities on this machine;
// problems reading the config go to stderr, one line each.
func sessionCaps(s *model.Session, o model.CapsOverride, stderr io.Writer) model.SessionCapabilities {
	caps, warns := opencode.Capabilities(s, opencode.ThisMachine())
	for _, w := range warns {
		fmt.Fprintln(stderr, "correx: warning:", w)
	}
	caps.Override = o
	return caps
}

// prefixWriter indents every line after the first by prefix: the
// conversation written inside `wire --json`'s object (JSON strings hold no
// raw newline, so every newline is between tokens).
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	start := 0
	for i, c := range b {
		if c == '\n' {
			if _, err := io.WriteString(p.w, string(b[start:i+1])+p.prefix); err != nil {
				return start, err
			}
			start = i + 1
		}
	}
	if _, err := p.w.Write(b[start:]); err != nil {
		return start, err
	}
	return len(b), nil
}
