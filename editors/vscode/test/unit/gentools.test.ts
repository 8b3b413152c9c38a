// package.json's languageModelTools must be exactly what `npm run gen-tools` writes from the
// server's tool list. The server is $AGENTLS_BIN, else built from this repository.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { agentlsBinary, extensionDir, generatedPackageJson } from '../../src/gen-tools';

test('package.json declares every agentls tool as gen-tools generates it', () => {
  const have = fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8');
  const want = generatedPackageJson(agentlsBinary());
  const names = (s: string) => JSON.parse(s).contributes.languageModelTools.map((t: { name: string }) => t.name);
  assert.deepEqual(names(have), names(want), 'the tool names differ: run `npm run gen-tools` in editors/vscode');
  assert.equal(have, want, 'a tool contribution differs: run `npm run gen-tools` in editors/vscode');
});
