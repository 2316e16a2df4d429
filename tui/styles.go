package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// palette holds the semantic colour tokens every style is derived from.
// Components use Styles, never a literal colour.
type palette struct {
	fg, fgMuted, fgSubtle color.Color
	primary, secondary    color.Color
	border, borderFocus   color.Color
	selBg, selFg          color.Color
	success, warn, err    color.Color
	marker, markerBg      color.Color
	matchBg, curMatchBg   color.Color
	inert                 color.Color
	jsonKey, jsonString   color.Color
	jsonNumber, jsonConst color.Color
	keyword, comment      color.Color
	diffBg                color.Color
}

func newPalette(isDark bool) palette {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	return palette{
		fg:          ld(c("#1f2328"), c("#e6e6e6")),
		fgMuted:     ld(c("#57606a"), c("#a0a0a0")),
		fgSubtle:    ld(c("#8c959f"), c("#6e7681")),
		primary:     ld(c("#6639ba"), c("#b48cff")),
		secondary:   ld(c("#0969da"), c("#58a6ff")),
		border:      ld(c("#d0d7de"), c("#3d444d")),
		borderFocus: ld(c("#8250df"), c("#a371f7")),
		selBg:       ld(c("#ddf4ff"), c("#2d2a4a")),
		selFg:       ld(c("#0a3069"), c("#ffffff")),
		success:     ld(c("#1a7f37"), c("#3fb950")),
		warn:        ld(c("#9a6700"), c("#d29922")),
		err:         ld(c("#cf222e"), c("#f85149")),
		marker:      ld(c("#953800"), c("#ffa657")),
		markerBg:    ld(c("#fff1e5"), c("#3d2a12")),
		matchBg:     ld(c("#fff8c5"), c("#5a4a00")),
		curMatchBg:  ld(c("#ffd33d"), c("#bb8009")),
		inert:       ld(c("#bf3989"), c("#ff7bd5")),
		jsonKey:     ld(c("#0550ae"), c("#79c0ff")),
		jsonString:  ld(c("#116329"), c("#7ee787")),
		jsonNumber:  ld(c("#953800"), c("#ffa657")),
		jsonConst:   ld(c("#8250df"), c("#d2a8ff")),
		keyword:     ld(c("#cf222e"), c("#ff7b72")),
		comment:     ld(c("#6e7781"), c("#8b949e")),
		diffBg:      ld(c("#ffebe9"), c("#3c1618")),
	}
}

// Styles is every style the TUI uses, built from one palette. Meaning never
// rests on colour alone (NO_COLOR keeps bold, reverse and the glyphs).
type Styles struct {
	IsDark bool

	App      lipgloss.Style
	Header   lipgloss.Style
	HeaderID lipgloss.Style
	Demo     lipgloss.Style
	Muted    lipgloss.Style
	Subtle   lipgloss.Style
	Bold     lipgloss.Style

	Border      lipgloss.Style // border glyphs of an unfocused box
	BorderFocus lipgloss.Style // border glyphs of the focused box
	BoxTitle    lipgloss.Style
	BoxTitleFoc lipgloss.Style
	JumpHint    lipgloss.Style

	Tab       lipgloss.Style
	TabActive lipgloss.Style

	Selected      lipgloss.Style // selected row, focused list
	SelectedBlur  lipgloss.Style // selected row, list not focused
	ColumnHeader  lipgloss.Style
	StatusOK      lipgloss.Style
	StatusErr     lipgloss.Style
	StatusRunning lipgloss.Style
	ErrBadge      lipgloss.Style
	TruncBadge    lipgloss.Style
	SubBadge      lipgloss.Style
	Duration      lipgloss.Style

	Gutter     lipgloss.Style
	GutterSeen lipgloss.Style
	Marker     lipgloss.Style // truncation marker bytes
	Inert      lipgloss.Style // control characters shown inert
	Match      lipgloss.Style
	CurMatch   lipgloss.Style
	DiffMark   lipgloss.Style
	DiffLine   lipgloss.Style

	Badge     lipgloss.Style
	BadgeWarn lipgloss.Style
	BadgeErr  lipgloss.Style
	Label     lipgloss.Style
	Value     lipgloss.Style

	StatusBar  lipgloss.Style
	StatusInfo lipgloss.Style
	StatusWarn lipgloss.Style
	StatusErrM lipgloss.Style
	Prompt     lipgloss.Style
	Spinner    lipgloss.Style

	JSONKey    lipgloss.Style
	JSONString lipgloss.Style
	JSONNumber lipgloss.Style
	JSONConst  lipgloss.Style
	Punct      lipgloss.Style
	Keyword    lipgloss.Style
	Comment    lipgloss.Style

	Help help.Styles
}

