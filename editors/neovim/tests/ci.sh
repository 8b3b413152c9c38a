#!/bin/sh
# ci.sh — the Neovim plugin's tests, as CI runs them: installs Neovim 0.10 (Debian trixie) and
# 0.12 (Debian sid) into a cache, builds agentls unless AGENTLS_BIN names a binary, and runs
# tests/run.lua headless under each version. Exits non-zero if any test fails under any version.
#
#   editors/neovim/tests/ci.sh                 # from anywhere in the repository
#   AGENTLS_BIN=/path/to/agentls editors/neovim/tests/ci.sh
#   NVIM_SUITES=sid editors/neovim/tests/ci.sh  # one version only
#
# Installs are cached under ${XDG_CACHE_HOME:-$HOME/.cache}/agentls-ci (about 30 MB each, ~15 s
# the first time, nothing afterwards).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentls-ci
suites=${NVIM_SUITES:-trixie sid}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -z "${AGENTLS_BIN:-}" ]; then
  echo "ci.sh: go build ./cmd/agentls"
  (cd "$repo" && go build -o "$tmp/agentls" ./cmd/agentls)
  AGENTLS_BIN=$tmp/agentls
fi
[ -x "$AGENTLS_BIN" ] || { echo "ci.sh: AGENTLS_BIN=$AGENTLS_BIN is not executable" >&2; exit 1; }
export AGENTLS_BIN

failed=""
for suite in $suites; do
  prefix=$cache/nvim-$suite
  "$here/install-neovim.sh" "$suite" "$prefix" >/dev/null
  version=$("$prefix/bin/nvim" --version | sed -n 1p)
  echo "ci.sh: $version ($suite): nvim --clean --headless -l tests/run.lua"
  # A private home for Neovim: no user configuration, shada, swap or state leaks in or out.
  home=$tmp/home-$suite
  mkdir -p "$home"
  if (cd "$plugin" && HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
        XDG_STATE_HOME=$home/state XDG_CACHE_HOME=$home/cache \
        timeout 600 "$prefix/bin/nvim" --clean --headless -l tests/run.lua); then
    :
  else
    failed="$failed $suite"
  fi
  # The tools backed by the editor's language servers, with a real gopls (GOPLS_BIN, else PATH;
  # skipped without one).
  echo "ci.sh: $version ($suite): nvim --clean --headless -l tests/languages.lua"
  if (cd "$plugin" && HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
        XDG_STATE_HOME=$home/state XDG_CACHE_HOME=$home/cache \
        timeout 600 "$prefix/bin/nvim" --clean --headless -l tests/languages.lua); then
    :
  else
    failed="$failed $suite(languages)"
  fi
done

if [ -n "$failed" ]; then
  echo "ci.sh: tests failed under:$failed" >&2
  exit 1
fi
echo "ci.sh: all Neovim tests passed ($suites)"
