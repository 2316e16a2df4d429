package copilot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/jsonskim"
)

// TestUnmarshalCutIsUnmarshal: every recorded line, and each with its
// result content changed into what the cut must not take (escapes, a
// folded or repeated name, another type), decodes by unmarshalCut (every
// line cut) as by json.Unmarshal; the cut is taken on the completions.
func TestUnmarshalCutIsUnmarshal(t *testing.T) {
	defer func(n int) { cutBytes = n }(cutBytes)
	cutBytes = 0
	files, _ := filepath.Glob("../../testdata/copilot/*/data/session-state/*/events.jsonl")
	require.NotEmpty(t, files)
	cut, streamed := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			variants := [][]byte{ln, ln[:len(ln)/2]}
			if i := bytes.Index(ln, []byte(`"content":"`)); i >= 0 {
				for _, edit := range [][2]string{{`"content":"`, `"content":"\u00e9\n\"`}, {`"content":"`, `"Content":"`},
					{`"content":"`, `"content":"x","content":"`}, {`"content":"`, `"content":1,"x":"`}, {`"content":"`, `"content":"\x01`}} {
					variants = append(variants, bytes.Replace(ln, []byte(edit[0]), []byte(edit[1]), 1))
				}
			}
			for _, v := range variants {
				var want, got typedEvent[completeData]
				werr := json.Unmarshal(v, &want)
				gerr := unmarshalCut(v, &got, func() *string { return &got.Data.Result.Content })
				require.Equal(t, werr == nil, gerr == nil, "%s: %.80q", f, v)
				if werr == nil {
					require.Equal(t, want, got, "%s: %.80q", f, v)
				}
				if _, _, ok := resultContent(v); ok {
					cut++
				}
				// the string OutputString streams: the content encoding/json
				// decodes, in the completion of its own call only
				if str, ok := contentString(v, []byte(want.Data.ToolCallID)); ok {
					require.NoError(t, werr)
					text, _ := jsonskim.Text(str)
					require.Equal(t, want.Data.Result.Content, text, "%s: %.80q", f, v)
					_, other := contentString(v, []byte(want.Data.ToolCallID+"x"))
					require.False(t, other, "another call's id")
					streamed++
				}
			}
		}
	}
	require.Greater(t, cut, 10, "lines cut")
	require.Greater(t, streamed, 10, "contents found to stream")
}

