import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcpServers, pluginTools } from '../../src/mcpServers';

const declared = new Set(['read_file', 'bash']);
const folders = [{ name: 'app', path: '/w/app' }];

test('plugin tools are those package.json does not declare', () => {
  assert.deepEqual(pluginTools(['bash', 'mcp__gh__issue', 'read_file'], declared), ['mcp__gh__issue']);
});

test('by default the session is offered only while it has plugin tools', () => {
  assert.deepEqual(mcpServers('plugins', '/bin/agentls', ['bash', 'read_file'], declared, folders), []);
  assert.deepEqual(mcpServers('plugins', '/bin/agentls', ['bash', 'mcp__gh__issue'], declared, folders), [
    { label: 'agentls: app', command: '/bin/agentls', args: ['mcp', '--attach', '--dir', '/w/app'], cwd: '/w/app' },
  ]);
});

test('always and never, and no binary', () => {
  assert.equal(mcpServers('always', '/bin/agentls', [], declared, folders).length, 1);
  assert.deepEqual(mcpServers('never', '/bin/agentls', ['mcp__x__y'], declared, folders), []);
  assert.deepEqual(mcpServers('always', undefined, [], declared, folders), []);
});
