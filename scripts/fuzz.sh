#!/bin/sh
# Runs every fuzz target (func Fuzz… in a *_fuzz_test.go file) for TIME
# each, one after another, and prints a table: target, execs, new corpus
# entries, crash. REGEXP, when given, picks the targets by name.
#
#   scripts/fuzz.sh 30s            every target, 30 seconds each
#   scripts/fuzz.sh 10m 'Claude|Codex'
#
# FUZZ_PARALLEL (default 1) is go test's -parallel: the fuzzing workers.
# FUZZ_MINIMIZE (default 5s) is -fuzzminimizetime: each input that finds
# new coverage is minimized first, and the seeds cut from the fixtures run
# to 32 KB, which would otherwise take a worker up to a minute each.
# A crasher's input is written by go test to the package's testdata/fuzz/;
# commit it (minimized) only with the fix. The log of each run is kept in
# the directory printed at the end. Exit status 1 when a target crashed.
set -eu
cd "$(dirname "$0")/.."
time=${1:?usage: scripts/fuzz.sh TIME [REGEXP]}
pick=${2:-.}
logs=$(mktemp -d "${TMPDIR:-/tmp}/correx-fuzz-XXXXXX")
crashed=0
printf '%-28s %12s %8s  %s\n' TARGET EXECS NEW CRASH
for file in $(git ls-files --cached --others --exclude-standard '*_fuzz_test.go'); do
	pkg=./$(dirname "$file")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		echo "$target" | grep -Eq -- "$pick" || continue
		log=$logs/$target.log
		if go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$time" -parallel "${FUZZ_PARALLEL:-1}" -fuzzminimizetime "${FUZZ_MINIMIZE:-5s}" >"$log" 2>&1; then
			crash=no
		else
			crash=yes
			crashed=1
		fi
		# the last progress line: "fuzz: elapsed: 30s, execs: 123 (4/sec), new interesting: 5 (total: 60)"
		last=$(grep 'fuzz: elapsed' "$log" | tail -n 1)
		execs=$(echo "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
		new=$(echo "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
		printf '%-28s %12s %8s  %s\n' "$target" "${execs:--}" "${new:--}" "$crash"
	done
done
echo "logs: $logs"
exit $crashed
