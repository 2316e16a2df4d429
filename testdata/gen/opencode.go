package main

// The opencode 1.18.33 SQLite store.

import (
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite"
)

const (
	version   = "1.18.33"
	worktree  = "/home/user/proj"
	spillBase = "/home/user/.local/share/opencode/tool-output/"
	baseMS    = int64(1796100000000)
	snapshot  = "5cf5b1d6f3442edfa91a91d1a7ade94343b31bec"
	bashLimit = 30000 // metadata.output keeps the last 30000 bytes
)

// id returns an opencode identifier: prefix_, 6 bytes of
// (time_ms*0x1000 + counter) in hex (inverted when descending), 14 base62.
func (g *gen) id(prefix string, descending bool) string {
	v := uint64(g.clock) * 0x1000
	if v <= g.last {
		v = g.last + 1
	}
	g.last = v
	n := v & 0xffffffffffff
	if descending {
		n = ^n & 0xffffffffffff
	}
	return fmt.Sprintf("%s_%012x%s", prefix, n, g.alnum(14, base62))
}

// JSON shapes, field order as opencode writes them.

type span struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type tokens struct {
	Total     int `json:"total"`
	Input     int `json:"input"`
	Output    int `json:"output"`
	Reasoning int `json:"reasoning"`
	Cache     struct {
		Write int `json:"write"`
		Read  int `json:"read"`
	} `json:"cache"`
}

type modelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

type userMsg struct {
	Role string `json:"role"`
	Time struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Agent string   `json:"agent"`
	Model modelRef `json:"model"`
}

type asstMsg struct {
	ParentID string `json:"parentID"`
	Role     string `json:"role"`
	Mode     string `json:"mode"`
	Agent    string `json:"agent"`
	Path     struct {
		Cwd  string `json:"cwd"`
		Root string `json:"root"`
	} `json:"path"`
	Cost       float64 `json:"cost"`
	Tokens     tokens  `json:"tokens"`
	ModelID    string  `json:"modelID"`
	ProviderID string  `json:"providerID"`
	Time       struct {
		Created   int64 `json:"created"`
		Completed int64 `json:"completed"`
	} `json:"time"`
	Finish string `json:"finish"`
}

type stepStart struct {
	Snapshot string `json:"snapshot"`
	Type     string `json:"type"`
}

