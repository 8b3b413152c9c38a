#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (Debian packages, Go
# modules, npm packages, Neovim, the index's corpora) and runs vet, the Go tests with the race
# detector, the index's checks over real source trees, and the end-to-end tests against real
# clients. .ci/run calls exactly this script.
#
# scripts/test.sh --quick is the contributor's loop: go vet, go test -race -short and the LSP end to
# end (npm packages of lsp/e2e only), installing nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

step() { printf '\n=== %s\n' "$*"; }

case "${1:-}" in
--quick)
	step "go vet ./..."
	go vet ./...
	step "go test -race -short ./..."
	go test -race -short ./...
	bin="$root/.cache/bin"
	mkdir -p "$bin"
	step "go build ./cmd/agentls"
	go build -o "$bin/agentls" ./cmd/agentls
	step "LSP end-to-end (vscode-languageserver-protocol)"
	(cd lsp/e2e && npm ci --no-audit --no-fund --silent)
	node lsp/e2e/run.mjs "$bin/agentls"
	step "quick tests passed (scripts/test.sh without --quick runs everything)"
	exit 0
	;;
"") ;;
*)
	echo "usage: scripts/test.sh [--quick]" >&2
	exit 2
	;;
esac

# Debian packages the tests use: rg and ctags are the reference tools grep and the index are
# compared with; bwrap is the optional bash sandbox; emacs-nox runs the Emacs client's tests.
need=()
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v ctags >/dev/null 2>&1 || need+=(universal-ctags)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v emacs >/dev/null 2>&1 || need+=(emacs-nox)
if [ ${#need[@]} -gt 0 ]; then
	step "apt-get install ${need[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq "${need[@]}"
fi

step "go mod download"
go mod download

step "go vet ./..."
go vet ./...

step "gofmt -l (the repository's Go files)"
gofiles=$(git ls-files '*.go' 2>/dev/null || true)
unformatted=$([ -z "$gofiles" ] || gofmt -l $gofiles)
if [ -n "$unformatted" ]; then
	printf 'not gofmt-formatted (run gofmt -w on them):\n%s\n' "$unformatted" >&2
	exit 1
fi

# staticcheck from the Go module proxy, at a version that knows Go 1.26.
step "staticcheck ./..."
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

step "go test -race ./..."
go test -race -timeout 30m ./...

# The index's readers against full parses over a real source tree per language: skeletons,
# the readers that stand in for a parse (Lua, Rust, C#), the body fast path and the
# incremental queries. bench/index/corpora.sh fetches the corpora from Debian's and npm's
# packages (about 230 MB of downloads, 200 MB unpacked) into .cache/corpora, once.
corpora="$root/.cache/corpora"
if [ ! -f "$corpora/.complete" ]; then
	step "bench/index/corpora.sh .cache/corpora"
	bash bench/index/corpora.sh "$corpora"
	touch "$corpora/.complete"
fi
step "codeindex against full parses over the corpora"
AGENTLS_CORPUS="$corpora" go test -count=1 -timeout 30m \
	-run 'TestSkeletonCorpora|DefsCorpus|TestBodyFast$|TestChangedDefsMatchTree|TestWalkMatchesQuery' ./codeindex/

bin="$root/.cache/bin"
mkdir -p "$bin"
step "go build ./cmd/agentls"
go build -o "$bin/agentls" ./cmd/agentls

if [ -f lsp/e2e/package.json ]; then
	step "LSP end-to-end (vscode-languageserver-protocol)"
	(cd lsp/e2e && npm ci --no-audit --no-fund --silent)
	node lsp/e2e/run.mjs "$bin/agentls"
fi

if [ -x editors/neovim/tests/ci.sh ]; then
	# gopls is the real language server beside agentls in the editor-language-server tests.
	step "go install golang.org/x/tools/gopls@v0.23.0"
	GOBIN="$bin" go install golang.org/x/tools/gopls@v0.23.0
	step "Neovim plugin (0.10 and 0.12, headless)"
	GOPLS_BIN="$bin/gopls" AGENTLS_BIN="$bin/agentls" editors/neovim/tests/ci.sh
fi

if [ -x editors/vscode/test/ci.sh ]; then
	step "VS Code extension (unit tests and code-server end to end)"
	AGENTLS_BIN="$bin/agentls" editors/vscode/test/ci.sh
fi

if [ -x editors/emacs/tests/run.sh ]; then
	step "Emacs client (batch, $(emacs --version | head -1))"
	AGENTLS_BIN="$bin/agentls" editors/emacs/tests/run.sh
fi

step "all tests passed"
