package model

import "encoding/json"

// ResultType is the variant of a ToolResultValue (opencode's
// packages/llm schema).
type ResultType string

const (
	ResultJSON    ResultType = "json"
	ResultText    ResultType = "text"
	ResultError   ResultType = "error"
	ResultContent ResultType = "content"
)

// ToolResultValue is the result envelope a tool call's output becomes:
// text or error carry Text, json carries JSON, content carries Content.
type ToolResultValue struct {
	Type    ResultType      `json:"type"`
	Text    string          `json:"text,omitempty"`
	JSON    json.RawMessage `json:"json,omitempty"`
	Content []ToolContent   `json:"content,omitempty"`
}

// ContentType is the kind of a ToolContent item.
type ContentType string

const (
	ContentText ContentType = "text"
	ContentFile ContentType = "file"
	// ContentToolRef names a tool (in Name) that the Anthropic API expands
	// into the tool's definition for the model: Claude Code's ToolSearch
	// results. Its text is the API's, not recorded.
	ContentToolRef ContentType = "tool_reference"
)

// ToolContent is one item of a content result: text, or a file given by URI
// (usually a data: URL) and media type.
type ToolContent struct {
	Type ContentType `json:"type"`
	Text string      `json:"text,omitempty"`
	URI  string      `json:"uri,omitempty"`
	Mime string      `json:"mime,omitempty"`
	Name string      `json:"name,omitempty"`
}

// ToolCallPart is a tool call as it goes to a provider.
type ToolCallPart struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResultPart is a tool result as it goes to a provider.
type ToolResultPart struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Result ToolResultValue `json:"result"`
}

// Visible is what the model was shown for one tool call.
type Visible struct {
	// Call is the call as replayed to the model (an unknown tool repaired
	// into "invalid" keeps its stored name and input here).
	Call   ToolCallPart
	Result ToolResultValue
	// Text is the model-visible text: the result's text, or its text items
	// joined, or its JSON; Text is what `correx show` prints.
	Text string
	// Why names the rule that produced Text when it is not the stored
	// output (compacted, interrupted, ...); empty for verbatim output.
	Why string
	// SentUnknown says why Text may not be what the model got in the
	// call's own run (model.ToolCall.SentUnknown); empty when it is.
	SentUnknown string
	Truncation  *Truncation
}

// TruncationKind names which truncation rule cut an output.
type TruncationKind string

const (
	TruncBashTail    TruncationKind = "bash-tail"    // v1 bash keeps the tail
	TruncGenericHead TruncationKind = "generic-head" // v1 Truncate.output keeps the head
	TruncReadLines   TruncationKind = "read-lines"   // read stopped at its line limit
	TruncReadBytes   TruncationKind = "read-bytes"   // read stopped at 50 KB
	TruncReadLine    TruncationKind = "read-line"    // a line cut to 2000 chars
	TruncReadEntries TruncationKind = "read-entries" // a directory read stopped at its entry limit
	TruncGlobCap     TruncationKind = "glob-cap"     // glob kept the first 100
	TruncGrepCap     TruncationKind = "grep-cap"     // grep kept the first 100
	TruncV2Bound     TruncationKind = "v2-bound"     // ToolOutputStore.bound: head and tail
	TruncV2ReadPage  TruncationKind = "v2-read-page" // v2 read returned one page: {"type":"text-page",…,"truncated":true,"next":N}
	// Claude Code
	TruncClaudePersisted TruncationKind = "claude-persisted" // <persisted-output>: 2 KB preview, full output in tool-results/
	TruncClaudeMiddle    TruncationKind = "claude-middle"    // "... [N characters truncated] ..." (failed Bash over 10,000 chars)
	TruncClaudeLines     TruncationKind = "claude-lines"     // "... [N lines truncated] ..." (Bash cap, ≤ 2.1.1)
	TruncClaudeSaved     TruncationKind = "claude-saved"     // "exceeds maximum allowed tokens. Output has been saved to …"
	TruncClaudeRefused   TruncationKind = "claude-refused"   // Read refused: "File content (N tokens) exceeds maximum allowed tokens"
	TruncClaudePartial   TruncationKind = "claude-partial"   // Read over its token cap kept the first lines; the notice is a message of its own
	TruncClaudeGlob      TruncationKind = "claude-glob"      // Glob listed the first 100 files: "(Showing N of M matching files; …)"
	// Codex CLI
	TruncCodexTokens TruncationKind = "codex-tokens" // middle cut "…N tokens truncated…"
	TruncCodexChars  TruncationKind = "codex-chars"  // middle cut "…N chars truncated…"
	TruncCodexBuffer TruncationKind = "codex-buffer" // exec head+tail buffer "... N bytes omitted ..."
	TruncCodexLines  TruncationKind = "codex-lines"  // legacy "[... omitted N of M lines ...]"
	TruncCodexBytes  TruncationKind = "codex-bytes"  // legacy "[... output truncated to fit N bytes ...]"
	TruncCodexItems  TruncationKind = "codex-items"  // "[omitted N text items ...]"
	// Gemini CLI
	TruncGeminiSpill     TruncationKind = "gemini-spill"     // "Output too large. Showing first H and last T characters…"
	TruncGeminiDistilled TruncationKind = "gemini-distilled" // "[Message Normalized: Tool output exceeded size limit]"
	TruncGeminiRead      TruncationKind = "gemini-read"      // read_file's "IMPORTANT: The file content has been truncated." header, lines cut "... [truncated]"
)