type stepFinish struct {
	Reason   string  `json:"reason"`
	Snapshot string  `json:"snapshot"`
	Type     string  `json:"type"`
	Tokens   tokens  `json:"tokens"`
	Cost     float64 `json:"cost"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Time *span  `json:"time,omitempty"`
}

type toolState struct {
	Status   string  `json:"status"`
	Input    any     `json:"input"`
	Output   string  `json:"output,omitempty"`
	Error    string  `json:"error,omitempty"`
	Metadata any     `json:"metadata,omitempty"`
	Title    *string `json:"title,omitempty"`
	Time     span    `json:"time"`
}

type toolPart struct {
	Type   string    `json:"type"`
	Tool   string    `json:"tool"`
	CallID string    `json:"callID"`
	State  toolState `json:"state"`
}

type bashInput struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

type bashMeta struct {
	Output     string `json:"output"`
	Exit       int    `json:"exit"`
	Truncated  bool   `json:"truncated"`
	OutputPath string `json:"outputPath,omitempty"`
}

type fileInput struct {
	FilePath string `json:"filePath"`
}

type readDisplay struct {
	Type       string `json:"type"`
	Path       string `json:"path"`
	Text       string `json:"text"`
	LineStart  int    `json:"lineStart"`
	LineEnd    int    `json:"lineEnd"`
	TotalLines int    `json:"totalLines"`
	Truncated  bool   `json:"truncated"`
}

type readMeta struct {
	Preview   string      `json:"preview"`
	Truncated bool        `json:"truncated"`
	Loaded    []string    `json:"loaded"`
	Display   readDisplay `json:"display"`
}

type searchInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type editInput struct {
	FilePath  string `json:"filePath"`
	OldString string `json:"oldString"`
	NewString string `json:"newString"`
}

type fileDiff struct {
	File      string `json:"file"`
	Patch     string `json:"patch"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

type editMeta struct {
	Diagnostics struct{} `json:"diagnostics"`
	Diff        string   `json:"diff"`
	Filediff    fileDiff `json:"filediff"`
	Truncated   bool     `json:"truncated"`
}

// opencodeDB is the opencode writer's state.
type opencodeDB struct {
	tx    *sql.Tx
	parts int
}

// opencode writes DIR/opencode.db with n sessions of calls tool calls each
// in one project, and their spill files.
func (g *gen) opencode(n, calls int, total int64) error {
	if err := os.MkdirAll(filepath.Join(g.dir, "tool-output"), 0o755); err != nil {
		return err
	}
	path := filepath.Join(g.dir, "opencode.db")
	for _, suf := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(path + suf); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_pragma=synchronous(off)&_pragma=journal_mode(delete)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(strings.ReplaceAll(schemaSQL, "§", "`")); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	g.tx = tx
	sum := sha1.Sum([]byte(fmt.Sprint(g.rng.Uint64())))
	pid := hex.EncodeToString(sum[:])
	t0 := g.clock
	for k := 0; k < n; k++ {
		title := fmt.Sprintf("Synthetic session: %d tool calls", calls)
		if n > 1 {
			title = fmt.Sprintf("Synthetic session %d of %d: %d tool calls", k+1, n, calls)
		}
		g.session(pid, title, calls, total)
		g.tick(60000)
	}
	g.exec(`INSERT INTO project (id, worktree, vcs, name, icon_url, icon_url_override, icon_color, time_created, time_updated, time_initialized, sandboxes, commands) VALUES (?, ?, 'git', NULL, NULL, NULL, NULL, ?, ?, NULL, '[]', NULL)`, pid, worktree, t0-500, g.clock)
	g.exec(`INSERT INTO project_directory (project_id, directory, type, strategy, time_created) VALUES (?, ?, NULL, NULL, ?)`, pid, worktree, t0-496)
	for _, m := range migrations {
		g.exec(`INSERT INTO migration (id, time_completed) VALUES (?, ?)`, m, t0-1000)
	}
	return tx.Commit()
}

func (g *gen) exec(q string, args ...any) {
	if _, err := g.tx.Exec(q, args...); err != nil {
		panic(fmt.Errorf("%s: %w", strings.Fields(q)[:3], err))
	}
}

// session writes one session of the project pid.
func (g *gen) session(pid, title string, calls int, total int64) {
	t0 := g.clock
	g.sid = g.id("ses", true)
	msgs := g.msgs
	plans := g.plans(calls, total)

	// user message
	g.tick(70)
	uid := g.id("msg", false)
	um := userMsg{Role: "user", Agent: "build", Model: modelRef{"anthropic", "claude-sonnet-4-5"}}
	um.Time.Created = g.clock
	g.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, uid, g.sid, g.clock, g.clock, marshal(um))
	g.msgs++
	g.tick(5)
	g.part(uid, marshal(textPart{Type: "text", Text: prompt}), 2)

	input := 8000
	for _, ps := range g.steps(plans) {
		input = g.step(uid, ps, input, false)
	}
	g.step(uid, nil, input, true)
	end := g.clock
	msgs = g.msgs - msgs

	g.exec(`INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived)
VALUES (?, ?, NULL, NULL, ?, ?, NULL, ?, ?, NULL, 0, 0, 0, NULL, NULL, ?, ?, ?, 0, 0, 0, NULL, ?, 'build', ?, ?, ?, NULL, NULL)`,
		g.sid, pid, g.word()+"-"+g.word(), worktree, title, version,
		float64(msgs)*0.03, msgs*9000, msgs*60,
		`[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]`,
		`{"id":"claude-sonnet-4-5","providerID":"anthropic","variant":"default"}`, t0, end)
}

func (g *gen) part(mid, data string, dur int) {
	start := g.clock
	g.tick(dur)
	g.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		g.id("prt", false), mid, g.sid, start, g.clock, data)
	g.parts++
}

