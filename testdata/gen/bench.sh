#!/usr/bin/env bash
# Measure correx on generated sessions of every agent and print issue 13's
# table, one measurement a row beside its anchor, with the target and
# whether it is met ("ok" / "MISSED"; "-" when the row has no target, "n/a"
# when it could not be measured):
#   testdata/gen/bench.sh [CALLS [MB]]        (default 5000 calls, 200 MiB)
#   QUICK=1 testdata/gen/bench.sh             (to check it works: 500 calls,
#     20 MiB, COUNT=1 RUNS=1 IDLE=6 HUGE=10 PICKER=500 SETTLE_MAX=20, the
#     FIFTYK rows at BIGCALLS=5000 MB50=20, MANY=0; about ten minutes on
#     a quiet machine)
# For each agent (AGENTS, default "opencode claude-code codex gemini-cli
# copilot qwen-code")
# it writes a session of CALLS calls and MB MiB of tool output into a temp
# dir and measures (one function each, below; in tmux, each key waits until
# the TUI's CPU goes quiet, at most SETTLE_MAX s, default 60):
#   - tui_benches: the TUI's first frame, keypress to frame and all pages
#     read: medians of BenchmarkFirstFrame/big, BenchmarkKeypress/big and
#     BenchmarkAllPages/big (-count COUNT);
#   - tui_peak: the TUI's peak RSS (/usr/bin/time -v), driven in tmux
#     through the SCENARIOS (default "browse request panes": browse the last
#     calls; the Request pane of the last step; Wire, Compare and Pipeline of
#     the last call), the largest of them;
#   - commands: `correx calls`, `correx transcript` and `correx wire` (the
#     last step, on the agent's own provider): median wall time and peak RSS
#     of RUNS runs (default 3), each ÷ an anchor measured the same way:
#     `opencode export` of the opencode session when the opencode 1.18.33
#     binary is in ~/.cache/correx-record/npm-1.18.33, `jq -c . FILE` of
#     the JSON Lines transcript for the others;
#   - panes (PANES=0 skips them: slow): medians of every BenchmarkPane*
#     sub-benchmark on the session
#     (BenchmarkPanes/big/{request,compare,pipeline}/{first,settled}: one
#     run each, COUNT times; any other BenchmarkPane*: KEYS_N keys, default
#     50, COUNT times);
#   - idle: the TUI left open on the session IDLE seconds (default 40; it
#     checks the store every 2 s): the CPU it used over them (user+sys ÷
#     wall, from /proc) and its RSS at their start and end (VmRSS);
#   - huge (HUGE=0 skips it): a session of 50 calls whose last call is one
#     HUGE MiB output
#     (default 47; gen -huge): the TUI's peak RSS on its Wire, Pipeline and
#     spill viewer.
# With FIFTYK=1 (slow), opencode at BIGCALLS calls (default "20000 50000";
# MB50 MiB, default MB): tui_benches, tui_peak and commands; and, unless
# MANY=0, `wire` on MANY calls (default 110000: over SQLite's 32,766
# variables of messages) beside `opencode export`. Then the picker's first
# frame (BenchmarkPickerFirstFrame: the quick list) and counted frame
# (BenchmarkPickerCounted) on opencode stores of PICKER sessions (default
# "2000 5000", 10 calls each). KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${QUICK:-}" = 1 ]; then
	: "${COUNT:=1}" "${RUNS:=1}" "${IDLE:=6}" "${HUGE:=10}" "${PICKER:=500}"
	: "${FIFTYK:=1}" "${BIGCALLS:=5000}" "${MB50:=20}" "${MANY:=0}" "${SETTLE_MAX:=20}"
	set -- "${1:-500}" "${2:-20}"
