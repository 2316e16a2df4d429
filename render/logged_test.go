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
