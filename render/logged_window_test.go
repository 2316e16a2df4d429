package render

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"correx/internal/parallel"
)

// TestPromptFromAnthropicWindows: a logged request of more messages than
// a decoding window reads as a sequence of them does, text contents and
// tool names that cross windows included; a bad message is named by its
// index in the request, and a spent request keeps none of its messages.
func TestPromptFromAnthropicWindows(t *testing.T) {
	defer parallel.ForceRun(1)()
	var messages []json.RawMessage
	turns := decodeWindow + 7 // three messages each: windows end inside turns
	for i := range turns {
		messages = append(messages,
			json.RawMessage(fmt.Sprintf(`{"role":"user","content":"ask %d"}`, i)),
			json.RawMessage(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"t%d"},{"type":"tool_use","id":"c%d","name":"tool%d","input":{}}]}`, i, i, i)),
			json.RawMessage(fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"c%d","content":"out %d"}]}`, i, i)))
	}
	out, err := promptFromAnthropic(messages, true)
	require.NoError(t, err)
	require.Len(t, out, 3*turns)
	for i := range turns {
		u, a, r := out[3*i], out[3*i+1], out[3*i+2]
		require.Equal(t, "user", u.role)
		require.Equal(t, fmt.Sprintf("ask %d", i), u.parts[0].text)
		require.Equal(t, "assistant", a.role)
		require.Len(t, a.parts, 2)
		assert.Equal(t, fmt.Sprintf("t%d", i), a.parts[0].text)
		require.Equal(t, "tool", r.role)
		assert.Equal(t, fmt.Sprintf("tool%d", i), r.parts[0].tool, "the name its call gave, a window before or not")
	}
	for i, m := range messages {
		require.Nil(t, m, "message %d kept", i)
	}

	bad := make([]json.RawMessage, decodeWindow+2)
	for i := range bad {
		bad[i] = json.RawMessage(`{"role":"user","content":"x"}`)
	}
	bad[decodeWindow+1] = json.RawMessage(`{"role":"user","content":[{"type":5}]}`)
	_, err = promptFromAnthropic(bad, false)
	assert.ErrorContains(t, err, fmt.Sprintf("logged message %d: content: ", decodeWindow+1))
}
