#!/usr/bin/env bash
# bench/grep/run.sh: agentls grep against ripgrep, by default on Python's
# standard library (issue 19's target: a fresh `agentls call grep` at most
# 1.0x rg).
#
# For each of ten patterns it runs `agentls call -C ROOT grep JSON` and the
# same search as `rg -n --no-heading` alternately RUNS times (taking turns
# going first) with a warm
# page cache, then the same query repeated inside one process with one
# session (a running server: resident file table and content cache), and
# prints medians in seconds and the ratios to rg: wall time, then user+sys
# CPU time, which says more on a loaded machine. The last row is the
# geometric mean of each ratio over the patterns. Output of both goes to a
# file, not /dev/null (rg searches less when it sees /dev/null).
#
#   bash bench/grep/run.sh                # ROOT: Python's stdlib, RUNS=3
#   ROOT=$(go env GOROOT)/src RUNS=5 bash bench/grep/run.sh
#   NOBUILD=1 AGENTLS=/tmp/agentls-old bash bench/grep/run.sh   # another build
#   OLD=/tmp/agentls-old bash bench/grep/run.sh   # and an older build in the same turns
#
# With OLD, the build OLD names runs in every turn too (agentls, rg and
# OLD take turns going first), and each row ends with OLD's wall and CPU
# ratios to rg: an interleaved old/new comparison at the same load.
#
# ROOT defaults to the first of /tmp/agentls-corpora/python (made by
# bench/index/corpora.sh, __pycache__ and static libraries left out) and
# /usr/lib/python3.*; failing both, Go's source tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${ROOT:-}" ]; then
	for d in /tmp/agentls-corpora/python /usr/lib/python3.*; do
		if [ -f "$d/os.py" ]; then
			ROOT=$d
			break
		fi
	done
	ROOT=${ROOT:-$(go env GOROOT)/src}
fi
RUNS=${RUNS:-3}
AGENTLS=${AGENTLS:-/tmp/agentls-bench}
GREPBENCH=${GREPBENCH:-/tmp/agentls-grepbench}
OLD=${OLD:-}
command -v rg >/dev/null || { echo "rg not found: apt-get install -y ripgrep" >&2; exit 2; }
if [ -z "${NOBUILD:-}" ]; then # NOBUILD=1: measure the binaries AGENTLS and GREPBENCH name
	go build -o "$AGENTLS" ./cmd/agentls
	go build -o "$GREPBENCH" ./bench/grep
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# class|pattern|extra rg flags|extra JSON
classes=(
	'literal|raise ValueError||'
	'many-matches|self||'
	'regex-literal|def \w+\(self, \w+\)||'
	'case-insensitive|not implemented|-i|,"case_insensitive":true'
	'alternation|TypeError|KeyError|IndexError||'
	'no-literal|[A-Z]{4,}[0-9]{2,}||'
	'word|\bos\.path\b||'
	'fixed-strings|os.path.join(|-F|,"fixed_strings":true'
	'no-match|zzyzx_frobnicate||'
	'files-with-matches|import re|-l|,"output_mode":"files_with_matches"'
)

TIMEFORMAT='%R %U %S'
# timed CMD...: "wall cpu" seconds of CMD (output to $out)
timed() { { time "$@" >"$out" 2>/dev/null; } 2>&1 | awk '{printf "%s %.3f\n", $1, $2 + $3}'; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }
json_string() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
ratio() { awk "BEGIN{printf \"%.4f\", ($2 > 0 ? $1 / $2 : 0)}"; }

# Warm the page cache.
rg -c --no-messages zzzzzz "$ROOT" >/dev/null || true

echo "ROOT=$ROOT RUNS=$RUNS  $(date -u +%FT%TZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  cpus: $(nproc)"
printf '%-18s %8s %8s %6s %9s %6s   %s%s\n' class agentls rg ratio in-server ratio 'cpu: agentls rg ratio in-server' "${OLD:+   old: wall cpu (ratios to rg)}"
printf '%-18s %8s %8s %6s %9s %6s   %s\n' '' '(wall s)' '' '' '' '' '(user+sys s)'

# Process start: the same call on an empty folder (what every fresh call
# pays before it searches: runtime, package inits, registry, settings).
# turns CMD_A CMD_R [CMD_O]: RUNS turns of the two (three with OLD) commands,
# each given as the name of an array; who goes first rotates, so that none
# always runs right after another (and its cache, frequency or neighbours'
# load). Sets ta/ca, tr/cr, to/co: wall and CPU seconds of each run.
turns() {
	local -n _a=$1 _r=$2
	local n=2 i k w c
	ta=() ca=() tr=() cr=() to=() co=()
	[ -n "$OLD" ] && n=3
	for i in $(seq "$RUNS"); do
		for k in $(seq 0 $((n - 1))); do
			case $(((i + k) % n)) in
			0)
				read -r w c < <(timed "${_a[@]}")
				ta+=("$w") ca+=("$c")
				;;
			1)
				read -r w c < <(timed "${_r[@]}")
				tr+=("$w") cr+=("$c")
				;;
			2)
				local -n _o=$3
				read -r w c < <(timed "${_o[@]}")
				to+=("$w") co+=("$c")
				;;
			esac
		done
	done
}
# oldcols: OLD's wall and CPU ratios to rg (medians of to/co against mr/mcr).
oldcols() {
	[ -z "$OLD" ] && return
	local mo mco
	mo=$(printf '%s\n' "${to[@]}" | median)
	mco=$(printf '%s\n' "${co[@]}" | median)
	printf '   old: %5.2f %5.2f' "$(ratio "$mo" "$mr")" "$(ratio "$mco" "$mcr")"
}

