import assert from 'node:assert/strict';
import { test } from 'node:test';
import { block, code, confirmation, hostAllowed, invocationMessage } from '../../src/confirm';

test('read-only tools need no confirmation but have an invocation message', () => {
  assert.equal(confirmation('read_file', true, { path: 'a.go' }), undefined);
  assert.equal(invocationMessage('read_file', { path: 'src/a.go' }), 'Reading `src/a.go`');
  assert.equal(invocationMessage('grep', { pattern: 'TODO', path: 'lsp' }), 'Searching for `TODO` in `lsp`');
  assert.equal(invocationMessage('mcp__gh__issue', {}), 'Running agentls tool `mcp__gh__issue`');
});

test('bash shows the command', () => {
  const c = confirmation('bash', false, { command: 'go test ./...', description: 'run the tests' });
  assert.equal(c?.title, 'Run this command?');
  assert.equal(c?.message, 'run the tests\n\n```sh\ngo test ./...\n```');
  assert.match(confirmation('bash', false, { command: 'make', run_in_background: true })!.message, /background/);
});

test('edit_file shows the path and a summary', () => {
  const c = confirmation('edit_file', false, { path: 'a.go', old_string: 'x := 1\ny := 2\n', new_string: 'x := 3' });
  assert.equal(c?.title, 'Edit this file?');
  assert.ok(c?.message.startsWith('In `a.go`, replace one occurrence of 2 lines with 1 line:'), c?.message);
  assert.match(confirmation('edit_file', false, { path: 'a', old_string: 'a', new_string: 'b', replace_all: true })!.message, /every occurrence/);
});

test('write, multi_edit, move, delete and kill say what will happen', () => {
  assert.equal(confirmation('write_file', false, { path: 'n.txt', content: 'a\nb\n' })?.message, 'Create or replace `n.txt` with 2 lines (4 bytes).');
  assert.equal(confirmation('multi_edit', false, { path: 'm.go', edits: [{}, {}] })?.message, 'Apply 2 edits to `m.go`, all or none.');
  assert.equal(confirmation('move_file', false, { source: 'a', destination: 'b', overwrite: true })?.message, 'Move `a` to `b`, replacing what is there.');
  assert.equal(confirmation('delete_file', false, { path: 'd', recursive: true })?.message, 'Delete `d` and everything under it.');
  assert.equal(confirmation('kill_shell', false, { shell_id: 's1' })?.message, 'Stop background shell `s1` and its processes.');
  assert.equal(confirmation('notebook_edit', false, { path: 'n.ipynb', cell_number: 2, edit_mode: 'delete' })?.message, 'Delete cell `#2` of `n.ipynb`.');
});

test('an unknown tool that is not read-only shows its arguments', () => {
  const c = confirmation('mcp__x__y', false, { a: 1 });
  assert.equal(c?.title, 'Run mcp__x__y?');
  assert.match(c!.message, /```json\n\{\n {2}"a": 1\n\}\n```/);
});

test('backticks in text cannot break out of the markdown', () => {
  assert.equal(code('a`b'), '``a`b``');
  assert.equal(code('`x'), '`` `x ``');
  assert.equal(block('```\nrm -rf /\n```', 'sh'), '````sh\n```\nrm -rf /\n```\n````');
  assert.equal(invocationMessage('bash', { command: 'echo a\necho b' }), 'Running `echo a ⏎ echo b`');
});

test('missing or odd input does not throw', () => {
  for (const tool of ['bash', 'edit_file', 'write_file', 'multi_edit', 'move_file', 'delete_file', 'notebook_edit', 'kill_shell', 'x']) {
    assert.ok(confirmation(tool, false, undefined));
    assert.ok(invocationMessage(tool, null));
  }
});

test('web_fetch is confirmed, naming the host, unless the host is pre-approved', () => {
  const c = confirmation('web_fetch', true, { url: 'https://evil.example.net/x?d=1' });
  assert.equal(c?.title, 'Fetch from evil.example.net?');
  assert.match(c!.message, /`evil\.example\.net`/);
  assert.equal(confirmation('web_fetch', true, { url: 'https://docs.corp.example/a' }, ['*.corp.example']), undefined);
  assert.equal(confirmation('web_fetch', true, { url: 'https://Go.dev/doc' }, ['go.dev']), undefined);
  assert.ok(confirmation('web_fetch', true, { url: 'https://corp.example/' }, ['*.corp.example']));
  assert.ok(confirmation('web_fetch', true, { url: 'not a url' }));
});

test('hostAllowed matches exact hosts and *.domain subdomains', () => {
  const pats = ['Example.com', '*.corp.example'];
  assert.equal(hostAllowed(pats, 'example.com'), true);
  assert.equal(hostAllowed(pats, 'EXAMPLE.COM.'), true);
  assert.equal(hostAllowed(pats, 'www.example.com'), false);
  assert.equal(hostAllowed(pats, 'a.b.corp.example'), true);
  assert.equal(hostAllowed(pats, 'corp.example'), false);
  assert.equal(hostAllowed(pats, 'evilcorp.example'), false);
});