fi
CALLS=${1:-5000}
MB=${2:-200}
AGENTS=${AGENTS:-opencode claude-code codex gemini-cli copilot qwen-code}
COUNT=${COUNT:-5}
RUNS=${RUNS:-3}
SCENARIOS=${SCENARIOS:-browse request panes}
PICKER=${PICKER:-2000 5000}
IDLE=${IDLE:-40}
HUGE=${HUGE:-47}
BIGCALLS=${BIGCALLS:-20000 50000}
MB50=${MB50:-$MB}
MANY=${MANY:-110000}
SETTLE_MAX=${SETTLE_MAX:-60}
KEYS_N=${KEYS_N:-50}

for tool in time:/usr/bin/time jq:jq tmux:tmux; do
	command -v "${tool#*:}" >/dev/null || apt-get install -y "${tool%%:*}" >/dev/null
done

TMP=$(mktemp -d)
TS=correx-bench-$$ # the tmux session
cleanup() {
	tmux kill-session -t "$TS" 2>/dev/null || true
	if [ "${KEEP:-}" = "" ]; then rm -rf "$TMP"; else echo "kept $TMP" >&2; fi
}
trap cleanup EXIT
go build -o "$TMP/gen" ./testdata/gen
CGO_ENABLED=0 go build -o "$TMP/correx" .
go test -c -o "$TMP/tui.test" ./tui
OC=$(find "$HOME/.cache/correx-record/npm-1.18.33/node_modules" -path '*/bin/opencode' -type f 2>/dev/null | grep -v baseline | head -1 || true)
TICK=$(getconf CLK_TCK)

# ---- the table: one row per measurement --------------------------------

TABLE=$TMP/table
echo "| session | what | correx | anchor | ÷ anchor | target | met |" >"$TABLE"
echo "|---|---|---|---|---|---|---|" >>"$TABLE"

# emit SESSION WHAT CORREX ANCHOR RATIO TARGET VERDICT
emit() { printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$@" >>"$TABLE"; }

# verdict VALUE OP LIMIT: ok, MISSED, or n/a when either is not a number
verdict() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		n = "^-?[0-9]*[.]?[0-9]+([eE][-+]?[0-9]+)?$"
		if (v !~ n || l !~ n) { print "n/a"; exit }
		ok = (op == "<=") ? v + 0 <= l + 0 : v + 0 < l + 0
		print ok ? "ok" : "MISSED" }'
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }

# bench NAME FILE: median ms/op of benchmark NAME in a bench output
bench() { awk -v n="$1" '$1 ~ "^"n"(-[0-9]+)?$" {print $3 / 1e6}' "$2" | median; }

num() { [ "$2" = - ] && echo - || printf "$1" "$2"; }
ms() { num "%.1f ms" "$1"; }
mb() { num "%.0f MB" "$1"; }
wall_rss() { [ "$1" = - ] && echo - || printf "%.2f s, %.0f MB" "$1" "$2"; }
# div A B [raw]: A ÷ B to two decimals (raw: unrounded), - unless numbers
div() { awk -v a="$1" -v b="$2" -v raw="${3:-}" 'BEGIN {if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "-"; else printf raw ? "%g\n" : "%.2f\n", a / b}'; }

# run_bench DIR OUT PATTERN [ARGS...]: the TUI benchmarks matching PATTERN
# on the session in DIR, appended to OUT
run_bench() {
	local dir=$1 out=$2 pat=$3
	shift 3
	(cd tui && CORREX_BENCH_BIG=$dir "$TMP/tui.test" -test.run '^$' -test.bench "$pat" \
		-test.count "$COUNT" -test.timeout 120m "$@" >>"$out" 2>&1) ||
		{ echo "   benchmarks $pat failed:" >&2; tail -5 "$out" >&2; }
}

# measure LABEL CMD...: RUNS runs; prints "wall-s RSS-MB" medians (stdout to /dev/null)
measure() {
	local label=$1 i
	shift
	: >"$TMP/walls"
	: >"$TMP/rsss"
	for i in $(seq "$RUNS"); do
		if ! /usr/bin/time -v -o "$TMP/time.txt" "$@" >/dev/null 2>"$TMP/err.txt"; then
			echo "   $label failed: $(tail -3 "$TMP/err.txt")" >&2
			echo "- -"
			return
		fi
		timev wall "$TMP/time.txt" >>"$TMP/walls"
		timev rss "$TMP/time.txt" >>"$TMP/rsss"
	done
	echo "$(median <"$TMP/walls") $(median <"$TMP/rsss")"
}