// step writes one assistant message: step-start, maybe a text, the tool
// parts, step-finish. The last step has a text and finish "stop".
func (g *gen) step(parent string, ps []plan, input int, last bool) int {
	g.tick(200 + g.rng.IntN(800))
	mid := g.id("msg", false)
	created := g.clock
	g.tick(600 + g.rng.IntN(600))
	g.part(mid, marshal(stepStart{Snapshot: snapshot, Type: "step-start"}), 2)
	if last || g.rng.IntN(3) == 0 {
		txt := "Next I will look at more of the code."
		if last {
			txt = "Done: the build passes and the call sites are fixed."
		}
		s := g.clock
		g.part(mid, marshal(textPart{Type: "text", Text: txt, Time: &span{s, s + 4}}), 5)
	}
	for _, p := range ps {
		g.tool(mid, p)
	}
	out := 20 + 40*len(ps)
	tk := tokens{Total: input + out, Input: input, Output: out}
	cost := float64(input)*3e-6 + float64(out)*15e-6
	reason, finish := "tool-calls", "tool-calls"
	if last {
		reason, finish = "stop", "stop"
	}
	g.tick(40)
	g.part(mid, marshal(stepFinish{Reason: reason, Snapshot: snapshot, Type: "step-finish", Tokens: tk, Cost: cost}), 2)
	am := asstMsg{ParentID: parent, Role: "assistant", Mode: "build", Agent: "build", Cost: cost, Tokens: tk, ModelID: "claude-sonnet-4-5", ProviderID: "anthropic", Finish: finish}
	am.Path.Cwd, am.Path.Root = worktree, worktree
	am.Time.Created, am.Time.Completed = created, g.clock
	g.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, mid, g.sid, created, g.clock+2, marshal(am))
	g.msgs++
	return input + out + 50*len(ps)
}

func (g *gen) tool(mid string, p plan) {
	start := g.clock + 8
	dur := 20 + g.rng.IntN(300)
	if p.size > 1<<20 {
		dur += p.size / 5000
	}
	tp := toolPart{Type: "tool", Tool: p.tool, CallID: g.callID()}
	st := &tp.State
	st.Status = "completed"
	title := ""
	switch p.tool {
	case "bash":
		cmd := fmt.Sprintf("go test ./%s/... 2>&1 | tail -n +1", dirs[g.rng.IntN(len(dirs))])
		if p.size > 1<<20 {
			cmd = "find / -xdev -name '*.go' -exec grep -Hn func {} +"
		}
		st.Input = bashInput{Command: cmd, Description: "Run " + g.word() + " checks"}
		title = cmd
		full := lines(p.size, g.logLine)
		meta := bashMeta{Exit: g.rng.IntN(2), Output: full}
		if p.trunc {
			full = lines(400000+g.rng.IntN(800000), g.logLine)
			spill := g.id("tool", false)
			if err := os.WriteFile(filepath.Join(g.dir, "tool-output", spill), []byte(full), 0o644); err != nil {
				panic(err)
			}
			tail := full[len(full)-p.size:]
			tail = tail[strings.IndexByte(tail, '\n')+1:]
			st.Output = "...output truncated...\n\nFull output saved to: " + spillBase + spill + "\n\n" + tail
			meta.Truncated, meta.OutputPath = true, spillBase+spill
			g.truncated++
		} else {
			st.Output = full
			if full == "" {
				st.Output = "(no output)"
			}
		}
		if len(full) > bashLimit {
			meta.Output = "...\n\n" + full[len(full)-bashLimit:]
		} else {
			meta.Output = st.Output
		}
		st.Metadata = meta
	case "read":
		f := g.file()
		st.Input = fileInput{FilePath: worktree + "/" + f}
		title = f
		if p.err {
			st.Status, st.Error = "error", "File not found: "+worktree+"/"+f
			break
		}
		var content []string
		n := 0
		body := lines(p.size, func(i int) string {
			n = i
			l := fmt.Sprintf("\t%s := %s(%s) // %s", g.word(), g.word(), g.word(), g.word())
			content = append(content, l)
			return fmt.Sprintf("%d: %s", i, l)
		})
		st.Output = fmt.Sprintf("<path>%s/%s</path>\n<type>file</type>\n<content>\n%s\n(End of file - total %d lines)\n</content>", worktree, f, body, n)
		text := strings.Join(content, "\n")
		preview := strings.Join(content[:min(20, len(content))], "\n")
		st.Metadata = readMeta{Preview: preview, Loaded: []string{}, Display: readDisplay{Type: "file", Path: worktree + "/" + f, Text: text, LineStart: 1, LineEnd: n, TotalLines: n}}
	case "grep":
		pat := g.word()
		st.Input = searchInput{Pattern: pat, Path: worktree}
		title = pat
		n := 0
		body := lines(p.size, func(i int) string {
			n = i
			return fmt.Sprintf("%s/%s:\n  Line %d: %s %s %s\n", worktree, g.file(), 1+g.rng.IntN(500), g.word(), pat, g.word())
		})
		st.Output = fmt.Sprintf("Found %d matches\n%s", n, body)
		st.Metadata = map[string]any{"matches": n, "truncated": false}
	case "glob":
		pat := "**/*" + g.word() + "*.go"
		st.Input = searchInput{Pattern: pat, Path: worktree}
		n := 0
		st.Output = strings.TrimSuffix(lines(p.size, func(i int) string { n = i; return worktree + "/" + g.file() }), "\n")
		st.Metadata = map[string]any{"count": n, "truncated": false}
	case "edit":
		f := g.file()
		old, nw := g.word(), g.word()+"2"
		st.Input = editInput{FilePath: worktree + "/" + f, OldString: old, NewString: nw}
		title = f
		if p.err {
			st.Status, st.Error = "error", "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings."
			break
		}
		st.Output = "Edit applied successfully."
		abs := worktree + "/" + f
		patch := fmt.Sprintf("Index: %s\n===================================================================\n--- %s\n+++ %s\n@@ -1,3 +1,3 @@\n package x\n-%s\n+%s\n }\n", abs, abs, abs, old, nw)
		st.Metadata = editMeta{Diff: patch, Filediff: fileDiff{File: abs, Patch: patch, Additions: 1, Deletions: 1}}
	}
	if st.Status == "error" {
		g.errors++
		g.outBytes += int64(len(st.Error))
	} else {
		st.Title = &title
		g.outBytes += int64(len(st.Output))
		g.largest = max(g.largest, int64(len(st.Output)))
	}
	st.Time = span{start, start + int64(dur)}
	data := marshal(tp)
	pstart := g.clock
	g.clock = start + int64(dur) + 1
	g.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		g.id("prt", false), mid, g.sid, pstart, g.clock, data)
	g.parts++
}

