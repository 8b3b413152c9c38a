#!/usr/bin/env bash
# The VS Code extension's whole test, as .ci/run calls it (through scripts/test.sh):
#   type check, unit tests (Node's test runner, including the package.json ↔ `agentls tools --json`
#   check), the .vsix, and the end-to-end test in a real VS Code (code-server + headless Chromium).
# AGENTLS_BIN: the server binary (built from this repository when unset).
# AGENTLS_VSCODE_SCREENSHOT: where to save the workbench screenshot (default test/.run/workbench.png).
# The code-server install is cached in ${XDG_CACHE_HOME:-$HOME/.cache}/agentls-ci/code-server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ext=$(dirname "$here")
repo=$(cd "$ext/../.." && pwd)
step() { printf -- '--- vscode: %s\n' "$*"; }

if [ -z "${AGENTLS_BIN:-}" ]; then
	step "go build ./cmd/agentls"
	mkdir -p "$here/.run"
	(cd "$repo" && go build -o "$here/.run/agentls" ./cmd/agentls)
	AGENTLS_BIN=$here/.run/agentls
fi
AGENTLS_BIN=$(cd "$(dirname "$AGENTLS_BIN")" && pwd)/$(basename "$AGENTLS_BIN")
export AGENTLS_BIN

step "install code-server, Node 24, Chromium, playwright-core (cached)"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentls-ci/code-server
eval "$("$here/install-code-server.sh" "$cache")"
export CODE_SERVER CHROMIUM PLAYWRIGHT_CORE

cd "$ext"
step "npm ci"
npm ci --no-audit --no-fund --silent
step "type check (tsc)"
npm run --silent check
step "unit tests (node --test)"
npm test --silent
step "npm run package (the platform .vsix, carrying \$AGENTLS_BIN)"
vsix=$(npm run --silent package | tail -n 1)
export AGENTLS_VSIX=$ext/$vsix
mkdir -p "$here/.run"
export E2E_VSIX=$here/.run/agentls-e2e.vsix
(cd "$here/e2e" && npx --no-install vsce package --no-dependencies --allow-missing-repository --skip-license --out "$E2E_VSIX" >/dev/null)

step "end to end in code-server $("$CODE_SERVER" --version 2>/dev/null | head -n 1)"
export SCREENSHOT=${AGENTLS_VSCODE_SCREENSHOT:-$here/.run/workbench.png}
"$NODE" "$here/run-e2e.mjs"
