// The real VS Code end-to-end test: code-server with the agentls extension and the test extension
// (test/e2e/) installed, a workspace opened in headless Chromium; the test extension writes a JSON
// report, this script asserts on it and saves a screenshot of the workbench.
//
// Environment: CODE_SERVER, CHROMIUM, PLAYWRIGHT_CORE (from install-code-server.sh), AGENTLS_BIN,
// AGENTLS_VSIX, E2E_VSIX, SCREENSHOT (where to save the PNG). KEEP=1 keeps the temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const env = (name) => {
  const v = process.env[name];
  if (!v) fail(`run-e2e: ${name} is not set`);
  return v;
};
function fail(msg) {
  console.error(msg);
  process.exitCode = 1;
  throw new Error(msg);
}
const log = (msg) => console.log(`run-e2e: ${msg}`);

/** Polls cond every 100 ms until it returns a truthy value; fails after ms. */
async function until(what, cond, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > end) fail(`run-e2e: timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const codeServer = env('CODE_SERVER');
const chromiumBin = env('CHROMIUM');
const playwrightDir = env('PLAYWRIGHT_CORE');
const agentls = path.resolve(env('AGENTLS_BIN'));
const vsix = path.resolve(env('AGENTLS_VSIX'));
const e2eVsix = path.resolve(env('E2E_VSIX'));
const screenshot = path.resolve(env('SCREENSHOT'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-vscode-e2e-'));
const dataDir = path.join(work, 'data');
const extDir = path.join(work, 'extensions');
const ws = path.join(work, 'workspace');
const reportPath = path.join(work, 'report.json');
const csLog = path.join(work, 'code-server.log');
let server;
let browser;

async function main() {
  // The workspace: a dirty-buffer file, a clean file, and some Go for the index.
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'notes.txt'), 'first line\nsecond line\nthird line\n');
  fs.writeFileSync(path.join(ws, 'clean.txt'), 'alpha beta\n');
  fs.writeFileSync(path.join(ws, 'main.go'), 'package main\n\nfunc greet() string { return "hi" }\n\nfunc main() { println(greet()) }\n');
  // A small TypeScript project for the tools backed by VS Code's own TypeScript support.
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs' }, include: ['src'] }));
  fs.writeFileSync(path.join(ws, 'src', 'greeter.ts'), "export class Greeter {\n  hello(): string {\n    return 'hi';\n  }\n}\n");
  fs.writeFileSync(path.join(ws, 'src', 'use.ts'), "import { Greeter } from './greeter';\n\nexport const said: string = new Greeter().hello();\n");
  fs.writeFileSync(path.join(ws, 'src', 'util.ts'), 'export function shout(s: string): string {\n  return s.toUpperCase();\n}\n');
  fs.writeFileSync(path.join(ws, 'src', 'broken.ts'), "export const loud = shout('a');\nexport const n: number = 'not a number';\n");
  fs.mkdirSync(path.join(dataDir, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'files.autoSave': 'off',
        'chat.disableAIFeatures': true,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'git.enabled': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        // agentls.path unset: the extension starts the binary its platform .vsix carries.
        // ask: the server would ask again unless the extension says VS Code confirms (clientConfirms);
        // deny: reaches the server through workspace/configuration.
        'agentls.approval': { edit_file: 'ask', write_file: 'deny' },
        // A plugin: agentls itself, standalone over MCP; its tools join as mcp__self__<tool>.
        'agentls.mcpServers': { self: { command: agentls, args: ['mcp', '--dir', ws] } },
        'agentls.trace.server': process.env.TRACE ? 'verbose' : 'off',
        'agentlsE2E.report': reportPath,
      },
      null,
      2,
    ),
  );
  const config = path.join(work, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');

  for (const x of [vsix, e2eVsix]) {
    const r = spawnSync(codeServer, ['--install-extension', x, '--extensions-dir', extDir, '--user-data-dir', dataDir, '--config', config], {
      encoding: 'utf8',
      timeout: 120000,
    });
    if (r.status !== 0) fail(`run-e2e: installing ${x} failed:\n${r.stdout}\n${r.stderr}`);
  }
  log('extensions installed');

  const port = await freePort();
  const out = fs.openSync(csLog, 'w');
  server = spawn(
    codeServer,
    [
      '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--user-data-dir', dataDir, '--extensions-dir', extDir,
      '--config', config, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', '--disable-workspace-trust',
    ],
    { detached: true, stdio: ['ignore', out, out] },
  );
  let exited = false;
  server.on('exit', () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  await until('code-server to answer', async () => {
    if (exited) fail(`run-e2e: code-server exited:\n${fs.readFileSync(csLog, 'utf8')}`);
    try {
      return (await fetch(`${base}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 60000);
  log(`code-server on ${base}`);

  const require = createRequire(import.meta.url);
  const { chromium } = require(playwrightDir);
  browser = await chromium.launch({
    executablePath: chromiumBin,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  let activationError = '';
  page.on('console', (m) => {
    const t = m.text();
    if (/Activating extension .* failed/i.test(t)) activationError = t;
  });
  await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded', timeout: 120000 });
  log('workbench opened; waiting for the report');

  const exthostFailure = () => {
    const logs = path.join(dataDir, 'logs');
    if (!fs.existsSync(logs)) return '';
    for (const f of fs.readdirSync(logs, { recursive: true })) {
      if (!String(f).endsWith('remoteexthost.log') && !String(f).endsWith('exthost.log')) continue;
      const m = /Activating extension .* failed[^\n]*/.exec(fs.readFileSync(path.join(logs, String(f)), 'utf8'));
      if (m) return m[0];
    }
    return '';
  };
  const partial = () => {
    try {
      return JSON.parse(fs.readFileSync(reportPath + '.partial', 'utf8')).checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${String(c.detail).slice(0, 400)}`).join('\n');
    } catch {
      return '  (no check finished)';
    }
  };
  // VS Code asks before a tool that changes something runs (our confirmationMessages); outside a
  // chat that is a modal dialog. Answer it as a person would, and keep what it said.
  const dialogs = [];
  const answerDialogs = async () => {
    const box = page.locator('.monaco-dialog-box');
    if ((await box.count()) === 0 || !(await box.first().isVisible())) return;
    const text = (await box.first().innerText()).trim();
    const yes = box.first().getByRole('button', { name: /^(Yes|Allow|Continue)$/ });
    if ((await yes.count()) === 0) return;
    await yes.first().click({ timeout: 5000 });
    dialogs.push(text);
    log(`answered Yes to: ${text.split('\n').find((l) => l.endsWith('?')) ?? text.split('\n')[0]}`);
  };
  const report = await until('the test extension\'s report', async () => {
    await answerDialogs().catch(() => undefined);
    const failed = activationError || exthostFailure();
    if (failed) fail(`run-e2e: ${failed}\n${partial()}`);
    if (exited) fail(`run-e2e: code-server exited\n${partial()}`);
    return fs.existsSync(reportPath) && JSON.parse(fs.readFileSync(reportPath, 'utf8'));
  }, 420000).catch((err) => fail(`${err.message}; the checks so far:\n${partial()}`));

  // The last check ran a tool from "agentls: Run Tool…": its result is in the agentls output.
  await page.getByText('notes.txt:1:UNSAVED by the user').first().waitFor({ timeout: 15000 }).catch(() => log('the output panel text did not show; taking the screenshot anyway'));
  fs.mkdirSync(path.dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot });
  log(`screenshot: ${screenshot}`);

  // The commands as a person runs them: the command palette, then a quick pick.
  const ui = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      report.checks.push({ name, ok: true, ms: Date.now() - t0 });
    } catch (err) {
      report.checks.push({ name, ok: false, ms: Date.now() - t0, detail: String(err?.message ?? err) });
      report.ok = false;
    }
  };
  const palette = async (command) => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill(`>${command}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
  };
  await ui('palette: agentls: Show Tools opens a tool\'s description and schema', async () => {
    await palette('agentls: Show Tools');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'code_index' });
    await row.first().waitFor({ timeout: 15000 });
    await page.locator('.quick-input-widget input').fill('code_index');
    await row.first().waitFor({ timeout: 15000 });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: '# code_index (read-only)' }).first().waitFor({ timeout: 15000 });
  });
  const toolsShot = screenshot.replace(/(\.png)?$/, '-show-tools.png');
  await page.screenshot({ path: toolsShot });
  log(`screenshot: ${toolsShot}`);

  // The confirmations came from prepareInvocation: the edit and the command were shown.
  for (const [title, detail] of [
    ['Edit this file?', 'notes.txt'],
    ['Run this command?', 'sleep 37'],
  ]) {
    const seen = dialogs.some((d) => d.includes(title) && d.includes(detail));
    report.checks.push({ name: `VS Code asked "${title}" showing ${detail}`, ok: seen, detail: seen ? '' : `dialogs seen: ${JSON.stringify(dialogs)}` });
    if (!seen) report.ok = false;
  }

  let passed = 0;
  let failed = 0;
  for (const c of report.checks) {
    c.ok ? passed++ : failed++;
    console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name} (${c.ms ?? 0} ms)${c.ok ? '' : '\n     ' + c.detail.replace(/\n/g, '\n     ')}`);
    if (c.ok && c.detail && process.env.VERBOSE) console.log(`     ${String(c.detail).slice(0, 300).replace(/\n/g, '\n     ')}`);
  }
  console.log(`VS Code ${report.vscode}, ${report.tools.length} agentls tools in vscode.lm.tools`);
  console.log(`vscode-e2e: ${passed} passed, ${failed} failed`);
  if (!report.ok || failed > 0 || passed === 0) {
    fail(`run-e2e: the end-to-end checks failed (code-server log: ${csLog}, report: ${reportPath})`);
  }
}

async function cleanup() {
  await browser?.close().catch(() => undefined);
  if (server && server.exitCode === null && server.signalCode === null) {
    const gone = new Promise((r) => server.once('exit', r));
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const t = setTimeout(() => {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5000);
    await gone;
    clearTimeout(t);
  }
  if (process.exitCode || process.env.KEEP) {
    log(`kept ${work}`);
  } else {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  if (!String(err?.message).startsWith('run-e2e:')) console.error(err);
} finally {
  await cleanup();
}
