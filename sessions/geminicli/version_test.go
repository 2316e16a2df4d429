package geminicli

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"correx/internal/fixtures"
	"correx/model"
	"correx/sessions"
)

// storedVersions is every Message.Stored of every session of every Gemini
// CLI fixture, read with every record and string elided that can be.
func storedVersions(tb testing.TB) [][]byte {
	old, leave := elideBytes, sessions.LeaveBytes
	elideBytes, sessions.LeaveBytes = 64, 2
	defer func() { elideBytes, sessions.LeaveBytes = old, leave }()
	var out [][]byte
	for _, f := range fixtures.All(tb) {
		if f.Agent != string(model.AgentGeminiCLI) {
			continue
		}
		st, ok, err := Open(f.Source, true)
		if err != nil || !ok {
			tb.Fatalf("open %s: %v %v", f.Source, ok, err)
		}
		infos, err := st.List(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		for _, in := range infos {
			p, err := st.(*sessions.LineStore).LoadOutline(context.Background(), in.ID, 0, 0)
			if err != nil {
				tb.Fatal(err)
			}
			for _, m := range p.Session.Messages {
				for _, raw := range m.Stored {
					out = append(out, raw)
				}
			}
		}
		st.Close()
	}
	return out
}

// FuzzDecodeVersion: a stored version decodes, skimmed or not, as
// encoding/json decodes it (seeds: every one of the fixtures).
func FuzzDecodeVersion(f *testing.F) {
	for _, raw := range storedVersions(f) {
		f.Add(raw)
	}
	f.Add([]byte(`{"run":1,"Run":2}`))
	f.Add([]byte(`{"run":1.0,"line":{"N":1,"Off":2,"Len":3,"n":4}}`))
	f.Add([]byte(`{"run":01}`))
	f.Add([]byte(`{"run":1,"run":2}`))
	f.Add([]byte(`{"set":null,"at":null,"left":null}`))
	f.Add([]byte(`{"left":[],"dropped":[{"Off":1,"Len":2,"Sum":18446744073709551615}]}`))
	f.Add([]byte(`{"left":[{"Off":1,"Len":2,"Sum":-1}]}`))
	f.Add([]byte(`{"record":{"id":"a"},"history":[1]}`))
	f.Add([]byte(`{"rewrite":{"run":2}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, gerr := decodeVersion(raw)
		var want gcVersion
		werr := json.Unmarshal(raw, &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%.300q: skimmed %v %+v, decoded %v %+v", raw, gerr, got, werr, want)
		}
	})
}

// TestSkimVersionTaken: the skim, not encoding/json, decodes the fixtures'
// versions (else FuzzDecodeVersion would check little).
func TestSkimVersionTaken(t *testing.T) {
	n := 0
	for _, raw := range storedVersions(t) {
		var v gcVersion
		if skimVersion(raw, &v) {
			n++
		} else if json.Unmarshal(raw, &v) == nil && (v.Line != nil || v.Record != nil) {
			t.Errorf("a version the skim left to encoding/json: %.200s", raw)
		}
	}
	if n == 0 {
		t.Fatal("no version skimmed")
	}
}