# timev wall|cpu|rss FILE: from a /usr/bin/time -v report: wall seconds,
# (user+sys) ÷ wall in %, peak RSS in MB
timev() {
	awk -F': ' -v want="$1" '
		/User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {r = $2 / 1024}
		/Elapsed/ {n = split($2, p, ":"); w = 0; for (j = 1; j <= n; j++) w = w * 60 + p[j]}
		END {if (w == "") print "-"; else if (want == "wall") print w; else if (want == "rss") print r; else print (w > 0 ? 100 * (u + s) / w : 0)}' "$2" 2>/dev/null || echo -
}

# ---- the TUI in tmux -----------------------------------------------------

# tui_open DIR ID: the TUI on the session under /usr/bin/time -v in tmux,
# once it has settled
tui_open() {
	rm -f "$TMP/tui.txt"
	BUSY=
	tmux new-session -d -s "$TS" -x 160 -y 45 \
		"/usr/bin/time -v -o '$TMP/tui.txt' '$TMP/correx' --source '$1' --session '$2'; sleep 1"
	sleep 1
	settle
}

# key KEY...: send keys to the TUI and let it settle
key() {
	tmux send-keys -t "$TS" "$@" 2>/dev/null || return 0
	sleep 0.3
	settle
}

# tui_pid: the correx process in the pane (shell → time → correx), or -
tui_pid() {
	local p c i
	p=$(tmux display -p -t "$TS" '#{pane_pid}' 2>/dev/null) || { echo -; return; }
	for i in 1 2 3; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = correx ] && { echo "$p"; return; }
		c=$(cat "/proc/$p/task/$p/children" 2>/dev/null) || break
		p=${c%% *}
		[ -n "$p" ] || break
	done
	echo -
}

# ticks PID: user+sys CPU clock ticks of PID so far (fails when it is gone)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null; }

# vmrss PID: its resident set now (MB), or -
vmrss() { awk '/^VmRSS/ {print $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo -; }

# settle: wait until the TUI used under 4% of a core over two half seconds
# in a row (it has drawn what it was asked to), at most SETTLE_MAX s; a TUI
# that never goes quiet is said so once, and then given 2 s a key
settle() {
	local pid a b quiet=0 i
	pid=$(tui_pid)
	[ "$pid" != - ] && [ "$BUSY" = "" ] || { sleep 2; return; }
	a=$(ticks "$pid") || return 0
	for i in $(seq $((SETTLE_MAX * 2))); do
		sleep 0.5
		b=$(ticks "$pid") || return 0
		if [ $((b - a)) -le $((TICK / 50)) ]; then quiet=$((quiet + 1)); else quiet=0; fi
		[ "$quiet" -lt 2 ] || return 0
		a=$b
	done
	BUSY=1
	echo "   the TUI is still busy after $SETTLE_MAX s: $(tmux capture-pane -p -t "$TS" | tail -2 | head -1 | tr -s ' ')" >&2
}

# tui_close: quit the TUI; prints its peak RSS (MB)
tui_close() {
	tmux send-keys -t "$TS" q 2>/dev/null || true
	for _ in $(seq 40); do [ -s "$TMP/tui.txt" ] && break; sleep 0.5; done
	tmux kill-session -t "$TS" 2>/dev/null || true
	timev rss "$TMP/tui.txt"
}

# tui_rss DIR ID SCENARIO: the TUI's peak RSS (MB) driven through SCENARIO
tui_rss() {
	tui_open "$1" "$2"
	key G # the last call
	case $3 in
	browse) for _ in $(seq 30); do key k; done ;;
	request) key 4; key Right; for _ in $(seq 20); do key j; done; key G; key g ;;
	panes) key 3; key 5; key 6 ;;
	wire) key 3; key G ;;
	pipeline) key 6; key Enter; key G ;;
	spill) key 2; key o; key G ;;
	esac
	tui_close
}

