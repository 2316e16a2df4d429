#!/usr/bin/env bash
# Measure correx on the demo fixture and on a generated big store:
#   testdata/gen/bench.sh [CALLS [MB]]        (default 5000 calls, 250 MiB)
# Builds the generator and correx, writes the store into a temp dir, runs
# BenchmarkFirstFrame and BenchmarkKeypress (-count 5, medians), and
# measures peak RSS (/usr/bin/time -v) of `correx transcript`, `correx
# calls`, `correx wire` of the last step, the TUI driven in tmux (browse the
# last calls; the Request pane of the last step; Wire, Compare and Pipeline
# of the last call) and, when the opencode 1.18.33 binary is in
# ~/.cache/correx-record/npm-1.18.33, of `opencode export` on the same store.
# KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${1:-5000}
MB=${2:-250}
COUNT=${COUNT:-5}

if [ ! -x /usr/bin/time ]; then
	apt-get install -y time >/dev/null
fi

TMP=$(mktemp -d)
if [ "${KEEP:-}" = "" ]; then trap 'rm -rf "$TMP"' EXIT; fi
DIR=$TMP/data
mkdir -p "$DIR"

go build -o "$TMP/gen" ./testdata/gen
CGO_ENABLED=0 go build -o "$TMP/correx" .
echo "== generating $CALLS calls, $MB MiB into $DIR"
ID=$("$TMP/gen" -calls "$CALLS" -mb "$MB" -out "$DIR")
du -sh "$DIR/opencode.db" "$DIR/tool-output" | sed 's/^/   /'

echo "== benchmarks (-count $COUNT)"
CORREX_BENCH_BIG=$DIR go test ./tui -run '^$' -bench 'BenchmarkFirstFrame|BenchmarkKeypress' \
	-count "$COUNT" -timeout 60m | tee "$TMP/bench.txt" | grep -E '^(Benchmark|ok|FAIL|---)' || true
echo
if command -v benchstat >/dev/null 2>&1; then
	benchstat "$TMP/bench.txt"
else
	# median of ns/op, B/op, allocs/op and live-MB over the runs of each benchmark
	awk '
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		if (!(name in n)) order[++k] = name
		i = ++n[name]
		for (f = 3; f < NF; f += 2) v[name, $(f+1), i] = $f
	}
	function median(name, unit,   a, j, m, t) {
		m = 0
		for (j = 1; j <= n[name]; j++) if ((name, unit, j) in v) a[++m] = v[name, unit, j] + 0
		if (m == 0) return "-"
		for (j = 2; j <= m; j++) { t = a[j]; for (i2 = j - 1; i2 >= 1 && a[i2] > t; i2--) a[i2+1] = a[i2]; a[i2+1] = t }
		return (m % 2) ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
	}
	END {
		printf "%-28s %6s %12s %10s %12s %9s\n", "benchmark", "runs", "median ms", "live MB", "alloc MB/op", "allocs/op"
		for (j = 1; j <= k; j++) {
			nm = order[j]
			printf "%-28s %6d %12.3f %10.1f %12.1f %9d\n", nm, n[nm], median(nm, "ns/op") / 1e6,
				median(nm, "live-MB"), median(nm, "B/op") / 1048576, median(nm, "allocs/op")
		}
	}' "$TMP/bench.txt"
fi

# peak RSS (KB) and wall time of a command, its stdout to a file
rss() {
	local label=$1
	shift
	if /usr/bin/time -v -o "$TMP/time.txt" "$@" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
		printf "%-34s peak RSS %8.1f MB  wall %s  (stdout %s bytes)\n" "$label" \
			"$(awk -F': ' '/Maximum resident/ {print $2/1024}' "$TMP/time.txt")" \
			"$(awk -F': ' '/Elapsed/ {print $2}' "$TMP/time.txt")" "$(wc -c <"$TMP/out.txt")"
	else
		echo "$label: failed: $(tail -3 "$TMP/err.txt")"
	fi
}

echo
echo "== peak memory on session $ID"
rss "correx transcript" "$TMP/correx" transcript --source "$DIR" --session "$ID"
rss "correx calls" "$TMP/correx" calls --source "$DIR" --session "$ID"
rss "correx wire (last step, anthropic)" "$TMP/correx" wire --source "$DIR" --session "$ID" --provider anthropic

# peak RSS of the TUI on the session, driven in tmux through one scenario
tui_rss() {
	local label=$1 scenario=$2 s=correx-bench-$$
	tmux new-session -d -s "$s" -x 160 -y 45 \
		"/usr/bin/time -v -o '$TMP/tui.txt' '$TMP/correx' --source '$DIR' --session '$ID'; sleep 1"
	sleep 3
	k() { tmux send-keys -t "$s" "$@"; sleep 0.3; }
	waitfor() { for _ in $(seq 240); do tmux capture-pane -p -t "$s" | grep -q "$1" && return; sleep 0.5; done; }
	k G
	sleep 2
	case $scenario in
	browse) for _ in $(seq 30); do k k; done ;;
	request) k 4; waitfor "items ·"; k Right; for _ in $(seq 20); do k j; done; k G; sleep 1; k g ;;
	panes) k 3; sleep 8; k 5; sleep 8; k 6; sleep 8 ;;
	esac
	sleep 1
	k q
	sleep 2
	tmux kill-session -t "$s" 2>/dev/null || true
	printf "%-34s peak RSS %8.1f MB\n" "$label" "$(awk -F': ' '/Maximum resident/ {print $2/1024}' "$TMP/tui.txt")"
}
if command -v tmux >/dev/null 2>&1; then
	tui_rss "TUI: browse the last calls" browse
	tui_rss "TUI: Request pane of the last step" request
	tui_rss "TUI: Wire, Compare, Pipeline" panes
else
	echo "TUI peak RSS: tmux is not installed"
fi

OC=$(find "$HOME/.cache/correx-record/npm-1.18.33/node_modules" -path '*/bin/opencode' -type f 2>/dev/null | grep -v baseline | head -1 || true)
if [ -n "$OC" ]; then
	# a neutral home whose opencode data dir is the generated store
	H=$TMP/home
	mkdir -p "$H/.local/share" "$H/.config" "$H/.cache" "$H/.local/state" "$H/proj"
	ln -s "$DIR" "$H/.local/share/opencode"
	rss "opencode export ($("$OC" --version 2>/dev/null || echo '?'))" env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin \
		XDG_DATA_HOME="$H/.local/share" XDG_CONFIG_HOME="$H/.config" XDG_CACHE_HOME="$H/.cache" \
		XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_LSP_DOWNLOAD=true \
		bash -c 'cd "$1" && exec "$2" export "$3"' _ "$H/proj" "$OC" "$ID"
	if [ -s "$TMP/out.txt" ]; then
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("   export: %d messages, %d parts" % (len(d["messages"]), sum(len(m["parts"]) for m in d["messages"])))' "$TMP/out.txt" 2>/dev/null ||
			echo "   export output is not one JSON document: $(head -c 200 "$TMP/out.txt")"
	fi
else
	echo "opencode export: no opencode binary under ~/.cache/correx-record/npm-1.18.33 (npm install opencode-ai@1.18.33 there)"
fi
