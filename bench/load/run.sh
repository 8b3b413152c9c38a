#!/usr/bin/env bash
# bench/load/run.sh: load on `agentls serve --stdio` over real pipes —
# concurrent read-only tool calls while a buffer receives a stream of
# didChange notifications, then sequential edits. Prints calls/s and
# p50/p99 latencies (see bench/load/main.go).
#
#   bash bench/load/run.sh                      # 1000 calls, 10000 changes
#   bash bench/load/run.sh -calls 5000 -files 10000
set -euo pipefail
cd "$(dirname "$0")/../.."
AGENTLS=${AGENTLS:-${TMPDIR:-/tmp}/agentls-load-bin}
go build -o "$AGENTLS" ./cmd/agentls
go run ./bench/load -bin "$AGENTLS" "$@"