# ---- one function per measurement -----------------------------------------

provider() {
	case $1 in
	codex) echo openai-responses ;;
	gemini-cli) echo gemini ;;
	copilot | qwen-code) echo openai-chat ;;
	*) echo anthropic ;;
	esac
}

# the transcript file jq reads
transcript_file() {
	case $1 in
	claude-code) echo "$2/projects/-home-user-proj/$3.jsonl" ;;
	codex) find "$2/sessions" -name '*.jsonl' | head -1 ;;
	gemini-cli) find "$2/tmp/proj/chats" -name '*.jsonl' | head -1 ;;
	copilot) echo "$2/session-state/$3/events.jsonl" ;;
	qwen-code) echo "$2/projects/-home-user-proj/chats/$3.jsonl" ;;
	esac
}

# session AGENT CALLS MB [GEN FLAGS...]: writes a session; sets DIR, ID and
# LABEL (the table's session column); fails with a row when gen does
session() {
	local agent=$1 calls=$2 mb=$3
	shift 3
	DIR=$TMP/$agent-$calls${1:+-huge}
	LABEL="$agent, $calls calls, $mb MiB"
	echo "== $LABEL $*" >&2
	if ! ID=$("$TMP/gen" -agent "$agent" -calls "$calls" -mb "$mb" -out "$DIR" -quiet "$@" 2>"$TMP/gen.err"); then
		echo "   gen failed: $(head -1 "$TMP/gen.err")" >&2
		emit "$LABEL" "gen $*" "failed: $(head -1 "$TMP/gen.err")" "" "" "" "n/a"
		return 1
	fi
	LABEL="$LABEL ($(du -sh "$DIR" | cut -f1) on disk)"
}

done_with() { [ "${KEEP:-}" != "" ] || rm -rf "$DIR"; }

# tui_benches: first frame, keypress, all pages
tui_benches() {
	local v
	: >"$TMP/bench.txt"
	run_bench "$DIR" "$TMP/bench.txt" 'BenchmarkFirstFrame/big|BenchmarkKeypress/big|BenchmarkAllPages/big'
	v=$(bench BenchmarkFirstFrame/big "$TMP/bench.txt")
	emit "$LABEL" "TUI first frame" "$(ms "$v")" "" "" "<= 100 ms" "$(verdict "$v" "<=" 100)"
	v=$(bench BenchmarkKeypress/big "$TMP/bench.txt")
	emit "$LABEL" "TUI keypress to frame" "$(ms "$v")" "" "" "<= 5 ms" "$(verdict "$v" "<=" 5)"
	v=$(bench BenchmarkAllPages/big "$TMP/bench.txt")
	emit "$LABEL" "TUI all pages read" "$(ms "$v")" "" "" "" "-"
}

# tui_peak: the TUI's peak RSS, the largest over the SCENARIOS
tui_peak() {
	local max=- sc r
	for sc in $SCENARIOS; do
		r=$(tui_rss "$DIR" "$ID" "$sc")
		echo "   TUI $sc: peak RSS $r MB" >&2
		max=$(printf "%s\n%s\n" "$max" "$r" | grep -v '^-$' | sort -g | tail -1 || true)
		max=${max:--}
	done
	emit "$LABEL" "TUI peak RSS ($SCENARIOS)" "$(mb "$max")" "" "" "<= 64 MB" "$(verdict "$max" "<=" 64)"
}

