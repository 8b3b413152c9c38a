#!/usr/bin/env bash
# The Emacs client's tests, in batch mode against the real server.
#   AGENTLS_BIN=/path/to/agentls editors/emacs/tests/run.sh [SELECTOR]
# SELECTOR is an ERT selector regexp in Emacs syntax, e.g. 'approval\|bash' (default: every test). GPTEL_DIR, when set, is a gptel
# checkout the adapter test also registers the tools with. Needs Emacs 28 or later.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${AGENTLS_BIN:?set AGENTLS_BIN to the agentls binary}"
export AGENTLS_BIN
emacs=${EMACS:-emacs}
"$emacs" --version | head -1
# Byte-compiling catches mistakes the tests may not reach; warnings fail the run.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/../agentls.el" "$tmp/"
"$emacs" --batch -Q --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$tmp/agentls.el"
AGENTLS_TEST_SELECTOR=${1:-} exec "$emacs" --batch -Q -L "$here/.." -L "$here" -l agentls-tests \
	--eval '(ert-run-tests-batch-and-exit (let ((s (getenv "AGENTLS_TEST_SELECTOR"))) (if (member s (list nil "")) t s)))'
