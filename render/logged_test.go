package render

import (
	"encoding/json"
	"reflect"
	"testing"

	"correx/model"
)

// FuzzLoggedBlocks checks loggedBlocks against encoding/json: the same
// blocks, or an error both times.
func FuzzLoggedBlocks(f *testing.F) {
	for _, s := range []string{
		`[{"type":"tool_result","tool_use_id":"toolu_1","content":"line\nnext"}]`,
		`[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a"}],"is_error":true},{"type":"text","text":"hi"}]`,
		`[{"type":"tool_result","tool_use_id":null,"content":null,"is_error":null,"cache_control":{"type":"ephemeral"}}]`,
		`[{"type":"tool_result","Tool_Use_ID":"x","content":"a"}]`,
		`[{"type":"tool_result","tool_use_id":"a","tool_use_id":"b","content":"a"}]`,
		`[{"type":"tool_result","tool_use_id":1,"content":"a"}]`,
		`[{"type":"tool_result","text":"also","content":"a"}]`,
		`[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]`,
		`[1]`, `null`, `[{"type":"tool_result",]`, `{"type":"text"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := loggedBlocks(raw)
		var want []model.AnthropicBlock
		werr := json.Unmarshal(raw, &want)
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("loggedBlocks(%s) = %+v, %v; encoding/json: %+v, %v", raw, got, err, want, werr)
		}
	})
}

// FuzzAnthropicMessage: on valid JSON, AnthropicMessage is the message
// decoded by encoding/json, then its content.
func FuzzAnthropicMessage(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"line\nnext"}]}`,
		`{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}`,
		`{"role":null,"content":null}`, `{"Role":"user","content":[]}`, `{"role":1,"content":[]}`,
		`{"role":"user","content":"text"}`, `{"role":"user","role":"x","content":[]}`, `[]`, `null`,
		`{"content":[{"type":"tool_result","tool_use_id":"a\u00e9","content":[{"type":"text","text":"a"}],"is_error":true}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		role, content, blocks, err := AnthropicMessage(raw)
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		var want []model.AnthropicBlock
		werr := json.Unmarshal(raw, &m)
		if werr == nil {
			werr = json.Unmarshal(m.Content, &want)
		}
		if (err == nil) != (werr == nil) || err == nil && (role != m.Role || string(content) != string(m.Content) || !reflect.DeepEqual(blocks, want)) {
			t.Fatalf("AnthropicMessage(%s) = %q %s %+v, %v; encoding/json: %q %s %+v, %v", raw, role, content, blocks, err, m.Role, m.Content, want, werr)
		}
	})
}
