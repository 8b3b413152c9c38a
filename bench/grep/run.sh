#!/usr/bin/env bash
# bench/grep/run.sh: agentls grep against ripgrep on Go's source tree.
#
# For each pattern class it runs `agentls call -C ROOT grep JSON` and the same
# `rg -n --no-heading` alternately RUNS times with a warm page cache, then the
# same query repeated inside one process with one session (a running
# server: resident file table and content cache), and prints medians in
# seconds and the ratios to rg: wall time, then user+sys CPU time, which
# says more on a loaded machine. Output of both goes to a file, not
# /dev/null (rg searches less when it sees /dev/null).
#
#   bash bench/grep/run.sh            # ROOT=$(go env GOROOT)/src RUNS=11
#   ROOT=~/src/linux RUNS=5 bash bench/grep/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=${ROOT:-$(go env GOROOT)/src}
RUNS=${RUNS:-11}
AGENTLS=${AGENTLS:-/tmp/agentls-bench}
GREPBENCH=${GREPBENCH:-/tmp/agentls-grepbench}
command -v rg >/dev/null || { echo "rg not found: apt-get install -y ripgrep" >&2; exit 2; }
go build -o "$AGENTLS" ./cmd/agentls
go build -o "$GREPBENCH" ./bench/grep
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# class|pattern|extra rg flag|extra JSON
classes=(
	'literal|func Errorf||'
	'regex-literal|func \(\w+ \*?Reader\) Read||'
	'case-insensitive|readall|-i|,"case_insensitive":true'
	'alternation|ErrUnexpectedEOF|ErrShortWrite|ErrNoProgress||'
	'no-literal|[A-Z]{4,}[0-9]{2,}||'
	'many-matches|err||'
)

TIMEFORMAT='%R %U %S'
# timed CMD...: "wall cpu" seconds of CMD (output to $out)
timed() { { time "$@" >"$out" 2>/dev/null; } 2>&1 | awk '{printf "%s %.3f\n", $1, $2 + $3}'; }
rgin() { (cd "$ROOT" && rg "$@" || true); }
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }
json_string() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

# Warm the page cache.
rg -c --no-messages zzzzzz "$ROOT" >/dev/null || true

echo "ROOT=$ROOT RUNS=$RUNS  $(date -u +%FT%TZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  cpus: $(nproc)"
printf '%-17s %9s %9s %6s %10s %6s   %s\n' class agentls rg ratio in-server ratio 'cpu: agentls rg in-server'
printf '%-17s %9s %9s %6s %10s %6s   %s\n' '' '(wall s)' '' '' '' '' '(user+sys s)'

# Process start: the same call on an empty folder (what every fresh call
# pays before it searches: runtime, registry, settings; schemas compile at a
# tool's first call only).
empty=$(mktemp -d)
sa=() sr=()
for _ in $(seq "$RUNS"); do
	read -r w c < <(timed "$AGENTLS" call -C "$empty" grep '{"pattern":"x"}')
	sa+=("$w")
	read -r w c < <(timed rg -n --no-heading -e x "$empty")
	sr+=("$w")
done
rmdir "$empty"
printf '%-17s %9.3f %9.3f\n' 'start (empty dir)' "$(printf '%s\n' "${sa[@]}" | median)" "$(printf '%s\n' "${sr[@]}" | median)"

for c in "${classes[@]}"; do
	name=${c%%|*}
	rest=${c#*|}
	extra_json=${rest##*|}
	rest=${rest%|*}
	rgflag=${rest##*|}
	pattern=${rest%|*}
	json="{\"pattern\":$(json_string "$pattern")$extra_json}"
	ta=() tr=() ca=() cr=()
	for _ in $(seq "$RUNS"); do
		read -r w c < <(timed "$AGENTLS" call -C "$ROOT" grep "$json")
		ta+=("$w") ca+=("$c")
		read -r w c < <(timed rgin -n --no-heading $rgflag -e "$pattern")
		tr+=("$w") cr+=("$c")
	done
	ma=$(printf '%s\n' "${ta[@]}" | median)
	mr=$(printf '%s\n' "${tr[@]}" | median)
	mca=$(printf '%s\n' "${ca[@]}" | median)
	mcr=$(printf '%s\n' "${cr[@]}" | median)
	server=$("$GREPBENCH" -C "$ROOT" -q -warmup 2 -repeat $((RUNS + 2)) "$json" 2>&1)
	ms=$(awk '{print $1}' <<<"$server" | median)
	mcs=$(awk '{print $2}' <<<"$server" | median)
	printf '%-17s %9.3f %9.3f %6.2f %10.3f %6.2f   %6.3f %6.3f %6.3f\n' "$name" "$ma" "$mr" \
		"$(awk "BEGIN{print $ma / $mr}")" "$ms" "$(awk "BEGIN{print $ms / $mr}")" "$mca" "$mcr" "$mcs"
done
