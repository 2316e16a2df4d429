package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"correx/model"
	"correx/sessions"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// v2 rows as opencode 1.18.33 wrote them (testdata/opencode/v2, shortened:
// the text of the bash result and the model's words are the recording's).
var v2Rows = []struct{ id, typ, data string }{
	{"msg_u1", "user", `{"time":{"created":1796010945300},"text":"Please run the correx oracle scenario: exercise the tools as scripted, then summarise what happened."}`},
	{"msg_a1", "assistant", `{"time":{"created":1796010945340,"completed":1796010947300},"agent":"build","model":{"id":"oracle-model","providerID":"oracle-openai","variant":"default"},` +
		`"content":[{"type":"reasoning","id":"reasoning-0","text":"The user wants the scripted oracle scenario.","time":{"created":1796010945347,"completed":1796010945353}},` +
		`{"type":"text","id":"text-0","text":"I'll start with a few shell commands."},` +
		`{"type":"tool","id":"call_sDV","name":"bash","provider":{"executed":false},"state":{"status":"completed","input":{"command":"echo hello from bash; echo second line","description":"Say hello"},"content":[{"type":"text","text":"hello from bash\nsecond line\n"},{"type":"text","text":"Command exited with code 0."}],"structured":{"exit":0,"truncated":false}},"time":{"created":1796010945938,"ran":1796010946049,"completed":1796010947230}},` +
		`{"type":"tool","id":"call_bT4","name":"bash","provider":{"executed":false},"state":{"status":"completed","input":{"command":"seq 1 100000; sleep 1"},"content":[{"type":"text","text":"1\n\n... output truncated; full content saved to /home/user/.local/share/opencode/tool-output/tool_22a983272001FSG0aO75TPvVvW ...\n\n100000\nCommand exited with code 0."}],"outputPaths":["/home/user/.local/share/opencode/tool-output/tool_22a983272001FSG0aO75TPvVvW"],"structured":{"exit":0,"truncated":false}},"time":{"created":1,"completed":2}},` +
		`{"type":"tool","id":"call_cU5","name":"list","provider":{"executed":false},"state":{"status":"error","input":{"path":"/home/user/proj"},"content":[],"structured":{},"error":{"type":"unknown","message":"Unknown tool: list"},"result":{"type":"error","value":"Unknown tool: list"}},"time":{"created":1796010954868,"ran":1796010954876,"completed":1796010954880}}],` +
		`"snapshot":{"start":"ff31","end":"ff31","files":[]},"finish":"tool-calls","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}`},
}