var migrations = strings.Fields(`
20260127222353_familiar_lady_ursula 20260211171708_add_project_commands
20260213144116_wakeful_the_professor 20260225215848_workspace
20260227213759_add_session_workspace_id 20260228203230_blue_harpoon
20260303231226_add_workspace_fields 20260309230000_move_org_to_state
20260312043431_session_message_cursor 20260323234822_events
20260410174513_workspace-name 20260413175956_chief_energizer
20260423070820_add_icon_url_override 20260427172553_slow_nightmare
20260428004200_add_session_path 20260501142318_next_venus
20260504145000_add_sync_owner 20260507164347_add_workspace_time
20260510033149_session_usage 20260511000411_data_migration_state
20260511173437_session-metadata 20260601010001_normalize_storage_paths
20260601202201_amazing_prowler 20260602002951_lowly_union_jack
20260602182828_add_project_directories 20260603001617_session_message_projection_indexes
20260603040000_session_message_projection_order 20260603141458_session_input_inbox
20260603160727_jittery_ezekiel_stane 20260604172448_event_sourced_session_input
20260605003541_add_session_context_snapshot 20260605042240_add_context_epoch_agent
20260611035744_credential 20260611192811_lush_chimera
20260612174303_project_dir_strategy 20260622142730_simplify_session_context_epoch
20260622170816_reset_v2_session_state 20260622202450_simplify_session_input
`)

