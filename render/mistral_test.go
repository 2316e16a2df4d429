package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// opencode's ProviderTransform for Mistral models (transform.ts,
// normalizeMessages): ids cut to 9 alphanumerics and padded with "0", and
// "Done." between tool results and a user message.
func TestMistralRules(t *testing.T) {
	assert.Equal(t, "callabc12", mistralID("call_abc-123456"))
	assert.Equal(t, "ab0000000", mistralID("a_b"))
	msgs := []msg{
		{role: "assistant", parts: []part{{kind: pToolCall, callID: "call_1"}}},
		{role: "tool", parts: []part{{kind: pToolResult, callID: "call_1"}}},
		{role: "user", parts: []part{{kind: pText, text: "next"}}},
	}
	out := normalize(msgs, OpenAIChat, Model{ProviderID: "mistral", ModelID: "mistral-large"})
	assert.Len(t, out, 4)
	assert.Equal(t, "call10000", out[0].parts[0].callID)
	assert.Equal(t, "call10000", out[1].parts[0].callID)
	assert.Equal(t, "assistant", out[2].role)
	assert.Equal(t, "Done.", out[2].parts[0].text)
}
