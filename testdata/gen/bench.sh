#!/usr/bin/env bash
# Measure correx on generated sessions of every agent and print one table:
#   testdata/gen/bench.sh [CALLS [MB]]        (default 5000 calls, 200 MiB)
# For each agent (AGENTS, default "opencode claude-code codex gemini-cli
# copilot qwen-code")
# it writes a session of CALLS calls and MB MiB of tool output into a temp
# dir and measures:
#   - the TUI's first frame and keypress to frame: medians of
#     BenchmarkFirstFrame/big and BenchmarkKeypress/big (-count COUNT);
#   - the TUI's peak RSS (/usr/bin/time -v), driven in tmux through the
#     SCENARIOS (default "browse request panes": browse the last calls; the
#     Request pane of the last step; Wire, Compare and Pipeline of the last
#     call), the largest of them;
#   - `correx calls`, `correx transcript` and `correx wire` (the last step,
#     on the agent's own provider): median wall time and peak RSS of RUNS
#     runs (default 3);
#   - beside them an anchor, measured the same way: `opencode export` of the
#     opencode session when the opencode 1.18.33 binary is in
#     ~/.cache/correx-record/npm-1.18.33, `jq -c . FILE` of the JSON Lines
#     transcript for the others; and the ratio correx transcript ÷ anchor.
# Then the picker's first frame (BenchmarkPickerFirstFrame: the quick list)
# and its counted frame (BenchmarkPickerCounted), medians, on
# opencode stores of PICKER sessions (default "2000 5000", 10 calls each),
# and, with FIFTYK=1 (slow), opencode at 50,000 calls (MB50 MiB, default
# 10×MB). KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CALLS=${1:-5000}
MB=${2:-200}
AGENTS=${AGENTS:-opencode claude-code codex gemini-cli copilot qwen-code}
COUNT=${COUNT:-5}
RUNS=${RUNS:-3}
SCENARIOS=${SCENARIOS:-browse request panes}
PICKER=${PICKER:-2000 5000}

if [ ! -x /usr/bin/time ]; then apt-get install -y time >/dev/null; fi
if ! command -v jq >/dev/null; then apt-get install -y jq >/dev/null; fi

TMP=$(mktemp -d)
if [ "${KEEP:-}" = "" ]; then trap 'rm -rf "$TMP"' EXIT; fi
go build -o "$TMP/gen" ./testdata/gen
CGO_ENABLED=0 go build -o "$TMP/correx" .
go test -c -o "$TMP/tui.test" ./tui
OC=$(find "$HOME/.cache/correx-record/npm-1.18.33/node_modules" -path '*/bin/opencode' -type f 2>/dev/null | grep -v baseline | head -1 || true)

median() { sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }

# bench NAME FILE: median ms/op of benchmark NAME in a bench output
bench() { awk -v n="$1" '$1 ~ "^"n"(-[0-9]+)?$" {print $3 / 1e6}' "$2" | median; }

# measure LABEL CMD...: RUNS runs; prints "wall-s RSS-MB" medians (stdout to /dev/null)
measure() {
	local label=$1 i
	shift
	: >"$TMP/walls"
	: >"$TMP/rsss"
	for i in $(seq "$RUNS"); do
		if ! /usr/bin/time -v -o "$TMP/time.txt" "$@" >/dev/null 2>"$TMP/err.txt"; then
			echo "$label failed: $(tail -3 "$TMP/err.txt")" >&2
			echo "- -"
			return
		fi
		awk -F': ' '/Elapsed/ {n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; print s}' "$TMP/time.txt" >>"$TMP/walls"
		awk -F': ' '/Maximum resident/ {print $2 / 1024}' "$TMP/time.txt" >>"$TMP/rsss"
	done
	echo "$(median <"$TMP/walls") $(median <"$TMP/rsss")"
}

# tui_rss DIR ID SCENARIO: peak RSS (MB) of the TUI driven in tmux
tui_rss() {
	local dir=$1 id=$2 scenario=$3 s=correx-bench-$$
	rm -f "$TMP/tui.txt"
	tmux new-session -d -s "$s" -x 160 -y 45 \
		"/usr/bin/time -v -o '$TMP/tui.txt' '$TMP/correx' --source '$dir' --session '$id'; sleep 1"
	sleep 3
	k() { tmux send-keys -t "$s" "$@"; sleep 0.3; }
	waitfor() { for _ in $(seq 60); do tmux capture-pane -p -t "$s" | grep -q "$1" && return; sleep 0.5; done; }
	k G
	sleep 2
	case $scenario in
	browse) for _ in $(seq 30); do k k; done ;;
	request) k 4; waitfor "items ·"; k Right; for _ in $(seq 20); do k j; done; k G; sleep 1; k g ;;
	panes) k 3; sleep 8; k 5; sleep 8; k 6; sleep 8 ;;
	esac
	sleep 1
	k q
	for _ in $(seq 20); do [ -s "$TMP/tui.txt" ] && break; sleep 0.5; done
	tmux kill-session -t "$s" 2>/dev/null || true
	awk -F': ' '/Maximum resident/ {print $2 / 1024}' "$TMP/tui.txt" 2>/dev/null || echo -
}

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