// schemaSQL is `sqlite3 opencode.db .schema` of the recorded opencode
// 1.18.33 store, with § standing for the backquote.
const schemaSQL = `CREATE TABLE §workspace§ (
          §id§ text PRIMARY KEY,
          §type§ text NOT NULL,
          §name§ text DEFAULT '' NOT NULL,
          §branch§ text,
          §directory§ text,
          §extra§ text,
          §project_id§ text NOT NULL,
          §time_used§ integer NOT NULL,
          CONSTRAINT §fk_workspace_project_id_project_id_fk§ FOREIGN KEY (§project_id§) REFERENCES §project§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §data_migration§ (
          §name§ text PRIMARY KEY,
          §time_completed§ integer NOT NULL
        );
CREATE TABLE §account_state§ (
          §id§ integer PRIMARY KEY,
          §active_account_id§ text,
          §active_org_id§ text,
          CONSTRAINT §fk_account_state_active_account_id_account_id_fk§ FOREIGN KEY (§active_account_id§) REFERENCES §account§(§id§) ON DELETE SET NULL
        );
CREATE TABLE §account§ (
          §id§ text PRIMARY KEY,
          §email§ text NOT NULL,
          §url§ text NOT NULL,
          §access_token§ text NOT NULL,
          §refresh_token§ text NOT NULL,
          §token_expiry§ integer,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL
        );
CREATE TABLE §control_account§ (
          §email§ text NOT NULL,
          §url§ text NOT NULL,
          §access_token§ text NOT NULL,
          §refresh_token§ text NOT NULL,
          §token_expiry§ integer,
          §active§ integer NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          CONSTRAINT §control_account_pk§ PRIMARY KEY(§email§, §url§)
        );
CREATE TABLE §credential§ (
          §id§ text PRIMARY KEY,
          §integration_id§ text,
          §label§ text NOT NULL,
          §value§ text NOT NULL,
          §connector_id§ text,
          §method_id§ text,
          §active§ integer,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL
        );
CREATE TABLE §event_sequence§ (
          §aggregate_id§ text PRIMARY KEY,
          §seq§ integer NOT NULL,
          §owner_id§ text
        );
CREATE TABLE §event§ (
          §id§ text PRIMARY KEY,
          §aggregate_id§ text NOT NULL,
          §seq§ integer NOT NULL,
          §type§ text NOT NULL,
          §data§ text NOT NULL,
          CONSTRAINT §fk_event_aggregate_id_event_sequence_aggregate_id_fk§ FOREIGN KEY (§aggregate_id§) REFERENCES §event_sequence§(§aggregate_id§) ON DELETE CASCADE
        );
CREATE TABLE §permission§ (
          §id§ text PRIMARY KEY,
          §project_id§ text NOT NULL,
          §action§ text NOT NULL,
          §resource§ text NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          CONSTRAINT §fk_permission_project_id_project_id_fk§ FOREIGN KEY (§project_id§) REFERENCES §project§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §project_directory§ (
          §project_id§ text NOT NULL,
          §directory§ text NOT NULL,
          §type§ text,
          §strategy§ text,
          §time_created§ integer NOT NULL,
          CONSTRAINT §project_directory_pk§ PRIMARY KEY(§project_id§, §directory§),
          CONSTRAINT §fk_project_directory_project_id_project_id_fk§ FOREIGN KEY (§project_id§) REFERENCES §project§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §project§ (
          §id§ text PRIMARY KEY,
          §worktree§ text NOT NULL,
          §vcs§ text,
          §name§ text,
          §icon_url§ text,
          §icon_url_override§ text,
          §icon_color§ text,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          §time_initialized§ integer,
          §sandboxes§ text NOT NULL,
          §commands§ text
        );
CREATE TABLE §message§ (
          §id§ text PRIMARY KEY,
          §session_id§ text NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          §data§ text NOT NULL,
          CONSTRAINT §fk_message_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §part§ (
          §id§ text PRIMARY KEY,
          §message_id§ text NOT NULL,
          §session_id§ text NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          §data§ text NOT NULL,
          CONSTRAINT §fk_part_message_id_message_id_fk§ FOREIGN KEY (§message_id§) REFERENCES §message§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §session_context_epoch§ (
          §session_id§ text PRIMARY KEY,
          §baseline§ text NOT NULL,
          §snapshot§ text NOT NULL,
          §baseline_seq§ integer NOT NULL,
          CONSTRAINT §fk_session_context_epoch_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §session_input§ (
          §id§ text PRIMARY KEY,
          §session_id§ text NOT NULL,
          §prompt§ text NOT NULL,
          §delivery§ text NOT NULL,
          §admitted_seq§ integer NOT NULL,
          §promoted_seq§ integer,
          §time_created§ integer NOT NULL,
          CONSTRAINT §fk_session_input_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §session_message§ (
          §id§ text PRIMARY KEY,
          §session_id§ text NOT NULL,
          §type§ text NOT NULL,
          §seq§ integer NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          §data§ text NOT NULL,
          CONSTRAINT §fk_session_message_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §session§ (
          §id§ text PRIMARY KEY,
          §project_id§ text NOT NULL,
          §workspace_id§ text,
          §parent_id§ text,
          §slug§ text NOT NULL,
          §directory§ text NOT NULL,
          §path§ text,
          §title§ text NOT NULL,
          §version§ text NOT NULL,
          §share_url§ text,
          §summary_additions§ integer,
          §summary_deletions§ integer,
          §summary_files§ integer,
          §summary_diffs§ text,
          §metadata§ text,
          §cost§ real DEFAULT 0 NOT NULL,
          §tokens_input§ integer DEFAULT 0 NOT NULL,
          §tokens_output§ integer DEFAULT 0 NOT NULL,
          §tokens_reasoning§ integer DEFAULT 0 NOT NULL,
          §tokens_cache_read§ integer DEFAULT 0 NOT NULL,
          §tokens_cache_write§ integer DEFAULT 0 NOT NULL,
          §revert§ text,
          §permission§ text,
          §agent§ text,
          §model§ text,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          §time_compacting§ integer,
          §time_archived§ integer,
          CONSTRAINT §fk_session_project_id_project_id_fk§ FOREIGN KEY (§project_id§) REFERENCES §project§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §todo§ (
          §session_id§ text NOT NULL,
          §content§ text NOT NULL,
          §status§ text NOT NULL,
          §priority§ text NOT NULL,
          §position§ integer NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          CONSTRAINT §todo_pk§ PRIMARY KEY(§session_id§, §position§),
          CONSTRAINT §fk_todo_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE §session_share§ (
          §session_id§ text PRIMARY KEY,
          §id§ text NOT NULL,
          §secret§ text NOT NULL,
          §url§ text NOT NULL,
          §time_created§ integer NOT NULL,
          §time_updated§ integer NOT NULL,
          CONSTRAINT §fk_session_share_session_id_session_id_fk§ FOREIGN KEY (§session_id§) REFERENCES §session§(§id§) ON DELETE CASCADE
        );
CREATE TABLE IF NOT EXISTS "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
CREATE UNIQUE INDEX §event_aggregate_seq_idx§ ON §event§ (§aggregate_id§,§seq§);
CREATE INDEX §event_aggregate_type_seq_idx§ ON §event§ (§aggregate_id§,§type§,§seq§);
CREATE UNIQUE INDEX §permission_project_action_resource_idx§ ON §permission§ (§project_id§,§action§,§resource§);
CREATE INDEX §message_session_time_created_id_idx§ ON §message§ (§session_id§,§time_created§,§id§);
CREATE INDEX §part_message_id_id_idx§ ON §part§ (§message_id§,§id§);
CREATE INDEX §part_session_idx§ ON §part§ (§session_id§);
CREATE INDEX §session_input_session_pending_delivery_seq_idx§ ON §session_input§ (§session_id§,§promoted_seq§,§delivery§,§admitted_seq§);
CREATE UNIQUE INDEX §session_input_session_admitted_seq_idx§ ON §session_input§ (§session_id§,§admitted_seq§);
CREATE UNIQUE INDEX §session_input_session_promoted_seq_idx§ ON §session_input§ (§session_id§,§promoted_seq§);
CREATE UNIQUE INDEX §session_message_session_seq_idx§ ON §session_message§ (§session_id§,§seq§);
CREATE INDEX §session_message_session_type_seq_idx§ ON §session_message§ (§session_id§,§type§,§seq§);
CREATE INDEX §session_message_session_time_created_id_idx§ ON §session_message§ (§session_id§,§time_created§,§id§);
CREATE INDEX §session_message_time_created_idx§ ON §session_message§ (§time_created§);
CREATE INDEX §session_project_idx§ ON §session§ (§project_id§);
CREATE INDEX §session_workspace_idx§ ON §session§ (§workspace_id§);
CREATE INDEX §session_parent_idx§ ON §session§ (§parent_id§);
CREATE INDEX §todo_session_idx§ ON §todo§ (§session_id§);`
