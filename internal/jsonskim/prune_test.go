package jsonskim

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The shapes FuzzPrune decodes into: a reader's event (nested structs
// through pointers and slices, raw and any values, a map) and the structs
// Prune keeps whole (one embedding another, one with a time, one with a
// name encoding/json may not take as written).
type (
	pruneEvent struct {
		Type string          `json:"type"`
		ID   string          `json:"id,omitempty"`
		Data *pruneData      `json:"data"`
		Raw  json.RawMessage `json:"raw"`
		Any  any             `json:"any"`
		Map  map[string]int  `json:"map"`
		List []pruneItem     `json:"list"`
		Ptrs []*pruneItem    `json:"ptrs"`
		Arr  [2]pruneItem    `json:"arr"`
		Skip string          `json:"-"`
		Bare int
		Emb  pruneEmbeds `json:"emb"`
		When pruneTime   `json:"when"`
		Odd  pruneOdd    `json:"odd"`
	}
	pruneData struct {
		ToolCallID string `json:"toolCallId"`
		Success    bool   `json:"success"`
		Result     *struct {
			Content string `json:"content"`
		} `json:"result"`
		N float64 `json:"n,string"`
	}
	pruneItem struct {
		A string `json:"a"`
		B []int  `json:"b"`
	}
	pruneEmbeds struct {
		pruneItem
		C string `json:"c"`
	}
	pruneTime struct {
		T time.Time `json:"t"`
		U string    `json:"u"`
	}
	pruneOdd struct {
		X string `json:"x y"`
	}
)

// pruneAgrees checks that where Prune answers for b, encoding/json
// decodes what it gives into a pruneEvent as it decodes b; 1 when it
// answered and left something out.
func pruneAgrees(t *testing.T, b []byte) int {
	if !json.Valid(b) {
		return 0
	}
	pruned, ok := Prune(nil, b, reflect.TypeFor[*pruneEvent]())
	if !ok {
		return 0
	}
	if !json.Valid(pruned) {
		t.Fatalf("%q pruned to %q, not JSON", b, pruned)
	}
	var want, got pruneEvent
	werr, gerr := json.Unmarshal(b, &want), json.Unmarshal(pruned, &got)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || !reflect.DeepEqual(want, got) {
		t.Fatalf("%q pruned to %q: %+v (%v), want %+v (%v)", b, pruned, got, gerr, want, werr)
	}
	if len(pruned) < len(b) {
		return 1
	}
	return 0
}

var pruneSeeds = []string{
	`{"type":"tool.execution_complete","data":{"toolCallId":"c1","model":"m","success":true,"result":{"content":"x","detailedContent":"yy"},"toolTelemetry":{"a":1}},"id":"i","timestamp":"t"}`,
	`{"type":"x","Type":"y","TYPE":"z","data":{"TOOLCALLID":"a","toolCallId":"b","toolcallid":"c"}}`,
	`{"\u0074ype":"esc","data":{"result":{"cont\u0065nt":"c","content":"d"}}}`,
	`{"data":null,"raw":{"a":[1,2,{"b":3}]},"any":{"k":[{"x":1}]},"map":{"a":1,"b":2},"unknown":{"deep":[1,2,3]}}`,
	`{"list":[{"a":"1","z":2,"b":[1]},null,{"A":"2"}],"ptrs":[null,{"a":"p","q":[]}],"arr":[{"a":"x","y":1},{"b":[2]},{"a":"third"}]}`,
	`{"-":"dash","Skip":"s","Bare":3,"bare":4,"emb":{"a":"e","c":"c","x":1},"when":{"t":"2026-01-01T00:00:00Z","u":"u","v":1},"odd":{"x y":"xy","z":1}}`,
	`{"data":{"n":"1.5","success":"yes"},"type":1,"list":{"a":1}}`,
	`{"data":{"result":"not an object","success":true}}`, `[1,2]`, `"s"`, `null`, `{}`,
	`{"data":{"result":{"content":"a"},"result":null}}`, `{"type":"a","type":"b","extra":"\u00e9\ud800"}`,
	`{"ſtatus":1,"K":1,"data":{"toolCallıd":"k","toolCallId":"ok"}}`,
}

// TestPruneAgrees: on each seed, Prune answers and encoding/json reads
// what it gives as it reads the whole, and it leaves out most members.
func TestPruneAgrees(t *testing.T) {
	pruned := 0
	for _, s := range pruneSeeds {
		pruned += pruneAgrees(t, []byte(s))
	}
	if pruned < 6 {
		t.Fatalf("only %d seeds pruned", pruned)
	}
}

// FuzzPrune: whatever the JSON, what Prune gives decodes as the whole.
func FuzzPrune(f *testing.F) {
	for _, s := range pruneSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { pruneAgrees(t, b) })
}

// TestPruneCut: the value at the cut span is written as "", wherever
// Prune meets it; a cut it does not meet changes nothing.
func TestPruneCut(t *testing.T) {
	b := []byte(`{"type":"x","data":{"result":{"content":"a long output","detailedContent":"d"},"toolCallId":"c"}}`)
	v, ok := Named(b, "data")
	require.True(t, ok)
	v, ok = Named(v[0], "result")
	require.True(t, ok)
	v, ok = Named(v[0], "content")
	require.True(t, ok)
	got, ok := PruneCut(nil, b, reflect.TypeFor[pruneEvent](), v[0])
	require.True(t, ok)
	require.Equal(t, `{"type":"x","data":{"result":{"content":""},"toolCallId":"c"}}`, string(got))
	other := []byte(`"a long output"`)
	got, ok = PruneCut(nil, b, reflect.TypeFor[pruneEvent](), other)
	require.True(t, ok)
	require.Equal(t, `{"type":"x","data":{"result":{"content":"a long output"},"toolCallId":"c"}}`, string(got))
}