empty=$(mktemp -d)
# shellcheck disable=SC2034 # used through turns' namerefs
cmd_a=("$AGENTLS" call -C "$empty" grep '{"pattern":"x"}') cmd_r=(rg -n --no-heading -e x "$empty") cmd_o=("$OLD" call -C "$empty" grep '{"pattern":"x"}')
turns cmd_a cmd_r cmd_o
rmdir "$empty"
ma=$(printf '%s\n' "${ta[@]}" | median)
mr=$(printf '%s\n' "${tr[@]}" | median)
mca=$(printf '%s\n' "${ca[@]}" | median)
mcr=$(printf '%s\n' "${cr[@]}" | median)
printf '%-18s %8.3f %8.3f %6.2f %9s %6s   %6.3f %6.3f %5.2f %6s%s\n' 'start (empty dir)' "$ma" "$mr" "$(ratio "$ma" "$mr")" '' '' "$mca" "$mcr" "$(ratio "$mca" "$mcr")" '' "$(oldcols)"

# rg runs in ROOT (its paths are then relative, as agentls prints them);
# it was run through a subshell that did the cd, whose fork was counted
# in rg's time, ~1-2 ms of CPU a run: the shell moves there instead.
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
AGENTLS=$(abs "$AGENTLS") GREPBENCH=$(abs "$GREPBENCH") ROOT=$(abs "$ROOT")
[ -n "$OLD" ] && OLD=$(abs "$OLD")
cd "$ROOT"
logs=() # "ln(fresh) ln(server) ln(cpu)" per pattern
for c in "${classes[@]}"; do
	name=${c%%|*}
	rest=${c#*|}
	extra_json=${rest##*|}
	rest=${rest%|*}
	rgflag=${rest##*|}
	pattern=${rest%|*}
	json="{\"pattern\":$(json_string "$pattern")$extra_json}"
	cmd_a=("$AGENTLS" call -C "$ROOT" grep "$json") cmd_o=("$OLD" call -C "$ROOT" grep "$json")
	# shellcheck disable=SC2206 # rgflag is one flag or none
	cmd_r=(rg -n --no-heading $rgflag -e "$pattern")
	turns cmd_a cmd_r cmd_o
	ma=$(printf '%s\n' "${ta[@]}" | median)
	mr=$(printf '%s\n' "${tr[@]}" | median)
	mca=$(printf '%s\n' "${ca[@]}" | median)
	mcr=$(printf '%s\n' "${cr[@]}" | median)
	server=$("$GREPBENCH" -C "$ROOT" -q -warmup 2 -repeat $((RUNS + 2)) "$json" 2>&1)
	ms=$(awk '{print $1}' <<<"$server" | median)
	mcs=$(awk '{print $2}' <<<"$server" | median)
	fresh=$(ratio "$ma" "$mr")
	inserver=$(ratio "$ms" "$mr")
	cpu=$(ratio "$mca" "$mcr")
	oldw=1 oldc=1
	if [ -n "$OLD" ]; then
		oldw=$(ratio "$(printf '%s\n' "${to[@]}" | median)" "$mr")
		oldc=$(ratio "$(printf '%s\n' "${co[@]}" | median)" "$mcr")
	fi
	logs+=("$(awk "BEGIN{print log($fresh), log($inserver), ($cpu > 0 ? log($cpu) : 0), log($oldw), ($oldc > 0 ? log($oldc) : 0)}")")
	printf '%-18s %8.3f %8.3f %6.2f %9.3f %6.2f   %6.3f %6.3f %5.2f %6.3f%s\n' "$name" "$ma" "$mr" \
		"$fresh" "$ms" "$inserver" "$mca" "$mcr" "$cpu" "$mcs" "$(oldcols)"
done
printf '%s\n' "${logs[@]}" | awk -v old="$OLD" '{f+=$1; s+=$2; c+=$3; ow+=$4; oc+=$5} END {
	printf "%-18s %8s %8s %6.2f %9s %6.2f   %6s %6s %5.2f", "geo-mean", "", "", exp(f/NR), "", exp(s/NR), "", "", exp(c/NR)
	if (old != "") printf " %6s   old: %5.2f %5.2f", "", exp(ow/NR), exp(oc/NR)
	printf "\n"
}'
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