fmt2() { [ "$1" = - ] && echo - || printf "%.2fs/%.0fMB" "$1" "$2"; }
num() { [ "$2" = - ] && echo - || printf "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN {if (a == "-" || b == "-" || b == 0 || d == 0) print "-"; else printf "%.2f× / %.2f×", a / b, c / d}'; }

ROWS=$TMP/rows
printf "%-12s %6s %6s %10s %10s %8s %14s %14s %14s  %-34s %s\n" agent calls disk "1st frame" keypress "TUI RSS" calls transcript wire "anchor" "transcript÷anchor (time / RSS)" >"$ROWS"

# row AGENT CALLS MB: generate, measure, add a row to the table
row() {
	local agent=$1 calls=$2 mb=$3 dir=$TMP/$1-$2 id max r anchor aw ar
	echo "== $agent: $calls calls, $mb MiB" >&2
	if ! id=$("$TMP/gen" -agent "$agent" -calls "$calls" -mb "$mb" -out "$dir" -quiet 2>"$TMP/gen.err"); then
		echo "   gen failed: $(head -1 "$TMP/gen.err")" >&2
		printf "%-12s %6s  gen failed\n" "$agent" "$calls" >>"$ROWS"
		return
	fi
	(cd tui && CORREX_BENCH_BIG=$dir "$TMP/tui.test" -test.run '^$' -test.bench 'BenchmarkFirstFrame/big|BenchmarkKeypress/big' \
		-test.count "$COUNT" -test.timeout 60m >"$TMP/bench.txt" 2>&1) || { echo "benchmarks failed:" >&2; tail -5 "$TMP/bench.txt" >&2; }
	max=-
	if command -v tmux >/dev/null; then
		for sc in $SCENARIOS; do
			r=$(tui_rss "$dir" "$id" "$sc")
			echo "   TUI $sc: peak RSS $r MB" >&2
			max=$(printf "%s\n%s\n" "$max" "$r" | grep -v '^-$' | sort -g | tail -1 || echo -)
		done
	fi
	read -r cw cr <<<"$(measure calls "$TMP/correx" calls --source "$dir" --session "$id")"
	read -r tw tr <<<"$(measure transcript "$TMP/correx" transcript --source "$dir" --session "$id")"
	read -r ww wr <<<"$(measure wire "$TMP/correx" wire --source "$dir" --session "$id" --provider "$(provider "$agent")")"
	anchor=- aw=- ar=-
	if [ "$agent" = opencode ] && [ -n "$OC" ]; then
		local h=$TMP/home
		mkdir -p "$h/.local/share" "$h/.config" "$h/.cache" "$h/.local/state" "$h/proj"
		ln -sfn "$dir" "$h/.local/share/opencode"
		anchor="opencode export"
		read -r aw ar <<<"$(measure "$anchor" env -i HOME="$h" PATH=/usr/local/bin:/usr/bin:/bin \
			XDG_DATA_HOME="$h/.local/share" XDG_CONFIG_HOME="$h/.config" XDG_CACHE_HOME="$h/.cache" \
			XDG_STATE_HOME="$h/.local/state" OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=true \
			bash -c 'cd "$1" && exec "$2" export "$3"' _ "$h/proj" "$OC" "$id")"
	elif [ "$agent" != opencode ]; then
		anchor="jq -c . (transcript)"
		read -r aw ar <<<"$(measure jq jq -c . "$(transcript_file "$agent" "$dir" "$id")")"
	else
		anchor="(no opencode binary)"
	fi
	printf "%-12s %6s %6s %10s %10s %8s %14s %14s %14s  %-34s %s\n" "$agent" "$calls" "$(du -sh "$dir" | cut -f1)" \
		"$(num %.1fms "$(bench BenchmarkFirstFrame/big "$TMP/bench.txt")")" "$(num %.1fms "$(bench BenchmarkKeypress/big "$TMP/bench.txt")")" "$(num %.0fMB "$max")" \
		"$(fmt2 "$cw" "$cr")" "$(fmt2 "$tw" "$tr")" "$(fmt2 "$ww" "$wr")" "$anchor $(fmt2 "$aw" "$ar")" "$(ratio "$tw" "$aw" "$tr" "$ar")" >>"$ROWS"
	[ "${KEEP:-}" != "" ] || rm -rf "$dir"
}

for a in $AGENTS; do row "$a" "$CALLS" "$MB"; done
if [ "${FIFTYK:-}" = 1 ]; then row opencode 50000 "${MB50:-$((MB * 10))}"; fi

PROWS=$TMP/prows
printf "%-22s %9s %12s %12s\n" "picker" "sessions" "1st frame" "counted" >"$PROWS"
for n in $PICKER; do
	echo "== picker: $n sessions" >&2
	dir=$TMP/picker-$n
	"$TMP/gen" -sessions "$n" -calls 10 -mb 0.02 -out "$dir" -quiet >/dev/null
	(cd tui && CORREX_BENCH_PICKER=$dir "$TMP/tui.test" -test.run '^$' -test.bench 'BenchmarkPicker(FirstFrame|Counted)' \
		-test.count "$COUNT" >"$TMP/pbench.txt" 2>&1) || tail -5 "$TMP/pbench.txt" >&2
	printf "%-22s %9s %12s %12s\n" "opencode, 10 calls each" "$n" "$(num %.1fms "$(bench BenchmarkPickerFirstFrame "$TMP/pbench.txt")")" \
		"$(num %.1fms "$(bench BenchmarkPickerCounted "$TMP/pbench.txt")")" >>"$PROWS"
	[ "${KEEP:-}" != "" ] || rm -rf "$dir"
done

echo
echo "medians: benchmarks of $COUNT runs, commands of $RUNS runs; TUI RSS: the largest over: $SCENARIOS"
cat "$ROWS"
echo
cat "$PROWS"
