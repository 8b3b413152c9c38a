// npm run package: the .vsix for one platform, carrying the agentls binary built for it, so VS Code
// users need no Go toolchain. Usage:
//   node package.mjs [--target linux-x64|linux-arm64|darwin-x64|darwin-arm64] [--universal]
// The target defaults to this machine. The binary is $AGENTLS_BIN when set (it must be built for
// the target), else `go build ./cmd/agentls` from this repository with cgo (tree-sitter): building
// for another platform needs a C cross compiler in $CC. --universal packages no binary (the
// extension then uses agentls.path or agentls on PATH). Output: agentls-<target>.vsix
// (agentls.vsix for --universal). The repository's LICENSE goes into the package.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const args = process.argv.slice(2);
const universal = args.includes('--universal');
const goTargets = {
  'linux-x64': ['linux', 'amd64'],
  'linux-arm64': ['linux', 'arm64'],
  'darwin-x64': ['darwin', 'amd64'],
  'darwin-arm64': ['darwin', 'arm64'],
};
const host = `${process.platform}-${process.arch}`;
const ti = args.indexOf('--target');
const target = ti >= 0 ? args[ti + 1] : host;

function fail(msg) {
  console.error(`npm run package: ${msg}`);
  process.exit(1);
}
function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', ...opts });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} exited with status ${r.status}`);
}

if (!universal && !goTargets[target]) {
  fail(`unknown target ${JSON.stringify(target)}; use one of ${Object.keys(goTargets).join(', ')}, or --universal`);
}

fs.copyFileSync(path.join(repo, 'LICENSE'), path.join(here, 'LICENSE'));
const bin = path.join(here, 'bin');
fs.rmSync(bin, { recursive: true, force: true });
if (!universal) {
  fs.mkdirSync(bin);
  const out = path.join(bin, 'agentls');
  if (process.env.AGENTLS_BIN) {
    fs.copyFileSync(process.env.AGENTLS_BIN, out);
    fs.chmodSync(out, 0o755);
  } else {
    const [goos, goarch] = goTargets[target];
    if (target !== host && !process.env.CC) {
      fail(`building for ${target} on ${host} needs a C cross compiler for tree-sitter (cgo): set CC, e.g. CC=aarch64-linux-gnu-gcc`);
    }
    run('go', ['build', '-o', out, './cmd/agentls'], {
      cwd: repo,
      env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '1' },
    });
  }
}
run(process.execPath, [path.join(here, 'build.mjs'), '--production'], { cwd: here });
const vsix = universal ? 'agentls.vsix' : `agentls-${target}.vsix`;
const vsce = path.join(here, 'node_modules', '.bin', 'vsce');
run(vsce, ['package', '--no-dependencies', ...(universal ? [] : ['--target', target]), '--out', vsix], { cwd: here });
console.log(vsix);
