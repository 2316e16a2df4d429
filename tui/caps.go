package tui

import (
	tea "charm.land/bubbletea/v2"

	"correx/model"
	"correx/sessions/opencode"
)

// What an opencode session's models were declared to take is decided by
// sessions/opencode (ModelCapabilities) in a command, once per loaded
// session; the panes that show requests wait for it, show it in a header
// line, and I overrides it (declared → text-only → all inputs).

// capsState is a session's decided capabilities (nil on sessionData until
// read) and the problems met reading opencode's config.
type capsState struct {
	caps  model.SessionCapabilities
	warns []string
}

type capsMsg struct {
	data  *sessionData
	state *capsState
}

// capsCmd decides the capabilities of models (taken from d's session in
// Update) for a session of info on machine mc.
func capsCmd(mc opencode.Machine, d *sessionData, info model.SessionInfo, models []opencode.ModelRef) tea.Cmd {
	return func() tea.Msg {
		caps, warns := opencode.ModelCapabilities(info, models, mc)
		return capsMsg{data: d, state: &capsState{caps: caps, warns: warns}}
	}
}

// needsCaps says whether a session's requests depend on capabilities
// that are not read yet.
func needsCaps(d *sessionData) bool {
	in := d.sess.Info
	return d.caps == nil && in.Agent.UsesOpencode()
}

// capsFor is the capabilities a conversation of d's session is rendered
// with, under the override.
func capsFor(d *sessionData, o model.CapsOverride) model.SessionCapabilities {
	var caps model.SessionCapabilities
	if d != nil && d.caps != nil {
		caps = d.caps.caps
	}
	caps.Override = o
	return caps
}

// capsLine is the panes' header line: the inputs the call's model is
// lowered with, where that was decided, and that the config is read now.
func (v *sessionView) capsLine(d *sessionData, msg *model.Message) string {
	in := d.sess.Info
	if !in.Agent.UsesOpencode() || msg == nil {
		return ""
	}
	if d.caps == nil {
		return v.st.Muted.Render("inputs: reading opencode's config…")
	}
	caps := capsFor(d, v.a.inputs)
	line := "inputs: " + caps.For(msg.ProviderID, msg.ModelID).Summary(caps.Declared(msg.ProviderID, msg.ModelID))
	if c := caps.Declared(msg.ProviderID, msg.ModelID); !c.Assumed {
		line += " (read now: the config may have changed since the session ran)"
	}
	line += " · I"
	style := v.st.Muted
	if caps.Declared(msg.ProviderID, msg.ModelID).Assumed {
		style = v.st.BadgeWarn
	}
	return style.Render(inertString(line, v.st.Inert))
}

// toggleInputs is I: the next override of the models' declared inputs.
func (v *sessionView) toggleInputs() {
	a := v.a
	in := v.data.sess.Info
	if !in.Agent.UsesOpencode() {
		a.warn(agentName(in.Agent) + " builds its own requests: model inputs are not opencode's to decide")
		return
	}
	a.inputs = a.inputs.Next()
	switch a.inputs {
	case model.CapsTextOnly:
		a.info("inputs: text-only (override: media become opencode's \"ERROR: Cannot read …\" text)")
	case model.CapsAllInputs:
		a.info("inputs: all (override: every image, audio, video and PDF is sent)")
	default:
		a.info("inputs: as declared in opencode's config")
	}
}

// withLine is head with line after it, unless line is empty.
func withLine(head []string, line string) []string {
	if line == "" {
		return head
	}
	return append(head[:len(head):len(head)], line)
}