// NewStyles builds the styles for a dark or light terminal background.
func NewStyles(isDark bool) *Styles {
	p := newPalette(isDark)
	s := lipgloss.NewStyle
	st := &Styles{IsDark: isDark}
	st.App = s().Foreground(p.fg)
	st.Header = s().Bold(true).Foreground(p.primary)
	st.HeaderID = s().Foreground(p.fgMuted)
	st.Demo = s().Bold(true).Reverse(true).Foreground(p.warn)
	st.Muted = s().Foreground(p.fgMuted)
	st.Subtle = s().Foreground(p.fgSubtle)
	st.Bold = s().Bold(true)

	st.Border = s().Foreground(p.border)
	st.BorderFocus = s().Foreground(p.borderFocus)
	st.BoxTitle = s().Foreground(p.fgMuted)
	st.BoxTitleFoc = s().Bold(true).Foreground(p.primary)
	st.JumpHint = s().Foreground(p.secondary)

	st.Tab = s().Foreground(p.fgMuted)
	st.TabActive = s().Bold(true).Underline(true).Foreground(p.primary)

	st.Selected = s().Reverse(true).Bold(true)
	st.SelectedBlur = s().Bold(true).Underline(true)
	st.ColumnHeader = s().Bold(true).Foreground(p.fgMuted)
	st.StatusOK = s().Foreground(p.success)
	st.StatusErr = s().Bold(true).Foreground(p.err)
	st.StatusRunning = s().Foreground(p.warn)
	st.ErrBadge = s().Bold(true).Foreground(p.err)
	st.TruncBadge = s().Bold(true).Foreground(p.marker)
	st.SubBadge = s().Foreground(p.secondary)
	st.Duration = s().Foreground(p.fgSubtle)

	st.Gutter = s().Foreground(p.fgSubtle)
	st.GutterSeen = s().Bold(true).Foreground(p.success)
	st.Marker = s().Bold(true).Underline(true).Foreground(p.marker).Background(p.markerBg)
	st.Inert = s().Italic(true).Foreground(p.inert)
	st.Match = s().Reverse(true).Foreground(p.matchBg)
	st.CurMatch = s().Reverse(true).Bold(true).Foreground(p.curMatchBg)
	st.DiffMark = s().Bold(true).Foreground(p.err)
	st.DiffLine = s().Background(p.diffBg)

	st.Badge = s().Bold(true).Foreground(p.secondary)
	st.BadgeWarn = s().Bold(true).Foreground(p.marker)
	st.BadgeErr = s().Bold(true).Foreground(p.err)
	st.Label = s().Foreground(p.fgMuted)
	st.Value = s().Foreground(p.fg)

	st.StatusBar = s().Foreground(p.fgMuted)
	st.StatusInfo = s().Foreground(p.success)
	st.StatusWarn = s().Bold(true).Foreground(p.warn)
	st.StatusErrM = s().Bold(true).Foreground(p.err)
	st.Prompt = s().Bold(true).Foreground(p.primary)
	st.Spinner = s().Foreground(p.primary)

	st.JSONKey = s().Foreground(p.jsonKey)
	st.JSONString = s().Foreground(p.jsonString)
	st.JSONNumber = s().Foreground(p.jsonNumber)
	st.JSONConst = s().Foreground(p.jsonConst)
	st.Punct = s().Foreground(p.fgMuted)
	st.Keyword = s().Foreground(p.keyword)
	st.Comment = s().Italic(true).Foreground(p.comment)

	st.Help = help.DefaultStyles(isDark)
	return st
}