// fixtureLines are the lines of every recorded Copilot log.
func fixtureLines(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../../testdata/copilot/*/data/session-state/*/events.jsonl")
	require.NotEmpty(t, files)
	var lines [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines = append(lines, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	}
	return lines
}

// prunedAgrees checks that unmarshalPruned decodes line into each event
// shape the reader reads as json.Unmarshal does; 1 when the line was
// decoded pruned (valid, and pruned into a completion's shape).
func prunedAgrees(t *testing.T, line []byte) (pruned int) {
	check := func(want, got any) {
		werr, gerr := json.Unmarshal(line, want), unmarshalPruned(line, got)
		require.Equal(t, werr == nil, gerr == nil, "%.200q", line)
		if werr == nil {
			require.Equal(t, want, got, "%.200q", line)
		}
	}
	check(&typedEvent[startData]{}, &typedEvent[startData]{})
	check(&typedEvent[userData]{}, &typedEvent[userData]{})
	check(&typedEvent[assistantData]{}, &typedEvent[assistantData]{})
	check(&typedEvent[completeData]{}, &typedEvent[completeData]{})
	check(&typedEvent[subagentData]{}, &typedEvent[subagentData]{})
	check(&typedEvent[usageData]{}, &typedEvent[usageData]{})
	check(&typedEvent[struct{}]{}, &typedEvent[struct{}]{})
	var te typedEvent[completeData]
	if json.Valid(line) && decodePruned(line, nil, &te) == nil {
		pruned++
	}
	return pruned
}

// TestUnmarshalPrunedIsUnmarshal: every recorded line decodes into each
// event shape through the pruned decoding as by json.Unmarshal, and the
// pruned decoding is taken on them.
func TestUnmarshalPrunedIsUnmarshal(t *testing.T) {
	pruned := 0
	lines := fixtureLines(t)
	for _, ln := range lines {
		pruned += prunedAgrees(t, ln)
	}
	require.Greater(t, pruned, len(lines)*9/10, "lines decoded pruned")
}

// FuzzUnmarshalPruned: whatever the line, the pruned decoding of each
// event shape is json.Unmarshal's.
func FuzzUnmarshalPruned(f *testing.F) {
	for _, ln := range fixtureLines(f) {
		f.Add(ln)
	}
	f.Fuzz(func(t *testing.T, line []byte) { prunedAgrees(t, line) })
}

// TestSkimCompleteIsUnmarshal: every recorded completion, and each with
// its data changed into what the skim must not take (a folded, repeated
// or escaped name, another kind of value, nulls), decodes by skimComplete,
// where it says it can, as by json.Unmarshal; it does on the recorded ones.
func TestSkimCompleteIsUnmarshal(t *testing.T) {
	skimmed, completions := 0, 0
	for _, ln := range fixtureLines(t) {
		if !bytes.HasPrefix(ln, []byte(`{"type":"tool.execution_complete"`)) {
			continue
		}
		completions++
		for i, v := range completeVariants(ln) {
			if skimAgrees(t, v) && i == 0 {
				skimmed++
			}
		}
	}
	require.Positive(t, completions)
	require.Equal(t, completions, skimmed, "recorded completions skimmed")
}

// completeVariants are line and its edits that a skim of completions
// must decode as encoding/json does, or leave to it.
func completeVariants(line []byte) [][]byte {
	out := [][]byte{line, line[:len(line)/2]}
	for _, edit := range [][2]string{
		{`"success":true`, `"success":false`}, {`"success":true`, `"success":null`}, {`"success":true`, `"success":1`},
		{`"success":true`, `"Success":true`}, {`"success":true`, `"success":true,"success":false`},
		{`"result":{`, `"result":null,"x":{`}, {`"result":{`, `"result":[{`}, {`"content":"`, `"content":null,"x":"`},
		{`"toolCallId":"`, `"toolCallId":null,"x":"`}, {`"toolCallId":"`, `"tool\u0043allId":"`}, {`"toolCallId":"`, `"toolcallid":"`},
		{`"toolTelemetry":`, `"toolTelemetry":null,"x":`}, {`"data":{`, `"data":null,"x":{`}, {`"data":{`, `"data":1,"x":{`},
		{`"timestamp":"`, `"timestamp":5,"x":"`}, {`"type":"`, `"TYPE":"x","type":"`},
		{`"toolCallId"`, `"error":{"message":"boom","message":null},"toolCallId"`},
		{`"toolCallId"`, `"error":{"message":"boom \u00e9"},"toolCallId"`},
	} {
		if bytes.Contains(line, []byte(edit[0])) {
			out = append(out, bytes.Replace(line, []byte(edit[0]), []byte(edit[1]), 1))
		}
	}
	return out
}

// skimAgrees checks skimComplete against json.Unmarshal on line and says
// whether the skim took it.
func skimAgrees(t *testing.T, line []byte) bool {
	t.Helper()
	got, ok := skimComplete(line)
	if !ok {
		return false
	}
	var want typedEvent[completeData]
	require.NoError(t, json.Unmarshal(line, &want), "skimmed, but encoding/json refuses %.120q", line)
	require.Equal(t, want, got, "%.120q", line)
	return true
}

// FuzzSkimComplete: whatever the line, a completion the skim decodes is
// decoded as json.Unmarshal decodes it.
func FuzzSkimComplete(f *testing.F) {
	for _, ln := range fixtureLines(f) {
		if bytes.HasPrefix(ln, []byte(`{"type":"tool.execution_complete"`)) {
			for _, v := range completeVariants(ln) {
				f.Add(v)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) { skimAgrees(t, line) })
}
