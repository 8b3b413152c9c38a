// End-to-end test of `agentls serve` with vscode-languageserver-protocol,
// the protocol library VS Code's language client is built on.
//
//   node lsp/e2e/run.mjs /path/to/agentls
//
// (npm ci in lsp/e2e first.) It spawns the binary, initializes with VS
// Code's capabilities, and plays an editor session: an unsaved buffer seen
// by read_file and grep, an edit that arrives as a versioned applyEdit, a
// closed file edited on disk, stale edits refused, a path escape refused, a
// cancelled call answered promptly, and a clean shutdown/exit.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection, StreamMessageReader, StreamMessageWriter,
  CancellationTokenSource, ResponseError,
} from 'vscode-languageserver-protocol/node.js';

const bin = process.argv[2] || process.env.AGENTLS;
if (!bin) {
  console.error('usage: node run.mjs /path/to/agentls');
  process.exit(2);
}

const STEP_TIMEOUT = 20000;
let failures = 0;
const check = (cond, what, detail) => {
  if (cond) {
    console.log(`ok   ${what}`);
  } else {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail))}`);
  }
};
const withTimeout = (p, what, ms = STEP_TIMEOUT) => Promise.race([
  p, new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref()),
]);

// --- a workspace folder
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-e2e-')));
const file = (rel) => path.join(root, rel);
const uri = (rel) => pathToFileURL(file(rel)).href;
fs.writeFileSync(file('a.txt'), 'disk text\n');
fs.writeFileSync(file('b.txt'), 'closed file\nsecond line\n');
fs.writeFileSync(file('c.txt'), 'clean buffer\n');
fs.writeFileSync(file('d.txt'), 'refused\n');

// --- the server
const logFile = path.join(root, '..', path.basename(root) + '.log');
const proc = spawn(bin, ['--stdio', '--log', logFile, '--log-level', 'debug'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
proc.stderr.on('data', (d) => { stderr += d; });
const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));

// --- the editor's documents (JS strings are UTF-16, like VS Code's)
const docs = new Map(); // uri -> {version, text}
const offsetAt = (text, pos) => {
  let line = 0, i = 0;
  while (line < pos.line) {
    const n = text.indexOf('\n', i);
    if (n < 0) return text.length;
    i = n + 1; line++;
  }
  let end = text.indexOf('\n', i);
  if (end < 0) end = text.length;
  if (end > i && text[end - 1] === '\r') end--;
  return Math.min(i + pos.character, end);
};
const applyTextEdits = (text, edits) => {
  const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offsetAt(text, e.range.start)) + e.newText + text.slice(offsetAt(text, e.range.end));
  }
  return text;
};
const open = (rel, text) => {
  docs.set(uri(rel), { version: 1, text });
  conn.sendNotification('textDocument/didOpen', { textDocument: { uri: uri(rel), languageId: 'plaintext', version: 1, text } });
};
const type = (rel, range, text) => {
  const d = docs.get(uri(rel));
  d.text = applyTextEdits(d.text, [{ range, newText: text }]);
  d.version++;
  conn.sendNotification('textDocument/didChange', {
    textDocument: { uri: uri(rel), version: d.version }, contentChanges: [{ range, text }],
  });
};

const applyEdits = [];
let refuseNextEdit = false;
conn.onRequest('workspace/applyEdit', (p) => {
  applyEdits.push(p);
  if (refuseNextEdit) {
    refuseNextEdit = false;
    return { applied: false, failureReason: 'refused by the test' };
  }
  for (const dc of p.edit.documentChanges ?? []) {
    const d = docs.get(dc.textDocument.uri);
    if (!d || (dc.textDocument.version != null && dc.textDocument.version !== d.version)) {
      return { applied: false, failureReason: 'version mismatch' };
    }
  }
  for (const dc of p.edit.documentChanges ?? []) {
    const d = docs.get(dc.textDocument.uri);
    d.text = applyTextEdits(d.text, dc.edits);
    d.version++;
    conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: dc.textDocument.uri, version: d.version },
      contentChanges: dc.edits.map((e) => ({ range: e.range, text: e.newText })),
    });
  }
  return { applied: true };
});
const saves = [];
conn.onRequest('agentls/saveDocument', (p) => {
  saves.push(p.uri);
  const d = docs.get(p.uri);
  if (!d) return { saved: false };
  fs.writeFileSync(new URL(p.uri), d.text);
  conn.sendNotification('textDocument/didSave', { textDocument: { uri: p.uri } });
  return { saved: true };
});
const prompts = [];
conn.onRequest('window/showMessageRequest', (p) => { prompts.push(p.message); return { title: 'Allow' }; });
conn.onRequest('workspace/configuration', (p) => p.items.map(() => null));
conn.onRequest('window/workDoneProgress/create', () => null);
conn.onRequest('client/registerCapability', () => null);
const progress = [];
conn.onNotification('$/progress', (p) => progress.push(p));
conn.onNotification(() => {});
conn.listen();

const callTool = (name, args, token) => {
  const params = { command: 'agentls.callTool', arguments: [{ name, arguments: args }] };
  // With a string method, every extra argument would become a positional param.
  return token ? conn.sendRequest('workspace/executeCommand', params, token) : conn.sendRequest('workspace/executeCommand', params);
};

// VS Code's client capabilities, as far as agentls reads them.
const capabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    applyEdit: true,
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], failureHandling: 'textOnlyTransactional' },
    configuration: true,
    workspaceFolders: true,
    didChangeConfiguration: { dynamicRegistration: true },
    didChangeWatchedFiles: { dynamicRegistration: true },
    executeCommand: { dynamicRegistration: true },
  },
  textDocument: { synchronization: { dynamicRegistration: true, didSave: true } },
  window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } } },
  experimental: { agentls: { saveDocument: true } },
};

async function main() {
  const init = await withTimeout(conn.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'Visual Studio Code', version: '1.99.0' },
    rootUri: pathToFileURL(root).href,
    workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'e2e' }],
    capabilities,
    // agentls itself, standalone over MCP, as a plugin server of this folder.
    initializationOptions: { mcpServers: { self: { command: bin, args: ['mcp', '--dir', root] } } },
  }), 'initialize');
  const caps = init.capabilities;
  check(caps.positionEncoding === 'utf-16', 'initialize: positionEncoding utf-16', caps.positionEncoding);
  check(caps.textDocumentSync?.change === 2 && caps.textDocumentSync?.openClose, 'initialize: incremental sync', caps.textDocumentSync);
  for (const c of ['agentls.listTools', 'agentls.callTool', 'agentls.callTools']) {
    check(caps.executeCommandProvider?.commands?.includes(c), `initialize: command ${c} listed`);
  }
  conn.sendNotification('initialized', {});

  const list = await withTimeout(conn.sendRequest('workspace/executeCommand', { command: 'agentls.listTools', arguments: [{}] }), 'listTools');
  const names = list.tools.map((t) => t.name);
  let r;
  check(names.includes('read_file') && names.includes('edit_file') && list.digest.length === 64, 'listTools', names);

  // The plugin server's tools join the registry (they connect in the background).
  let pluginTools = [];
  for (let i = 0; i < 100 && pluginTools.length === 0; i++) {
    const l = await withTimeout(conn.sendRequest('workspace/executeCommand', { command: 'agentls.listTools', arguments: [{}] }), 'listTools');
    pluginTools = l.tools.map((t) => t.name).filter((n) => n.startsWith('mcp__self__'));
    if (pluginTools.length === 0) await new Promise((res) => setTimeout(res, 100));
  }
  check(pluginTools.includes('mcp__self__read_file'), 'plugin tools of mcpServers are listed', pluginTools.slice(0, 3));
  r = await withTimeout(callTool('mcp__self__read_file', { path: 'b.txt' }), 'plugin call');
  check(!r.isError && r.content.includes('closed file') && prompts.some((m) => m.includes('mcp__self__read_file')),
    'a plugin tool runs after the approval prompt', r);

  // An unsaved buffer: read_file and grep see it.
  open('a.txt', 'unsaved 😀 buffer\nline two\n');
  type('a.txt', { start: { line: 0, character: 10 }, end: { line: 0, character: 10 } }, '!'); // after the emoji (2 UTF-16 units)
  r = await withTimeout(callTool('read_file', { path: 'a.txt' }), 'read_file');
  check(!r.isError && r.content.includes('unsaved 😀! buffer'), 'read_file sees the unsaved buffer', r);
  r = await withTimeout(callTool('grep', { pattern: 'unsaved', output_mode: 'content' }), 'grep');
  check(!r.isError && r.content.includes('a.txt:1:unsaved'), 'grep sees the unsaved buffer', r);

  // edit_file of the open (dirty) buffer: a versioned applyEdit; not saved.
  r = await withTimeout(callTool('edit_file', { path: 'a.txt', old_string: 'line two', new_string: 'line 2' }), 'edit_file open');
  const last = applyEdits.at(-1);
  const tde = last?.edit?.documentChanges?.[0];
  check(!r.isError, 'edit_file of an open buffer succeeds', r);
  check(tde?.textDocument?.uri === uri('a.txt') && tde?.textDocument?.version === 2, 'edit arrives as applyEdit with the buffer version', last);
  check(docs.get(uri('a.txt')).text === 'unsaved 😀! buffer\nline 2\n', 'the editor buffer has the edit', docs.get(uri('a.txt')).text);
  check(fs.readFileSync(file('a.txt'), 'utf8') === 'disk text\n' && saves.length === 0, 'a dirty buffer is not saved');
  r = await withTimeout(callTool('read_file', { path: 'a.txt' }), 'read_file after edit');
  check(r.content.includes('line 2'), 'the next read_file sees the edit', r);

  // A clean open buffer is saved after the edit through agentls/saveDocument.
  open('c.txt', 'clean buffer\n');
  await withTimeout(callTool('read_file', { path: 'c.txt' }), 'read c');
  r = await withTimeout(callTool('edit_file', { path: 'c.txt', old_string: 'clean', new_string: 'saved' }), 'edit c');
  check(!r.isError && saves.includes(uri('c.txt')) && fs.readFileSync(file('c.txt'), 'utf8') === 'saved buffer\n', 'a clean buffer is saved after the edit', r);

  // A closed file is edited on disk.
  const before = applyEdits.length;
  await withTimeout(callTool('read_file', { path: 'b.txt' }), 'read b');
  r = await withTimeout(callTool('edit_file', { path: 'b.txt', old_string: 'second line', new_string: 'line 2' }), 'edit b');
  check(!r.isError && fs.readFileSync(file('b.txt'), 'utf8') === 'closed file\nline 2\n' && applyEdits.length === before, 'a closed file is edited on disk', r);

  // Stale edits are refused: the user typed after the read, or the editor refuses.
  type('c.txt', { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, 'typed ');
  r = await withTimeout(callTool('edit_file', { path: 'c.txt', old_string: 'buffer', new_string: 'text' }), 'stale edit');
  check(r.isError && docs.get(uri('c.txt')).text === 'typed saved buffer\n', 'an edit after the user typed is refused', r);
  open('d.txt', 'refused\n');
  await withTimeout(callTool('read_file', { path: 'd.txt' }), 'read d');
  refuseNextEdit = true;
  r = await withTimeout(callTool('edit_file', { path: 'd.txt', old_string: 'refused', new_string: 'changed' }), 'refused edit');
  check(r.isError && /read it again/.test(r.content), 'an edit the editor refuses is an error result', r);

  // Path escapes are refused.
  r = await withTimeout(callTool('read_file', { path: '../outside.txt' }), 'escape');
  check(r.isError, 'a path outside the folder is refused', r);

  // A malformed envelope is a JSON-RPC error.
  try {
    await withTimeout(conn.sendRequest('workspace/executeCommand', { command: 'agentls.callTool', arguments: [{ arguments: {} }] }), 'no name');
    check(false, 'a call without name is a protocol error');
  } catch (e) {
    check(e instanceof ResponseError && e.code === -32602, 'a call without name is invalid params', e.code);
  }

  // Progress on the client's workDoneToken: begin, the output bash streams, end.
  r = await withTimeout(conn.sendRequest('workspace/executeCommand', {
    command: 'agentls.callTool', arguments: [{ name: 'bash', arguments: { command: 'echo progress-line' } }], workDoneToken: 'e2e-token',
  }), 'bash with progress');
  const mine = progress.filter((p) => p.token === 'e2e-token').map((p) => p.value);
  check(!r.isError && r.content.includes('progress-line'), 'bash runs', r);
  check(mine[0]?.kind === 'begin' && mine.at(-1)?.kind === 'end', '$/progress begin … end on the workDoneToken', mine);

  // Cancellation: VS Code sends $/cancelRequest with the numeric id.
  const cts = new CancellationTokenSource();
  const started = Date.now();
  const pending = callTool('bash', { command: 'sleep 30' }, cts.token);
  setTimeout(() => cts.cancel(), 500);
  try {
    await withTimeout(pending, 'cancelled call', 10000);
    check(false, 'a cancelled call is rejected');
  } catch (e) {
    const ms = Date.now() - started;
    check(e instanceof ResponseError && e.code === -32800 && ms < 5000, `a cancelled call answers -32800 promptly (${ms} ms)`, String(e));
  }

  // A background shell; exit must end it.
  // The shell runs in the sandbox's own pid namespace, where $$ is not the
  // host's pid: find the process by its unique command line instead.
  const bgCommand = `sleep 300.${process.pid}`;
  r = await withTimeout(callTool('bash', { command: `echo started > bg.txt; exec ${bgCommand}`, run_in_background: true }), 'background bash');
  check(!r.isError, 'a background shell starts', r);
  const findPid = () => {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim() === bgCommand) return Number(d);
      } catch { /* gone */ }
    }
    return 0;
  };
  let bgPid = 0;
  for (let i = 0; i < 200 && !bgPid; i++) { // the shell execs sleep as it starts
    bgPid = findPid();
    if (!bgPid) await new Promise((res) => setTimeout(res, 25));
  }
  check(bgPid > 0, 'the background shell is running', bgPid);

  // Shutdown and exit.
  await withTimeout(conn.sendRequest('shutdown'), 'shutdown');
  conn.sendNotification('exit');
  let code;
  try {
    ({ code } = await withTimeout(exited, 'exit', 10000));
  } catch (e) {
    proc.kill('SIGQUIT'); // a Go binary prints its goroutines on stderr
    await withTimeout(exited, 'exit after SIGQUIT', 5000).catch(() => {});
    throw e;
  }
  check(code === 0, 'exit status 0 after shutdown', code);
  const logLines = fs.readFileSync(logFile, 'utf8').trim().split('\n');
  check(logLines.length > 5 && logLines.every((l) => { try { return typeof JSON.parse(l).msg === 'string'; } catch { return false; } }),
    '--log writes JSON lines', logLines.slice(0, 3));
  let alive = false;
  try { process.kill(bgPid, 0); alive = true; } catch { /* gone */ }
  check(bgPid > 0 && !alive, 'the background shell ended with the server', bgPid);
}

try {
  await main();
} catch (e) {
  failures++;
  console.log(`FAIL ${e.stack || e}`);
  proc.kill('SIGKILL');
}
conn.dispose();
fs.rmSync(root, { recursive: true, force: true });
fs.rmSync(logFile, { force: true });
if (failures > 0) {
  if (stderr) console.log('--- agentls stderr\n' + stderr);
  console.log(`${failures} failure(s)`);
  process.exit(1);
}
console.log('all e2e checks passed');
