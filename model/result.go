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
	Why        string
	Truncation *Truncation
}

// TruncationKind names which truncation rule cut an output.
type TruncationKind string

const (
	TruncBashTail    TruncationKind = "bash-tail"    // v1 bash keeps the tail
	TruncGenericHead TruncationKind = "generic-head" // v1 Truncate.output keeps the head
	TruncReadLines   TruncationKind = "read-lines"   // read stopped at its line limit
	TruncReadBytes   TruncationKind = "read-bytes"   // read stopped at 50 KB
	TruncReadLine    TruncationKind = "read-line"    // a line cut to 2000 chars
	TruncGlobCap     TruncationKind = "glob-cap"     // glob kept the first 100
	TruncGrepCap     TruncationKind = "grep-cap"     // grep kept the first 100
	TruncV2Bound     TruncationKind = "v2-bound"     // ToolOutputStore.bound: head and tail
	// Claude Code
	TruncClaudePersisted TruncationKind = "claude-persisted" // <persisted-output>: 2 KB preview, full output in tool-results/
	TruncClaudeMiddle    TruncationKind = "claude-middle"    // "... [N characters truncated] ..." (failed Bash over 10,000 chars)
	TruncClaudeLines     TruncationKind = "claude-lines"     // "... [N lines truncated] ..." (Bash cap, ≤ 2.1.1)
	TruncClaudeSaved     TruncationKind = "claude-saved"     // "exceeds maximum allowed tokens. Output has been saved to …"
	TruncClaudeRefused   TruncationKind = "claude-refused"   // Read refused: "File content (N tokens) exceeds maximum allowed tokens"
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
)

// Span is a byte range [Start, End) in a text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Truncation describes how an output was cut before the model saw it.
type Truncation struct {
	Kind TruncationKind `json:"kind"`
	// Markers are the byte spans of the truncation markers in the visible text.
	Markers []Span `json:"markers"`
	// SeenLines and SeenBytes measure the visible text.
	SeenLines int `json:"seen_lines"`
	SeenBytes int `json:"seen_bytes"`
	// FullLines and FullBytes measure the full output (from the spill file),
	// or are -1 when unknown.
	FullLines int `json:"full_lines"`
	FullBytes int `json:"full_bytes"`
	// SpillPath is the path recorded by the agent; SpillFound the path where
	// the file exists now (the recorded one, or tool-output/ beside the
	// store), empty when it is gone.
	SpillPath  string `json:"spill_path,omitempty"`
	SpillFound string `json:"spill_found,omitempty"`
}

// SpillGone reports whether a spill path was recorded but no file is left.
func (t *Truncation) SpillGone() bool { return t.SpillPath != "" && t.SpillFound == "" }
