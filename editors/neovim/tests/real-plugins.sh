#!/bin/sh
# real-plugins.sh DIR... — the adapters' scripted agent session (tests/scenario.lua) inside real
# checkouts of codecompanion.nvim and/or avante.nvim, to re-verify after a plugin release:
#
#   git clone https://github.com/olimorris/codecompanion.nvim /tmp/p/codecompanion.nvim
#   git clone https://github.com/yetone/avante.nvim /tmp/p/avante.nvim
#   git clone https://github.com/nvim-lua/plenary.nvim /tmp/p/plenary.nvim
#   git clone https://github.com/MunifTanjim/nui.nvim /tmp/p/nui.nvim
#   editors/neovim/tests/real-plugins.sh /tmp/p/*
#
# DIR... go on 'runtimepath' (plenary.nvim is needed by both plugins, nui.nvim by avante). Each
# plugin found is driven through its own chat and tool runner with a scripted model; one line per
# step, naming the plugin's tag and commit. A lazy.nvim checkout among them installs the
# committed state of this repository with the lazy.nvim spec of doc/agentls.txt (go build
# included) and checks that the plugin loads and its server answers. NVIM picks the Neovim
# (default: nvim on $PATH); AGENTLS_BIN the server (default: built from this repository). Nothing
# is installed: Neovim runs with a private, temporary home.
set -eu

usage="usage: real-plugins.sh DIR... (checkouts of codecompanion.nvim, avante.nvim, lazy.nvim,
       plenary.nvim, nui.nvim)"
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
nvim=${NVIM:-nvim}
command -v "$nvim" >/dev/null 2>&1 || { echo "real-plugins.sh: $nvim not found (set NVIM)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -z "${AGENTLS_BIN:-}" ]; then
  (cd "$repo" && go build -o "$tmp/agentls" ./cmd/agentls)
  AGENTLS_BIN=$tmp/agentls
fi
export AGENTLS_BIN

# The plugins under test (one Neovim each, so that two versions of one plugin can be compared) and
# what they load (everything else given).
targets=""
deps=""
for d in "$@"; do
  [ -d "$d" ] || { echo "real-plugins.sh: $d is not a directory" >&2; exit 2; }
  d=$(cd "$d" && pwd)
  if [ -d "$d/lua/codecompanion" ] || [ -d "$d/lua/avante" ] || [ -d "$d/lua/lazy" ]; then
    targets="$targets $d"
  else
    deps="$deps $d"
  fi
done
[ -n "$targets" ] || { echo "real-plugins.sh: no codecompanion.nvim or avante.nvim checkout among: $*" >&2; exit 2; }

# the lazy.nvim build compiles agentls: keep Go's caches although HOME is a temporary one
if command -v go >/dev/null 2>&1; then
  GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
  export GOPATH GOMODCACHE GOCACHE
fi

echo "real-plugins.sh: $("$nvim" --version | sed -n 1p), agentls $("$AGENTLS_BIN" --version 2>/dev/null || echo '?')"
home=$tmp/home
mkdir -p "$home"
failed=0
for target in $targets; do
  more=""
  # lazy.nvim also installs the codecompanion checkout given, with the documented spec
  [ -d "$target/lua/lazy" ] && more=$targets
  # shellcheck disable=SC2086 # deps and more are lists of absolute paths without spaces
  (cd "$plugin" && HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data \
    XDG_STATE_HOME=$home/state XDG_CACHE_HOME=$home/cache \
    timeout 600 "$nvim" --clean --headless -l tests/real_plugins.lua "$target" $deps $more) || failed=1
done
exit $failed