// TruncationKinds lists every kind with a line on how it cuts, for the
// help's legend (TestLegendNamesEveryKind keeps it whole).
var TruncationKinds = []struct {
	Kind TruncationKind
	What string
}{
	{TruncBashTail, "opencode bash kept the tail; full output in tool-output/"},
	{TruncGenericHead, "opencode kept the head of a long output; full output in tool-output/"},
	{TruncReadLines, "read stopped at its line limit"},
	{TruncReadBytes, "read stopped at 50 KB"},
	{TruncReadLine, "read cut a line to 2000 characters"},
	{TruncReadEntries, "a directory read stopped at its entry limit"},
	{TruncGlobCap, "glob kept the first 100 files"},
	{TruncGrepCap, "grep kept the first 100 matches"},
	{TruncV2Bound, "opencode v2 kept a head and a tail; full output saved"},
	{TruncV2ReadPage, "opencode v2 read returned one page of the file"},
	{TruncClaudePartial, "Claude Code's Read kept the first lines under its token cap"},
}

// Span is a byte range [Start, End) in a text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Truncation describes how an output was cut before the model saw it.
//
// The model-visible text splits exactly into Markers (the agent's notes
// that it cut), Seen (the pieces of the output the model saw) and Added
// (text the agent wrapped around or appended to the output: read's
// <path>/<content> wrapper and footers, Codex's exec header, appended
// system reminders): the three sets of spans never overlap and together
// cover the whole text.
type Truncation struct {
	Kind TruncationKind `json:"kind"`
	// AgentFlagged is what the agent's own record says: opencode v1's
	// metadata.truncated, v2's outputPaths, Claude Code's
	// persistedOutputPath and file.truncatedByTokenCap. nil (null) when the
	// agent keeps no such record for this call (Codex, Gemini CLI, a Claude
	// Code cut it does not log).
	AgentFlagged *bool `json:"agent_flagged"`
	// Markers are the byte spans of the truncation markers in the visible
	// text. A truncation the agent announced outside the result has none:
	// Notice says so instead.
	Markers []Span `json:"markers"`
	// Notice is the agent's note that it cut when the note is not part of
	// the model-visible text (Claude Code's read_truncation_notice, sent
	// as a message of its own after the result's); nil otherwise.
	Notice *Notice      `json:"notice,omitempty"`
	Seen   []SeenRange  `json:"seen_ranges"`
	Added  []AddedPiece `json:"added"`
	// SeenLines is how many lines of the full output the model saw, whole
	// or in part (a line cut in two counts once when both pieces are
	// placed); SeenBytes how many bytes of it (the seen ranges' text, line
	// number prefixes left out).
	SeenLines int `json:"seen_lines"`
	SeenBytes int `json:"seen_bytes"`
	// FullLines and FullBytes measure the full output (the spill file, or
	// what the agent's footer says); nil (null) when unknown, with the
	// reason in FullUnknown.
	FullLines   *int   `json:"full_lines"`
	FullBytes   *int   `json:"full_bytes"`
	FullUnknown string `json:"full_unknown,omitempty"`
	// SpillPath is the path recorded by the agent; SpillFound the path where
	// the file exists now (the recorded one, or tool-output/ beside the
	// store), empty when it is gone.
	SpillPath  string `json:"spill_path,omitempty"`
	SpillFound string `json:"spill_found,omitempty"`
	// SpillGoneWhy says why a gone spill file is gone, when the agent's
	// rules know (Copilot: "deleted when Copilot exited"); empty otherwise.
	SpillGoneWhy string `json:"spill_gone_why,omitempty"`
}

// SeenRange is one piece of the full output the model saw.
type SeenRange struct {
	// Text is where the piece is in the model-visible text.
	Text Span `json:"text"`
	// Numbered says each line is shown as "N: line" (opencode's read): the
	// text is the output's lines with their numbers, not its bytes.
	Numbered bool `json:"numbered,omitempty"`
	// JSONString says the piece is the output's text inside a JSON string
	// (v2's read page): escaped, not its bytes.
	JSONString bool `json:"json_string,omitempty"`
	// Lines is the 1-based, inclusive line range of the piece in the full
	// output, Bytes its byte range there; nil (null) when unknown.
	Lines *LineRange `json:"lines"`
	Bytes *Span      `json:"bytes"`
	// Placed says the piece's bytes were found at Bytes in the spill file.
	Placed bool `json:"placed"`
	// PartialFirst and PartialLast say the piece starts or ends inside a
	// line of the full output.
	PartialFirst bool `json:"partial_first"`
	PartialLast  bool `json:"partial_last"`
}

// Notice is what an agent told the model about a tool call outside its
// result, as the agent recorded it.
type Notice struct {
	// Text is the note; empty when the agent recorded none.
	Text string `json:"text"`
	// Where is where the model saw it, or why correx cannot say.
	Where string `json:"where"`
}

// LineRange is a 1-based, inclusive range of lines.
type LineRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// AddedPiece is model-visible text that is neither the output nor a
// truncation marker, with what it is.
type AddedPiece struct {
	Span
	What string `json:"what"`
}

// Full returns the full output's lines and bytes, -1 for unknown.
func (t *Truncation) Full() (lines, bytes int) {
	lines, bytes = -1, -1
	if t.FullLines != nil {
		lines = *t.FullLines
	}
	if t.FullBytes != nil {
		bytes = *t.FullBytes
	}
	return lines, bytes
}

// SpillGone reports whether a spill path was recorded but no file is left.
func (t *Truncation) SpillGone() bool { return t.SpillPath != "" && t.SpillFound == "" }

// SpillGoneReason is why a gone spill file is gone: SpillGoneWhy, else
// opencode's rule (it deletes tool-output/ files after 7 days).
func (t *Truncation) SpillGoneReason() string {
	if t.SpillGoneWhy != "" {
		return t.SpillGoneWhy
	}
	return "opencode deletes them after 7 days"
}
