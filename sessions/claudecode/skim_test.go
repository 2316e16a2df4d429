package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"correx/internal/fixtures"
	"correx/internal/jsonskim"
)

// skimAgrees checks that where a skim answers for transcript line b (and
// for its message, as a logged message) it answers as encoding/json does.
func skimAgrees(t testing.TB, b []byte, where string) (answered int) {
	if json.Valid(b) {
		var got, want ccLine
		gerr, werr := decodeLine(b, &got), json.Unmarshal(b, &want)
		require.Equal(t, werr, gerr, where)
		require.Equal(t, want, got, where)
		var gm, wm ccMessage
		if decodeSkimmed(b, &gm, []string{"content"}, []*json.RawMessage{&gm.Content}, messageScalars(&gm)) {
			answered++
			require.NoError(t, json.Unmarshal(b, &wm), where)
			require.Equal(t, wm, gm, where)
		}
	}
	answered += agentIDAgrees(t, b, where)
	if msg, content, tur, ok := skimLine(b); ok {
		answered += agentIDAgrees(t, tur, where+": toolUseResult")
		answered++
		var v struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			ToolUseResult json.RawMessage `json:"toolUseResult"`
		}
		var w struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(b, &v) == nil && json.Unmarshal(b, &w) == nil {
			require.Equal(t, string(w.Message), string(msg), where)
			require.Equal(t, string(v.Message.Content), string(content), where)
			require.Equal(t, string(v.ToolUseResult), string(tur), where)
		}
		if blocks, ok := skimBlocks(content); ok && json.Valid(content) {
			var want []json.RawMessage
			require.NoError(t, json.Unmarshal(content, &want), where)
			require.Equal(t, len(want), len(blocks), where)
			for i := range want {
				require.Equal(t, string(want[i]), string(blocks[i]), where)
			}
		}
	}
	var msg json.RawMessage
	if json.Unmarshal(b, &struct {
		Message *json.RawMessage `json:"message"`
	}{&msg}) != nil || !json.Valid(msg) {
		msg = b // the fuzzer's text as a message
	}
	if !json.Valid(msg) {
		return answered
	}
	for _, last := range []bool{false, true} {
		if text, reform, ok := skimPlainText(msg, last); ok {
			answered++
			wt, wr := plainTextJSON(msg, last)
			require.Equal(t, wr, reform, where)
			if wr {
				require.Equal(t, wt, text, where)
			}
		}
	}
	if blocks, ok := skimToolBlocks(msg); ok {
		answered++
		want := loggedToolBlocksJSON(msg)
		require.Equal(t, len(want), len(blocks), where)
		for i := range want {
			require.Equal(t, want[i], blocks[i], where)
		}
	}
	return answered
}

// agentIDAgrees checks that agentIDOf gives b's agentId as encoding/json
// does when b is valid JSON; 1 when the skim found a string there.
func agentIDAgrees(t testing.TB, b []byte, where string) (answered int) {
	if !json.Valid(b) {
		return 0
	}
	var d struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(b, &d) != nil {
		d.AgentID = ""
	}
	require.Equal(t, d.AgentID, agentIDOf(b), where)
	if v, ok := jsonskim.Named(b, "agentId"); ok && v[0] != nil && v[0][0] == '"' {
		answered++
		agentIDsSkimmed++
	}
	return answered
}

// agentIDsSkimmed counts the agentIds agentIDAgrees saw skimmed.
var agentIDsSkimmed int

// TestSkimIsEncodingJSONs: on every line of every Claude Code fixture the
// skims answer (most lines) and answer as encoding/json does.
func TestSkimIsEncodingJSONs(t *testing.T) {
	answered := 0
	for _, f := range fixtures.All(t) {
		if f.Agent != "claude-code" {
			continue
		}
		err := filepath.WalkDir(f.Dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for n := 1; sc.Scan(); n++ {
				answered += skimAgrees(t, sc.Bytes(), fmt.Sprintf("%s:%d", path, n))
			}
			return sc.Err()
		})
		require.NoError(t, err)
	}
	require.Greater(t, answered, 1000)
	require.Greater(t, agentIDsSkimmed, 10, "agentIds skimmed")
}

// FuzzSkim: whatever the text, a skim that answers answers as
// encoding/json does.
func FuzzSkim(f *testing.F) {
	for _, s := range []string{
		`{"message":{"role":"user","content":"hi"}}`,
		`{"message":{"role":"user","content":[{"type":"text","text":"hi"}]},"toolUseResult":{"a":1}}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x","is_error":true}]}`,
		`{"role":"user","Content":[{"TYPE":"text","text":""}]}`,
		`{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}`,
		`{"role":null,"content":null}`,
		`{"type":"user","uuid":"a","parentUuid":null,"isMeta":true,"isSidechain":false,"message":{"role":"user","content":"x"}}`,
		`{"type":5,"uuid":"a"}`, `{"uuid":"a","UUID":"b"}`, `{"uuid":"a","uuid":"b","parentUuid":"p","parentUuid":null}`,
		`{"isMeta":"yes"}`, `{"timestamp":"\u00e9\ud800"}`, `{"id":"m","role":"assistant","stop_reason":null,"model":1}`,
		`{"agentId":"a1","status":"completed"}`, `{"agentId":null}`, `{"agentId":1,"x":2}`, `{"agentID":"a","agentId":"b"}`, `"Error: x"`,
		`{"agentId":"\u00e9\ud800"}`, `{"agentId":"a","agentId":"b"}`, `{"agentId":{"x":1}}`, `[{"agentId":"a"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { skimAgrees(t, b, string(b)) })
}

// TestJSONFieldsAreEncodingJSONs: the structs decodeSkimmed fills have
// every field tagged with its name and none embedded, so that
// jsonskim.FieldNames names every member encoding/json may fill.
func TestJSONFieldsAreEncodingJSONs(t *testing.T) {
	for _, v := range []any{ccLine{}, ccMessage{}} {
		typ := reflect.TypeOf(v)
		f, ok := jsonskim.FieldNames(typ)
		require.True(t, ok, typ.Name())
		require.Len(t, f, typ.NumField())
		for i, name := range f {
			require.False(t, typ.Field(i).Anonymous, typ.Field(i).Name)
			require.NotContains(t, []string{"", "-"}, name, typ.Field(i).Name)
		}
	}
	f, _ := jsonskim.FieldNames(reflect.TypeOf(ccLine{}))
	require.Contains(t, f, "replacements")
}
