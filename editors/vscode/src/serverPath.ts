// Finding the agentls binary: the agentls.path setting, else the binary bundled in a
// platform-specific .vsix (bin/agentls in the extension), else `agentls` on PATH, else the Go bin
// directory (`go install ./cmd/agentls` puts it there). No vscode import: the file system and
// `go env` are passed in, so the search is tested without either.

import * as path from 'node:path';

export interface PathProbe {
  /** Whether p is an executable regular file. */
  isExecutable(p: string): boolean;
  /** The directories of PATH. */
  pathDirs: string[];
  /** `go env GOBIN` and `go env GOPATH` (empty when unset or when go is missing). */
  goEnv(): { gobin: string; gopath: string };
  home: string;
  /** The extension's own directory: a platform .vsix carries bin/agentls there. */
  extensionDir?: string;
}

export interface Found {
  path?: string;
  /** Every place looked at, in order, for the message when nothing was found. */
  tried: string[];
}

/** What to do when no binary is found: steps that work without a published Go module. */
export const INSTALL_STEPS =
  'Install the agentls .vsix built for your platform (it carries the binary), or build the binary from a clone: ' +
  '`git clone https://github.com/agentls/agentls && cd agentls && go install ./cmd/agentls` ' +
  '(Go 1.26 or newer and a C compiler), or set agentls.path to a binary.';

/** The build commands of INSTALL_STEPS, for the clipboard. */
export const BUILD_COMMANDS = 'git clone https://github.com/agentls/agentls && cd agentls && go install ./cmd/agentls';

/** The binary a platform-specific .vsix carries, inside the extension's directory. */
export function bundledPath(extensionDir: string): string {
  return path.join(extensionDir, 'bin', 'agentls');
}

function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

export function findServer(configured: string, probe: PathProbe): Found {
  const tried: string[] = [];
  const check = (p: string): string | undefined => {
    tried.push(p);
    return probe.isExecutable(p) ? p : undefined;
  };
  const onPath = (name: string): string | undefined => {
    for (const dir of probe.pathDirs) {
      if (dir === '') continue;
      const hit = check(path.join(dir, name));
      if (hit) return hit;
    }
    return undefined;
  };
  const want = configured.trim();
  if (want !== '') {
    const p = expandHome(want, probe.home);
    return { path: p.includes('/') ? check(path.resolve(p)) : onPath(p), tried };
  }
  if (probe.extensionDir) {
    const bundled = check(bundledPath(probe.extensionDir));
    if (bundled) return { path: bundled, tried };
  }
  const hit = onPath('agentls');
  if (hit) return { path: hit, tried };
  const { gobin, gopath } = probe.goEnv();
  const dirs: string[] = [];
  if (gobin) dirs.push(gobin);
  for (const g of (gopath || path.join(probe.home, 'go')).split(path.delimiter)) {
    if (g) dirs.push(path.join(g, 'bin'));
  }
  for (const d of dirs) {
    const p = check(path.join(d, 'agentls'));
    if (p) return { path: p, tried };
  }
  return { tried };
}
