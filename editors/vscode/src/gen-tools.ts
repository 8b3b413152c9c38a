// npm run gen-tools: rewrites contributes.languageModelTools in package.json from the server's
// tool list as an editor session that offers its language servers sees it (`agentls tools --json
// --editor`). The binary is $AGENTLS_BIN, else built from this repository with `go build`.
// `--check` only compares and exits 1 when package.json differs.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageJsonWithTools, toContributions } from './contribution';

/** The extension folder: the nearest folder above this file (bundled into out/ or out/test/) whose package.json is this extension's. */
export const extensionDir = findExtensionDir(__dirname);

function findExtensionDir(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (pkg.name === 'agentls' && pkg.publisher === 'agentls') return dir;
    } catch {
      // no package.json here
    }
    if (path.dirname(dir) === dir) throw new Error(`gen-tools: no agentls extension folder above ${from}`);
  }
}

/** The agentls binary: $AGENTLS_BIN, or one built from the repository into a temporary folder. */
export function agentlsBinary(): string {
  const env = process.env.AGENTLS_BIN;
  if (env) return path.resolve(env);
  const repo = path.resolve(extensionDir, '..', '..');
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-gen-')), 'agentls');
  execFileSync('go', ['build', '-o', out, './cmd/agentls'], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
  return out;
}

/** package.json as gen-tools would write it. */
export function generatedPackageJson(bin: string): string {
  // Run in a temporary empty folder: the tool list does not depend on the folder.
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-gen-ws-'));
  try {
    const list = JSON.parse(execFileSync(bin, ['tools', '--json', '--editor'], { cwd, encoding: 'utf8' }));
    const current = fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8');
    return packageJsonWithTools(current, toContributions(list));
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

function main(): void {
  const file = path.join(extensionDir, 'package.json');
  const want = generatedPackageJson(agentlsBinary());
  const have = fs.readFileSync(file, 'utf8');
  if (process.argv.includes('--check')) {
    if (want !== have) {
      console.error('package.json: contributes.languageModelTools differs from `agentls tools --json`; run npm run gen-tools');
      process.exit(1);
    }
    console.log('package.json: languageModelTools up to date');
    return;
  }
  if (want === have) {
    console.log('package.json: languageModelTools up to date');
    return;
  }
  fs.writeFileSync(file, want);
  console.log(`package.json: wrote ${JSON.parse(want).contributes.languageModelTools.length} languageModelTools`);
}

if (require.main === module) {
  main();
}
