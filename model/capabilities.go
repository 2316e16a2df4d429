package model

import "strings"

// InputKind is a kind of non-text input an opencode model is declared to
// take (capabilities.input): opencode replaces a user message's file part
// of a kind the model does not take with an error text.
type InputKind string

const (
	InputImage InputKind = "image"
	InputAudio InputKind = "audio"
	InputVideo InputKind = "video"
	InputPDF   InputKind = "pdf"
)

// InputKinds are the kinds opencode checks, in its order.
var InputKinds = []InputKind{InputImage, InputAudio, InputVideo, InputPDF}

// InputKindOf is opencode's mimeToModality: the kind of a media type, or ""
// for one opencode never refuses.
func InputKindOf(mime string) InputKind {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return InputImage
	case strings.HasPrefix(mime, "audio/"):
		return InputAudio
	case strings.HasPrefix(mime, "video/"):
		return InputVideo
	case mime == "application/pdf":
		return InputPDF
	}
	return ""
}

// CapsOverride is the user's override of a model's declared inputs.
type CapsOverride string

const (
	CapsDeclared  CapsOverride = ""           // as declared (or assumed)
	CapsTextOnly  CapsOverride = "text-only"  // no input but text
	CapsAllInputs CapsOverride = "all-inputs" // every input kind
)

// Next is the override after o, in the TUI's cycle: declared, text-only,
// all inputs.
func (o CapsOverride) Next() CapsOverride {
	switch o {
	case CapsDeclared:
		return CapsTextOnly
	case CapsTextOnly:
		return CapsAllInputs
	}
	return CapsDeclared
}

// Capabilities is what opencode decided one model takes, as far as the
// lowering depends on it: the input kinds besides text, and the assistant
// message field its reasoning is sent back in (capabilities.interleaved).
// sessions/ decides it from the user's config and the models.dev
// catalogue; render lowers by it.
type Capabilities struct {
	ProviderID string      `json:"provider"`
	ModelID    string      `json:"model"`
	Input      []InputKind `json:"input"` // besides text, in InputKinds order
	// Interleaved is the field opencode puts a step's reasoning in, for a
	// model declared with interleaved {"field": …}; "" when none.
	Interleaved string `json:"interleaved,omitempty"`
	// NPM is the AI SDK package of the model (interleaved is not applied
	// for @openrouter/ai-sdk-provider).
	NPM string `json:"npm,omitempty"`
	// Source says where the inputs were decided: the config file that
	// declared them, or the models.dev catalogue file. "" when Assumed.
	Source string `json:"source,omitempty"`
	// Assumed is set when nothing correx could read declares them; Note
	// then says what was assumed and why.
	Assumed bool   `json:"assumed"`
	Note    string `json:"note,omitempty"`
	// Override is the user's override (--text-only, --images, the TUI's I);
	// Input is then the overridden set.
	Override CapsOverride `json:"override,omitempty"`
}

// AssumedCapabilities are what correx assumes when nothing declares a
// model's inputs: all of them, so that no media is hidden.
func AssumedCapabilities(providerID, modelID, why string) Capabilities {
	return Capabilities{ProviderID: providerID, ModelID: modelID, Input: append([]InputKind(nil), InputKinds...),
		Assumed: true, Note: "assumed all inputs: " + why}
}

// Takes says whether the model takes input of kind k.
func (c Capabilities) Takes(k InputKind) bool {
	for _, in := range c.Input {
		if in == k {
			return true
		}
	}
	return false
}

// WithOverride is c with the user's override applied.
func (c Capabilities) WithOverride(o CapsOverride) Capabilities {
	c.Override = o
	switch o {
	case CapsTextOnly:
		c.Input = nil
	case CapsAllInputs:
		c.Input = append([]InputKind(nil), InputKinds...)
	}
	return c
}

// Decision is the inputs in a few words: "text-only", "all inputs", or the
// kinds ("text, image, pdf").
func (c Capabilities) Decision() string {
	switch len(c.Input) {
	case 0:
		return "text-only"
	case len(InputKinds):
		return "all inputs"
	}
	words := []string{"text"}
	for _, k := range c.Input {
		words = append(words, string(k))
	}
	return strings.Join(words, ", ")
}

// Summary is the decision and where it came from, for a header:
// "text-only · from ~/.config/opencode/opencode.jsonc", "all inputs ·
// assumed: …", "text-only · overridden (declared: all inputs, from …)".
func (c Capabilities) Summary(declared Capabilities) string {
	from := "from " + declared.Source
	if declared.Assumed {
		from = strings.TrimPrefix(declared.Note, "assumed all inputs: ")
		from = "assumed: " + from
	}
	if c.Override != CapsDeclared {
		return c.Decision() + " · overridden (declared: " + declared.Decision() + ", " + from + ")"
	}
	return c.Decision() + " · " + from
}

// SessionCapabilities are the capabilities of every model a session's
// steps used, with the user's override.
type SessionCapabilities struct {
	Models   []Capabilities `json:"models,omitempty"`
	Override CapsOverride   `json:"override,omitempty"`
}

// Declared is the declared capabilities of a model: those found, or
// assumed when the model is not among them.
func (s SessionCapabilities) Declared(providerID, modelID string) Capabilities {
	for _, c := range s.Models {
		if c.ProviderID == providerID && c.ModelID == modelID {
			return c
		}
	}
	return AssumedCapabilities(providerID, modelID, "correx did not read opencode's config for this model")
}

// For is the capabilities a request for the model is lowered with: the
// declared ones with the override.
func (s SessionCapabilities) For(providerID, modelID string) Capabilities {
	return s.Declared(providerID, modelID).WithOverride(s.Override)
}
