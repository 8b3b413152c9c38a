#!/usr/bin/env bash
# bench/fuzz/run.sh runs every fuzz target of the module (every `func FuzzX`
# in a _test.go file), one after another, each for DURATION, with one worker
# so that it shares the machine politely.
#
#   bench/fuzz/run.sh [DURATION] [TARGET_REGEXP]
#
# DURATION is a go test -fuzztime value (default 5m); TARGET_REGEXP picks
# targets by name (default: all). A failing input is written by go test to
# the package's testdata/fuzz/<Target>/ directory, which then makes plain
# `go test` replay it; the script prints where. Logs go to
# ${FUZZ_LOG_DIR:-$TMPDIR/agentls-fuzz}/<Target>.log. The exit status is 1
# when any target found a failure or did not build.
set -u
cd "$(dirname "$0")/../.."
duration=${1:-5m}
filter=${2:-.}
logdir=${FUZZ_LOG_DIR:-${TMPDIR:-/tmp}/agentls-fuzz}
mkdir -p "$logdir"

# package directory and target name, one pair a line, sorted.
targets=$(grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . |
	grep -v '/node_modules/' |
	sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)#\1 \2#' |
	sort -u | awk -v f="$filter" '$2 ~ f')
if [ -z "$targets" ]; then
	echo "no fuzz target matches $filter" >&2
	exit 2
fi

status=0
printf '%-40s %-22s %-8s %s\n' TARGET PACKAGE RESULT DETAIL
while read -r pkg target; do
	log="$logdir/$target.log"
	start=$(date +%s)
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" -parallel=1 "./$pkg" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | awk '{print $2}')
	interesting=$(grep -oE 'new interesting: [0-9]+' "$log" | tail -1 | awk '{print $3}')
	if [ $rc -eq 0 ]; then
		printf '%-40s %-22s %-8s %ss, %s execs, %s new interesting\n' "$target" "$pkg" ok "$secs" "${execs:-?}" "${interesting:-0}"
	else
		status=1
		found=$(grep -oE 'testdata/fuzz/[^ ]+' "$log" | head -1)
		printf '%-40s %-22s %-8s %ss, see %s %s\n' "$target" "$pkg" FAIL "$secs" "$log" "${found:+(input: $pkg/$found)}"
	fi
done <<<"$targets"
exit $status