# anchor AGENT: measures the anchor on the session; sets ANCHOR (its name)
# and AW AR (wall s, RSS MB; - when there is none)
anchor() {
	AW=- AR=-
	if [ "$1" = opencode ] && [ -n "$OC" ]; then
		local h=$TMP/home
		mkdir -p "$h/.local/share" "$h/.config" "$h/.cache" "$h/.local/state" "$h/proj"
		ln -sfn "$DIR" "$h/.local/share/opencode"
		ANCHOR="opencode export"
		read -r AW AR <<<"$(measure "$ANCHOR" env -i HOME="$h" PATH=/usr/local/bin:/usr/bin:/bin \
			XDG_DATA_HOME="$h/.local/share" XDG_CONFIG_HOME="$h/.config" XDG_CACHE_HOME="$h/.cache" \
			XDG_STATE_HOME="$h/.local/state" OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=true \
			bash -c 'cd "$1" && exec "$2" export "$3"' _ "$h/proj" "$OC" "$ID")"
	elif [ "$1" = opencode ]; then
		ANCHOR="(no opencode 1.18.33 binary)"
	else
		ANCHOR="jq -c ."
		read -r AW AR <<<"$(measure jq jq -c . "$(transcript_file "$1" "$DIR" "$ID")")"
	fi
}

# command AGENT NAME ARGS...: one correx command beside the anchor
command_row() {
	local agent=$1 name=$2 w r
	shift 2
	read -r w r <<<"$(measure "$name" "$TMP/correx" "$name" --source "$DIR" --session "$ID" "$@")"
	emit "$LABEL" "\`$name\`${1:+ (last step, $2)}" "$(wall_rss "$w" "$r")" "$ANCHOR: $(wall_rss "$AW" "$AR")" \
		"$(div "$w" "$AW") time, $(div "$r" "$AR") RSS" "<= 0.5 time" "$(verdict "$w" "<=" "$(div "$AW" 2 raw)")"
}

# commands AGENT: calls, transcript and wire beside the anchor
commands() {
	anchor "$1"
	command_row "$1" calls
	command_row "$1" transcript
	command_row "$1" wire --provider "$(provider "$1")"
}

# panes: the Request, Compare and Pipeline panes' benchmarks (and any other
# BenchmarkPane*): first screen <= 100 ms, settled <= 2 s, a key <= 5 ms
panes() {
	local n v t l
	: >"$TMP/panes.txt"
	run_bench "$DIR" "$TMP/panes.txt" '^BenchmarkPanes$/big' -test.benchtime 1x
	run_bench "$DIR" "$TMP/panes.txt" '^BenchmarkPane([^s].*|s.+)$' -test.benchtime "${KEYS_N}x"
	for n in $(awk '$1 ~ /^BenchmarkPane/ && $1 !~ /\/demo/ && $2 ~ /^[0-9]+$/ {sub(/-[0-9]+$/, "", $1); if (!seen[$1]++) print $1}' "$TMP/panes.txt"); do
		v=$(bench "$n" "$TMP/panes.txt")
		case $n in
		*/first) t="<= 100 ms" l=100 ;;
		*/settled) t="<= 2000 ms" l=2000 ;;
		*Key*) t="<= 5 ms" l=5 ;;
		*) t="" l= ;;
		esac
		emit "$LABEL" "$(echo "${n#Benchmark}" | sed 's,/big,,')" "$(ms "$v")" "" "" "$t" "$([ -n "$l" ] && verdict "$v" "<=" "$l" || echo -)"
	done
	[ -n "${n:-}" ] || emit "$LABEL" "BenchmarkPane*" "none ran: $(grep -m1 -i 'fail\|skip' "$TMP/panes.txt" || true)" "" "" "" "n/a"
}

