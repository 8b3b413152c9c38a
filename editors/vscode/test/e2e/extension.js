// Test-only extension: on activation it drives the agentls extension through VS Code's own APIs
// (vscode.lm, workspace edits, commands) and writes a JSON report to the path in the setting
// agentlsE2E.report. Every wait polls a condition with a bound; nothing sleeps to synchronise.
'use strict';
const vscode = require('vscode');
const fs = require('node:fs');
const path = require('node:path');

/** Polls cond every 50 ms until it returns a truthy value; throws after ms. */
async function until(what, cond, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function text(result) {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

function invoke(name, input, token) {
  return vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token).then(text);
}

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function run(report) {
  const folder = vscode.workspace.workspaceFolders?.[0];
  check(folder, 'no workspace folder is open');
  const root = folder.uri.fsPath;
  // Each check is bounded: one that hangs fails after 60 s and the next one runs.
  const step = async (name, fn) => {
    const t0 = Date.now();
    let timer;
    const bound = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name}: no answer after 60 s`)), 60000);
    });
    try {
      const detail = await Promise.race([fn(), bound]);
      report.checks.push({ name, ok: true, ms: Date.now() - t0, detail: detail ?? '' });
    } catch (err) {
      report.checks.push({ name, ok: false, ms: Date.now() - t0, detail: String(err && err.stack ? err.stack : err) });
    } finally {
      clearTimeout(timer);
    }
    writeReport(report, false);
  };

  const ext = vscode.extensions.getExtension('agentls.agentls');
  check(ext, 'the agentls extension is not installed');
  let api;
  await step('server starts', async () => {
    api = await ext.activate();
    await api.whenRunning(60000);
    return `pid ${api.pid}`;
  });
  if (!api || api.state !== 'running') return;

  // agentls.path is unset: the binary inside the platform .vsix is the one running.
  await step('the server is the binary bundled in the .vsix', async () => {
    const exe = fs.readlinkSync(`/proc/${api.pid}/exe`);
    const bundled = path.join(ext.extensionPath, 'bin', 'agentls');
    check(exe === fs.realpathSync(bundled), `the server runs ${exe}, not the bundled ${bundled}`);
    return exe;
  });

  await step('vscode.lm.tools holds every agentls tool', async () => {
    const declared = ext.packageJSON.contributes.languageModelTools.map((t) => t.name).sort();
    const server = (await api.listTools()).tools.filter((t) => !t.name.startsWith('mcp__')).map((t) => 'agentls_' + t.name).sort();
    check(JSON.stringify(declared) === JSON.stringify(server), `package.json declares ${declared} but the server lists ${server}`);
    const have = await until('the agentls tools in vscode.lm.tools', () => {
      const names = new Set(vscode.lm.tools.map((t) => t.name));
      return declared.every((n) => names.has(n)) && names;
    });
    report.tools = [...have].filter((n) => n.startsWith('agentls_')).sort();
    const rf = vscode.lm.tools.find((t) => t.name === 'agentls_read_file');
    check(rf.tags.includes('read-only'), 'agentls_read_file is not tagged read-only');
    return `${report.tools.length} tools`;
  });

  const dirtyPath = path.join(root, 'notes.txt');
  const cleanPath = path.join(root, 'clean.txt');
  let dirtyDoc;
  await step('read_file sees an unsaved change', async () => {
    dirtyDoc = await vscode.workspace.openTextDocument(vscode.Uri.file(dirtyPath));
    await vscode.window.showTextDocument(dirtyDoc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(dirtyDoc.uri, new vscode.Position(0, 0), 'UNSAVED by the user\n');
    check(await vscode.workspace.applyEdit(edit), 'applyEdit refused');
    check(dirtyDoc.isDirty, 'the document is not dirty after applyEdit');
    check(!fs.readFileSync(dirtyPath, 'utf8').includes('UNSAVED'), 'the unsaved change reached the disk');
    const edited = Date.now();
    const out = await until('read_file to return the unsaved text', async () => {
      const t = await invoke('agentls_read_file', { path: 'notes.txt' });
      return t.includes('UNSAVED by the user') && t;
    }, 20000);
    return `${out.split('\n')[0]} (read ${Date.now() - edited} ms after the edit)`;
  });

  await step('edit_file of a dirty buffer edits the buffer and does not save it', async () => {
    const out = await invoke('agentls_edit_file', { path: 'notes.txt', old_string: 'second line', new_string: 'second line, edited by the agent' });
    check(!out.startsWith('Error'), `edit_file failed: ${out}`);
    await until('the edit in the editor buffer', () => dirtyDoc.getText().includes('edited by the agent'));
    check(dirtyDoc.getText().includes('UNSAVED by the user'), 'the user\'s unsaved change was lost');
    check(dirtyDoc.isDirty, 'the buffer with the user\'s changes was saved');
    check(!fs.readFileSync(dirtyPath, 'utf8').includes('edited by the agent'), 'the edit reached the disk');
    return out;
  });

  await step('edit_file of a clean open file edits the buffer and saves it', async () => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(cleanPath));
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    check(!doc.isDirty, 'clean.txt starts dirty');
    await invoke('agentls_read_file', { path: 'clean.txt' });
    const out = await invoke('agentls_edit_file', { path: 'clean.txt', old_string: 'alpha', new_string: 'omega' });
    check(!out.startsWith('Error'), `edit_file failed: ${out}`);
    await until('the edit in the editor buffer', () => doc.getText().includes('omega'));
    await until('the buffer to be saved', () => !doc.isDirty && fs.readFileSync(cleanPath, 'utf8').includes('omega'));
    return out;
  });

  await step('a tool error comes back as text', async () => {
    const out = await invoke('agentls_read_file', { path: 'no/such/file.txt' });
    check(out.startsWith('Error from read_file:'), `want an error text, got: ${out}`);
    return out;
  });

  // The tools backed by VS Code's own language features (here its built-in TypeScript support).
  const src = (name) => vscode.Uri.file(path.join(root, 'src', name));
  await step('diagnostics: the TypeScript errors of a file', async () => {
    const doc = await vscode.workspace.openTextDocument(src('broken.ts'));
    await vscode.window.showTextDocument(doc, { preview: false });
    await until('TypeScript diagnostics of broken.ts', () => vscode.languages.getDiagnostics(doc.uri).length >= 2, 60000);
    const out = await invoke('agentls_diagnostics', { path: 'src/broken.ts' });
    check(/src\/broken\.ts:1:\d+: error \[ts 2304\] Cannot find name 'shout'/.test(out), `diagnostics: ${out}`);
    check(/src\/broken\.ts:2:14: error \[ts 2322\]/.test(out), `diagnostics: ${out}`);
    return out;
  });

  await step('code_nav: references across files, without agentls\'s own index', async () => {
    const doc = await vscode.workspace.openTextDocument(src('greeter.ts'));
    await vscode.window.showTextDocument(doc, { preview: false });
    const out = await until('references of Greeter from the TypeScript server', async () => {
      const t = await invoke('agentls_code_nav', { action: 'references', path: 'src/greeter.ts', line: 1, symbol: 'Greeter' });
      return t.includes('src/use.ts:3:') && t;
    }, 60000);
    check(out.includes('src/greeter.ts:1: export class Greeter {'), `references: ${out}`);
    check(out.split('\n').filter((l) => l.startsWith('src/use.ts:')).length === 2, `want the import and the use in use.ts: ${out}`);
    const hover = await invoke('agentls_code_nav', { action: 'hover', path: 'src/use.ts', line: 3, symbol: 'hello' });
    check(hover.includes('Greeter.hello(): string'), `hover: ${hover}`);
    return out;
  });

  await step('code_action: add the missing import', async () => {
    const list = await until('a quick fix for shout', async () => {
      const t = await invoke('agentls_code_action', { path: 'src/broken.ts', line: 1, only: 'quickfix' });
      return /Add import from "\.\/util"/.test(t) && t;
    }, 60000);
    const n = /\n(\d+)\. Add import from "\.\/util"/.exec(list)[1];
    const out = await invoke('agentls_code_action', { path: 'src/broken.ts', line: 1, apply: n });
    check(out.startsWith('Applied'), `apply: ${out}`);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === src('broken.ts').fsPath);
    await until('the import in broken.ts', () => /import \{ shout \} from ["']\.\/util["']/.test(doc.getText()));
    check((doc.getText().match(/import \{ shout \}/g) ?? []).length === 1, `the import is there more than once:\n${doc.getText()}`);
    return out;
  });

  await step('rename_symbol: a class across files, one undo step', async () => {
    await invoke('agentls_read_file', { path: 'src/use.ts' });
    const out = await invoke('agentls_rename_symbol', { path: 'src/greeter.ts', line: 1, symbol: 'Greeter', new_name: 'Welcomer' });
    check(out.startsWith('Renamed Greeter to Welcomer'), `rename: ${out}`);
    check(out.includes('src/greeter.ts: 1 edit') && out.includes('src/use.ts: 2 edits'), `rename files: ${out}`);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === src('greeter.ts').fsPath);
    await until('Welcomer in greeter.ts', () => doc.getText().includes('export class Welcomer'));
    await until('Welcomer in use.ts', () => fs.readFileSync(src('use.ts').fsPath, 'utf8').includes('new Welcomer()') || vscode.workspace.textDocuments.some((d) => d.uri.fsPath === src('use.ts').fsPath && d.getText().includes('new Welcomer()')));
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand('undo');
    await until('one undo to restore Greeter', () => doc.getText().includes('export class Greeter'));
    await vscode.commands.executeCommand('redo');
    return out;
  });

  await step('editor_state: the active editor and a selection', async () => {
    const doc = await vscode.workspace.openTextDocument(src('greeter.ts'));
    const ed = await vscode.window.showTextDocument(doc, { preview: false });
    ed.selection = new vscode.Selection(new vscode.Position(1, 2), new vscode.Position(1, 7));
    const out = await invoke('agentls_editor_state', {});
    check(out.includes('Active: src/greeter.ts, cursor at line 2 column 8'), `editor_state: ${out}`);
    check(out.includes('Selection: lines 2:3 to 2:8') && out.includes('hello'), `editor_state: ${out}`);
    check(/- src\/broken\.ts \[typescript\]/.test(out), `editor_state: ${out}`);
    return out;
  });

  await step('agentls.approval reaches the server (deny)', async () => {
    const out = await invoke('agentls_write_file', { path: 'denied.txt', content: 'x' });
    check(out.includes('denied by the user\'s settings'), `write_file with approval deny: ${out}`);
    check(!fs.existsSync(path.join(root, 'denied.txt')), 'denied.txt was written');
    return out;
  });

  await step('cancelling a call stops it', async () => {
    const isSleep = () => {
      try {
        return fs.readdirSync('/proc').some((p) => {
          try {
            return /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u000037\u0000';
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    };
    const cts = new vscode.CancellationTokenSource();
    const call = invoke('agentls_bash', { command: 'sleep 37' }, cts.token).then(
      (t) => ({ settled: 'result', text: t }),
      (e) => ({ settled: 'error', text: String(e) }),
    );
    // Cancel once the server runs the command (a process `sleep 37`).
    await until('the command to start', isSleep, 10000);
    const t0 = Date.now();
    cts.cancel();
    const r = await call;
    const ms = Date.now() - t0;
    check(ms < 5000, `the cancelled call took ${ms} ms to settle`);
    await until('the command to be killed', () => !isSleep(), 5000);
    return `${r.settled} ${ms} ms after the cancel: ${r.text.slice(0, 120)}`;
  });

  await step('the server restarts after a crash', async () => {
    const old = api.pid;
    process.kill(old, 'SIGKILL');
    await until('a new server process', () => api.state === 'running' && api.pid && api.pid !== old, 30000);
    const out = await invoke('agentls_ls', {});
    check(out.includes('notes.txt'), `ls after the restart: ${out}`);
    return `pid ${old} → ${api.pid}`;
  });

  await step('agentls: Restart Server', async () => {
    const old = api.pid;
    await vscode.commands.executeCommand('agentls.restartServer');
    await api.whenRunning(30000);
    check(api.pid !== old, 'the same server process is still running');
    const out = await invoke('agentls_grep', { pattern: 'omega' });
    check(out.includes('clean.txt'), `grep after the restart: ${out}`);
    return `pid ${old} → ${api.pid}`;
  });

  await step('agentls: Show Index Status', async () => {
    await vscode.commands.executeCommand('agentls.showIndexStatus');
    let s;
    try {
      s = await api.indexStatus();
    } catch (err) {
      check(/unknown command/.test(err.message), `agentls.indexStatus failed: ${err.message}`);
      return `the server has no agentls.indexStatus yet: ${err.message}`;
    }
    check(['indexing', 'ready'].includes(s.state) && typeof s.files === 'number' && typeof s.symbols === 'number', `indexStatus: ${JSON.stringify(s)}`);
    return JSON.stringify(s);
  });

  await step('MCP: agentls mcp --attach reads the editor buffers', async () => {
    check(typeof vscode.lm.registerMcpServerDefinitionProvider === 'function', 'vscode.lm.registerMcpServerDefinitionProvider is missing');
    // The settings add a plugin (mcp__self__*): with plugin tools the session is offered by default.
    const plugins = await until('the plugin tools in agentls.listTools', async () => {
      const names = (await api.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('mcp__self__'));
      return names.length > 0 && names;
    }, 30000);
    const byDefault = api.mcpServers();
    check(byDefault.length === 1, `with plugin tools (${plugins}) one MCP server is offered, got ${JSON.stringify(byDefault)}`);
    check(api.mcpServers('never').length === 0, 'agentls.mcpProvider never still offers a server');
    const defs = api.mcpServers('always');
    check(defs.length === 1 && defs[0].args.join(' ') === `mcp --attach --dir ${root}`, `definitions: ${JSON.stringify(defs)}`);
    const text = await mcpReadFile(defs[0], 'notes.txt');
    check(text.includes('UNSAVED by the user') && text.includes('edited by the agent'), `read_file over MCP: ${text}`);
    return `${plugins.length} plugin tools; ${defs[0].label}: ${text.split('\n')[0]}`;
  });

  await step('agentls: Run Tool… runs bash with progress (workDoneToken)', async () => {
    const out = await vscode.commands.executeCommand('agentls.runTool', 'bash', { command: 'for i in 1 2 3; do echo tick$i; done' });
    check(typeof out === 'string' && out.includes('tick3'), `runTool bash: ${out}`);
    return out;
  });

  await step('agentls: Run Tool… shows the result in the agentls output', async () => {
    const out = await vscode.commands.executeCommand('agentls.runTool', 'grep', { pattern: 'edited by the agent|UNSAVED', output_mode: 'content' });
    check(typeof out === 'string' && out.includes('notes.txt:'), `runTool result: ${out}`);
    await vscode.window.showTextDocument(dirtyDoc, { preserveFocus: false });
    await vscode.commands.executeCommand('agentls.runTool', 'grep', { pattern: 'edited by the agent|UNSAVED', output_mode: 'content' });
    return out;
  });
}

/** Runs an MCP server definition and calls read_file through it (newline-delimited JSON-RPC). */
function mcpReadFile(def, file) {
  const { spawn } = require('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(def.command, def.args, { cwd: def.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => finish(new Error(`no tools/call answer after 20 s; stderr: ${err}`)), 20000);
    const finish = (e, v) => {
      clearTimeout(timer);
      child.kill();
      e ? reject(e) : resolve(v);
    };
    child.on('error', (e) => finish(e));
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
        const line = out.slice(0, i);
        out = out.slice(i + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file', arguments: { path: file } } });
        } else if (msg.id === 2) {
          if (msg.error) finish(new Error(JSON.stringify(msg.error)));
          else finish(undefined, (msg.result.content || []).map((c) => c.text || '').join(''));
        }
      }
    });
    const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agentls-e2e', version: '0' } } });
  });
}

async function activate() {
  const report = { vscode: vscode.version, checks: [], tools: [], done: false };
  try {
    await run(report);
  } catch (err) {
    report.checks.push({ name: 'run', ok: false, detail: String(err && err.stack ? err.stack : err) });
  }
  report.done = true;
  report.ok = report.checks.length > 0 && report.checks.every((c) => c.ok);
  writeReport(report, true);
}

/** The final report at the path of agentlsE2E.report; the checks so far at PATH.partial. */
function writeReport(report, final) {
  const reportPath = vscode.workspace.getConfiguration('agentlsE2E').get('report');
  if (!reportPath) return;
  const file = final ? reportPath : reportPath + '.partial';
  fs.writeFileSync(file + '.tmp', JSON.stringify(report, null, 2));
  fs.renameSync(file + '.tmp', file);
}

module.exports = { activate, deactivate() {} };
