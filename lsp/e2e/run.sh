#!/bin/sh
# Builds agentls and runs the Node end-to-end session against it:
#   lsp/e2e/run.sh            (from the repository root or anywhere)
# Needs Go and Node >= 18; installs the pinned npm dependencies (npm ci).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/agentls" ./cmd/agentls)
(cd "$here" && npm ci --no-audit --no-fund --silent)
node "$here/run.mjs" "$tmp/agentls"