# idle: the TUI left open IDLE s: CPU over them, RSS at their start and end
idle() {
	local pid t0 t1 s0 s1 r0 r1 cpu whole
	tui_open "$DIR" "$ID"
	pid=$(tui_pid)
	if [ "$pid" = - ]; then
		tui_close >/dev/null
		emit "$LABEL" "TUI idle ${IDLE} s" "no correx process in tmux" "" "" "" "n/a"
		return
	fi
	t0=$(ticks "$pid" || echo -) s0=$(date +%s.%N) r0=$(vmrss "$pid")
	sleep "$IDLE"
	t1=$(ticks "$pid" || echo -) s1=$(date +%s.%N) r1=$(vmrss "$pid")
	tui_close >/dev/null
	cpu=$(awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$TICK" 'BEGIN {if (b == "-") print "-"; else printf "%.1f", 100 * (b - a) / hz / (e - s)}')
	whole=$(num "%.1f%%" "$(timev cpu "$TMP/tui.txt")")
	emit "$LABEL" "TUI idle ${IDLE} s: CPU" "$cpu% (whole run: $whole)" "" "" "<= 1%" "$(verdict "$cpu" "<=" 1)"
	emit "$LABEL" "TUI idle ${IDLE} s: RSS start -> end" "$(mb "$r0") -> $(mb "$r1")" "" "" "grows <= 2 MB" \
		"$(verdict "$(awk -v a="$r0" -v b="$r1" 'BEGIN {print (a == "-" || b == "-") ? "-" : b - a}')" "<=" 2)"
}

# huge AGENT: one HUGE MiB output (the last of 50 calls): the TUI's peak
# RSS on its Wire, Pipeline and spill viewer
huge() {
	local sc r
	session "$1" 50 1 -huge "$HUGE" || return 0
	LABEL="$1, one $HUGE MiB output"
	# a line over correx's line limit is skipped with a warning: the output
	# is then not shown, and its rows measure nothing
	local skipped
	skipped=$("$TMP/correx" calls --source "$DIR" --session "$ID" 2>&1 >/dev/null | grep -m1 'skipped a line' || true)
	for sc in wire pipeline spill; do
		r=$(tui_rss "$DIR" "$ID" "$sc")
		if [ -n "$skipped" ]; then
			emit "$LABEL" "TUI peak RSS on its $sc view" "$(mb "$r") (output not shown: ${skipped##*: })" "" "" "< 64 MB" "n/a"
		else
			emit "$LABEL" "TUI peak RSS on its $sc view" "$(mb "$r")" "" "" "< 64 MB" "$(verdict "$r" "<" 64)"
		fi
	done
	done_with
}

# many: opencode's wire on MANY calls (over 32,766 messages) beside its export
many() {
	session opencode "$MANY" 20 || return 0
	anchor opencode
	command_row opencode wire --provider anthropic
	done_with
}

# picker N: the session picker on an opencode store of N sessions
picker() {
	local v
	echo "== picker: $1 sessions" >&2
	DIR=$TMP/picker-$1
	"$TMP/gen" -sessions "$1" -calls 10 -mb 0.02 -out "$DIR" -quiet >/dev/null
	(cd tui && CORREX_BENCH_PICKER=$DIR "$TMP/tui.test" -test.run '^$' -test.bench 'BenchmarkPicker(FirstFrame|Counted)' \
		-test.count "$COUNT" >"$TMP/pbench.txt" 2>&1) || tail -5 "$TMP/pbench.txt" >&2
	v=$(bench BenchmarkPickerFirstFrame "$TMP/pbench.txt")
	emit "opencode, $1 sessions of 10 calls" "picker first frame" "$(ms "$v")" "" "" "<= 100 ms" "$(verdict "$v" "<=" 100)"
	emit "opencode, $1 sessions of 10 calls" "picker counted" "$(ms "$(bench BenchmarkPickerCounted "$TMP/pbench.txt")")" "" "" "" "-"
	done_with
}

# ---- the run -----------------------------------------------------------------

for a in $AGENTS; do
	if session "$a" "$CALLS" "$MB"; then
		tui_benches
		tui_peak
		commands "$a"
		[ "${PANES:-1}" = 0 ] || panes
		idle
		done_with
	fi
	[ "$HUGE" = 0 ] || huge "$a"
done
if [ "${FIFTYK:-}" = 1 ]; then
	for n in $BIGCALLS; do
		session opencode "$n" "$MB50" || continue
		tui_benches
		tui_peak
		commands opencode
		done_with
	done
	[ "$MANY" = 0 ] || many
fi
for n in $PICKER; do picker "$n"; done

echo
echo "medians: benchmarks of $COUNT runs, commands of $RUNS runs; TUI peak RSS: the largest over: $SCENARIOS; load: $(uptime | sed 's/.*load/load/')"
column -t -s '|' -o '|' "$TABLE" 2>/dev/null || cat "$TABLE"