func TestV2SessionLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db := openTestDB(t, path)
	insertSession(t, db, rootSession())
	insertSession(t, db, fxSession{id: "ses_0", title: "New session - 2026", dir: "/home/user/proj", version: "1.18.33", created: 1700000010000, updated: 1700000011000})
	for i, r := range v2Rows {
		_, err := db.Exec(`INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, 'ses_0', ?, ?, 1, 1, ?)`,
			r.id, r.typ, i+1, r.data)
		require.NoError(t, err)
	}
	// a corrupt row counts nothing and is skipped with a warning
	_, err := db.Exec(`INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES ('msg_bad', 'ses_0', 'assistant', 9, 1, 1, '{"content":[')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	s, err := sessions.Open(path)
	require.NoError(t, err)
	defer s.Close()
	infos, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 2)
	in := infos[0]
	assert.Equal(t, "ses_0", in.ID)
	assert.Equal(t, model.PipelineV2, in.Pipeline)
	assert.Equal(t, [4]int{3, 3, 1, 1}, [4]int{in.Messages, in.ToolCalls, in.Truncated, in.Errors}, "messages, tools, spilled, errors")
	assert.Equal(t, model.PipelineV1, infos[1].Pipeline)

	sess, err := s.Load(ctx, "ses_0")
	require.NoError(t, err)
	assert.Equal(t, model.PipelineV2, sess.Info.Pipeline)
	require.Len(t, rowWarnings(sess.Warnings), 1)
	assert.Contains(t, rowWarnings(sess.Warnings)[0], "msg_bad")
	require.Len(t, sess.Messages, 2)
	assert.Equal(t, [4]int{2, 3, 1, 1}, [4]int{sess.Info.Messages, sess.Info.ToolCalls, sess.Info.Truncated, sess.Info.Errors})

	u, a := sess.Messages[0], sess.Messages[1]
	assert.Equal(t, model.RoleUser, u.Role)
	assert.Equal(t, time.UnixMilli(1796010945300), u.Created)
	require.Len(t, u.Parts, 1)
	assert.Equal(t, "Please run the correx oracle scenario: exercise the tools as scripted, then summarise what happened.", u.Parts[0].Text)

	assert.Equal(t, model.RoleAssistant, a.Role)
	assert.Equal(t, "msg_a1", a.ID)
	assert.Equal(t, [5]string{"oracle-openai", "oracle-model", "build", "tool-calls", ""}, [5]string{a.ProviderID, a.ModelID, a.Agent, a.Finish, a.Error})
	assert.Equal(t, time.UnixMilli(1796010947300), a.Completed)
	require.Len(t, a.Parts, 5)
	assert.Equal(t, []model.PartType{model.PartReasoning, model.PartText, model.PartTool, model.PartTool, model.PartTool},
		[]model.PartType{a.Parts[0].Type, a.Parts[1].Type, a.Parts[2].Type, a.Parts[3].Type, a.Parts[4].Type})
	assert.Equal(t, "The user wants the scripted oracle scenario.", a.Parts[0].Text)

	bash := a.Parts[2].Tool
	assert.True(t, bash.IsV2())
	assert.Equal(t, [3]string{"call_sDV", "bash", "completed"}, [3]string{bash.CallID, bash.Tool, string(bash.Status)})
	assert.JSONEq(t, `{"command":"echo hello from bash; echo second line","description":"Say hello"}`, string(bash.Input))
	assert.Equal(t, []model.ToolContent{{Type: "text", Text: "hello from bash\nsecond line\n"}, {Type: "text", Text: "Command exited with code 0."}}, bash.Content)
	assert.Equal(t, `{"exit":0,"truncated":false}`, string(bash.Structured))
	assert.Nil(t, bash.ErrorValue)
	assert.Equal(t, time.UnixMilli(1796010945938), bash.Start)
	assert.Equal(t, time.UnixMilli(1796010947230), bash.End)

	seq := a.Parts[3].Tool
	assert.Equal(t, []string{"/home/user/.local/share/opencode/tool-output/tool_22a983272001FSG0aO75TPvVvW"}, seq.OutputPaths)

	list := a.Parts[4].Tool
	assert.Equal(t, model.StatusError, list.Status)
	assert.Equal(t, `{"type":"unknown","message":"Unknown tool: list"}`, string(list.ErrorValue))
	assert.Equal(t, "Unknown tool: list", list.Error)
	assert.NotNil(t, list.Content)
	assert.Empty(t, list.Content)
	assert.Equal(t, `{}`, string(list.Structured))
}

// v2Recording says whether a recorded flavour holds v2 sessions only.
func v2Recording(loaded map[string]*model.Session) bool {
	for _, s := range loaded {
		if s.Info.Pipeline != model.PipelineV2 {
			return false
		}
	}
	return len(loaded) > 0
}

// checkV2Recording checks a recording of the v2 loop: every session loads
// without warnings, its spill files are in tool-output/, and its messages
// equal what the v2 API returned (exports/<id>.v2-messages.json, pages
// newest first).
func checkV2Recording(t *testing.T, f realFlavour, loaded map[string]*model.Session) {
	var sawSpill bool
	for id, sess := range loaded {
		assert.Empty(t, sess.Warnings, "warnings of %s", id)
		require.NotEmpty(t, sess.Messages, id)
		for _, ref := range sess.ToolCalls() {
			c := ref.Call
			assert.True(t, c.IsV2(), c.CallID)
			assert.NotEmpty(t, c.Tool, c.CallID)
			assert.True(t, json.Valid(c.Input), "input of %s", c.CallID)
			assert.Contains(t, []model.ToolStatus{model.StatusCompleted, model.StatusError}, c.Status, c.CallID)
			if c.Status == model.StatusError {
				assert.NotEmpty(t, c.ErrorValue, c.CallID)
			}
			for _, p := range c.OutputPaths {
				sawSpill = true
				_, err := os.Stat(filepath.Join(sess.Info.DataDir, "tool-output", filepath.Base(p)))
				assert.NoError(t, err, "spill file of %s", c.CallID)
			}
		}
		b, err := os.ReadFile(filepath.Join(f.exports, id+".v2-messages.json"))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		api, warnings, err := DecodeV2Messages(b)
		require.NoError(t, err)
		assert.Empty(t, warnings)
		slices.Reverse(api)
		assert.Equal(t, api, sess.Messages, "v2 API messages and session_message rows of %s", id)
	}
	assert.True(t, sawSpill, "the v2 scenario spills outputs (ToolOutputStore.bound)")
	for _, s := range loaded {
		if strings.HasPrefix(s.Info.Title, "New session - ") {
			return
		}
	}
	t.Errorf("the v2 loop keeps the title New session - …")
}
