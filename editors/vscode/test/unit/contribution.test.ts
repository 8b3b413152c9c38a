import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkToolList,
  displayName,
  packageJsonWithTools,
  serverToolName,
  toContribution,
  toContributions,
  userDescription,
  type ServerTool,
} from '../../src/contribution';

const readFile: ServerTool = {
  name: 'read_file',
  description: 'Read a file as numbered lines. Open buffers are read instead of disk.',
  readOnly: true,
  inputSchema: { additionalProperties: false, properties: { path: { type: 'string' } }, required: ['path'], type: 'object' },
};
const bash: ServerTool = { name: 'bash', description: 'Run a shell command', readOnly: false, inputSchema: { type: 'object', properties: {} } };

test('a read-only tool becomes an agentls_ contribution with the schema untouched', () => {
  assert.deepEqual(toContribution(readFile), {
    name: 'agentls_read_file',
    toolReferenceName: 'read_file',
    displayName: 'Read File',
    modelDescription: readFile.description,
    userDescription: 'Read a file as numbered lines.',
    canBeReferencedInPrompt: true,
    tags: ['agentls', 'read-only'],
    inputSchema: readFile.inputSchema,
  });
});

test('a tool that changes things has no read-only tag', () => {
  assert.deepEqual(toContribution(bash).tags, ['agentls']);
  assert.equal(toContribution(bash).userDescription, 'Run a shell command');
});

test('contributions are sorted by name', () => {
  assert.deepEqual(toContributions({ tools: [readFile, bash] }).map((c) => c.name), ['agentls_bash', 'agentls_read_file']);
});

test('names map both ways', () => {
  assert.equal(serverToolName('agentls_multi_edit'), 'multi_edit');
  assert.equal(serverToolName('copilot_readFile'), undefined);
  assert.equal(displayName('code_index'), 'Code Index');
});

test('a long first sentence is clipped', () => {
  const d = userDescription('x'.repeat(300));
  assert.equal(d.length, 160);
  assert.ok(d.endsWith('…'));
});

test('a malformed tool list names the bad field', () => {
  assert.throws(() => checkToolList({}), /"tools" array/);
  assert.throws(() => checkToolList({ tools: [{ ...readFile, readOnly: 'yes' }] }), /tools\[0\]\.readOnly/);
  assert.throws(() => checkToolList({ tools: [{ ...readFile, name: 'a b' }] }), /tools\[0\]\.name/);
  assert.throws(() => checkToolList({ tools: [{ ...readFile, inputSchema: [] }] }), /tools\[0\]\.inputSchema/);
});

test('packageJsonWithTools replaces only languageModelTools and keeps key order', () => {
  const before = JSON.stringify({ name: 'agentls', contributes: { commands: [1], languageModelTools: [], configuration: {} }, scripts: {} }, null, 2) + '\n';
  const after = JSON.parse(packageJsonWithTools(before, toContributions({ tools: [bash] })));
  assert.deepEqual(Object.keys(after), ['name', 'contributes', 'scripts']);
  assert.deepEqual(Object.keys(after.contributes), ['commands', 'languageModelTools', 'configuration']);
  assert.equal(after.contributes.languageModelTools[0].name, 'agentls_bash');
  assert.equal(packageJsonWithTools(packageJsonWithTools(before, []), []), packageJsonWithTools(before, []));
});
