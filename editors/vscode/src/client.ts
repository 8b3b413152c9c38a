// The agentls language server: starting it with vscode-languageclient over stdio, the client side
// of the wire contract (agentls/saveDocument, clientConfirms), and restarts with a backoff when it
// stops on its own.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  WorkDoneProgress,
  type ClientCapabilities,
  type FeatureState,
  type LanguageClientOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { Backoff } from './backoff';
import { checkToolList, type ToolList } from './contribution';
import type { CallResult } from './result';
import { ownProviders, registerLanguageRequests, watchDiagnostics } from './languages';
import { BUILD_COMMANDS, findServer, INSTALL_STEPS, type Found } from './serverPath';

export type ServerState = 'stopped' | 'starting' | 'running' | 'restarting' | 'missing' | 'failed';

export interface IndexStatus {
  state: string;
  files: number;
  symbols: number;
  languages: string[] | { [lang: string]: number };
}

/** Advertises experimental.agentls.saveDocument: the server may ask us to save a buffer. */
class SaveDocumentFeature implements StaticFeature {
  fillClientCapabilities(caps: ClientCapabilities): void {
    const experimental = (caps.experimental ?? {}) as { [key: string]: unknown };
    experimental.agentls = { ...((experimental.agentls as object) ?? {}), saveDocument: true };
    caps.experimental = experimental;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/** Settings of the extension itself, not forwarded to the server. */
const extensionOnlyKeys = ['path', 'mcpProvider', 'trace'];

/** The agentls section as plain JSON, with clientConfirms set: VS Code confirms tool calls itself. */
export function agentlsSettings(scope?: vscode.Uri): { [key: string]: unknown } {
  const plain = JSON.parse(JSON.stringify(vscode.workspace.getConfiguration('agentls', scope))) as { [key: string]: unknown };
  for (const key of extensionOnlyKeys) delete plain[key];
  return { ...plain, clientConfirms: true };
}

export function probeServerPath(extensionDir?: string): Found {
  const configured = vscode.workspace.getConfiguration('agentls').get<string>('path', '');
  return findServer(configured, {
    isExecutable: (p) => {
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
    pathDirs: (process.env.PATH ?? '').split(path.delimiter),
    goEnv: () => {
      const r = spawnSync('go', ['env', 'GOBIN', 'GOPATH'], { encoding: 'utf8', timeout: 10000 });
      if (r.status !== 0 || typeof r.stdout !== 'string') return { gobin: '', gopath: '' };
      const [gobin = '', gopath = ''] = r.stdout.split('\n');
      return { gobin: gobin.trim(), gopath: gopath.trim() };
    },
    home: os.homedir(),
    extensionDir,
  });
}

export class AgentlsServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private child: ChildProcess | undefined;
  private readonly backoff = new Backoff();
  private startedAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private generation = 0;
  private _state: ServerState = 'stopped';
  private _binary: string | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly toolsEmitter = new vscode.EventEmitter<ToolList>();
  private tools: ToolList | undefined;

  /** Fires on every state change. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires when a fresh tool list arrived from the server. */
  readonly onDidChangeTools = this.toolsEmitter.event;

  private readonly diagnosticsWatch = watchDiagnostics();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    /** The extension's directory, where a platform .vsix carries bin/agentls. */
    private readonly extensionDir?: string,
  ) {}

  get state(): ServerState {
    return this._state;
  }
  /** The running server's process id. */
  get pid(): number | undefined {
    return this._state === 'running' ? this.child?.pid : undefined;
  }
  get binary(): string | undefined {
    return this._binary;
  }
  get lastTools(): ToolList | undefined {
    return this.tools;
  }

  private setState(s: ServerState): void {
    if (this._state !== s) {
      this._state = s;
      this.stateEmitter.fire(s);
    }
  }

  /** Starts the server (a start the user asked for: the crash count starts over). */
  async start(): Promise<void> {
    this.backoff.reset();
    await this.launch();
  }

  async restart(): Promise<void> {
    this.output.appendLine('agentls: restarting the server');
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    this.generation++;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.setState('stopped');
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.appendLine(`agentls: stopping the server: ${String(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  private async launch(): Promise<void> {
    const gen = ++this.generation;
    const found = probeServerPath(this.extensionDir);
    if (!found.path) {
      this.setState('missing');
      this.output.appendLine(`agentls: no agentls binary; looked at ${found.tried.join(', ')}`);
      void vscode.window
        .showErrorMessage(`agentls: the agentls binary was not found. ${INSTALL_STEPS}`, 'Copy build commands', 'Open Settings')
        .then((choice) => {
          if (choice === 'Copy build commands') void vscode.env.clipboard.writeText(BUILD_COMMANDS);
          if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.path');
        });
      return;
    }
    this._binary = found.path;
    this.setState('starting');
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cwd = folder?.uri.scheme === 'file' ? folder.uri.fsPath : os.homedir();
    const serverOptions = async (): Promise<ChildProcess> => {
      const child = spawn(found.path!, ['serve', '--stdio'], { cwd, stdio: 'pipe' });
      this.child = child;
      return child;
    };
    const clientOptions: LanguageClientOptions = {
      // Every file buffer, whatever its language: the server's overlay must see what the user sees.
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      initializationOptions: agentlsSettings(),
      synchronize: { configurationSection: 'agentls' },
      middleware: {
        // agentls's own navigation answers nothing while agentls asks the editor's other servers.
        ...ownProviders,
        workspace: {
          // Pulled settings replace those of initialize: keep clientConfirms in them.
          configuration: async (params, token, next) => {
            const res = await next(params, token);
            if (!Array.isArray(res)) return res;
            return res.map((value, i) => {
              const item = params.items[i];
              if (item?.section === 'agentls' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
                const v = { ...(value as object) } as { [key: string]: unknown };
                for (const key of extensionOnlyKeys) delete v[key];
                return { ...v, clientConfirms: true };
              }
              return value;
            });
          },
        },
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => {
          if (gen === this.generation) {
            this.crashed(gen);
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.registerFeature(new SaveDocumentFeature());
    client.onRequest('agentls/saveDocument', (p: { uri: string }) => saveDocument(p?.uri));
    registerLanguageRequests(client);
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      if (gen !== this.generation) return;
      this.output.appendLine(`agentls: the server did not start: ${err instanceof Error ? err.message : String(err)}`);
      this.crashed(gen);
      return;
    }
    if (gen !== this.generation) return;
    this.startedAt = Date.now();
    this.output.appendLine(`agentls: server running (${found.path}, pid ${this.child?.pid})`);
    this.setState('running');
    void this.listTools().catch((err) => this.output.appendLine(`agentls: listTools: ${String(err)}`));
  }

  /** The server stopped on its own: restart it after the backoff delay, and say so. */
  private crashed(gen: number): void {
    if (this.restartTimer !== undefined || gen !== this.generation) {
      return; // a restart is already planned (a failed start can also close the connection)
    }
    const ranMs = this.startedAt ? Date.now() - this.startedAt : 0;
    this.startedAt = 0;
    // The closed client has already cleaned up (no restart asked); a new one replaces it.
    this.client = undefined;
    const delay = this.backoff.next(ranMs);
    if (delay === undefined) {
      this.setState('failed');
      const msg = `agentls: the server stopped ${this.backoff.crashes} times in a row; not restarting it. See the agentls output.`;
      this.output.appendLine(msg);
      void vscode.window.showErrorMessage(msg, 'Restart Server').then((c) => {
        if (c) void this.restart();
      });
      return;
    }
    this.setState('restarting');
    const msg = `agentls: the server stopped unexpectedly; restarting it in ${Math.round(delay / 1000)} s (attempt ${this.backoff.crashes}).`;
    this.output.appendLine(msg);
    void vscode.window.setStatusBarMessage(msg, delay + 2000);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (gen === this.generation) void this.launch();
    }, delay);
  }

  /** Resolves when the server is running; rejects when it is missing or failed, or after timeoutMs. */
  whenRunning(timeoutMs = 30000): Promise<void> {
    if (this._state === 'running') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = (err?: Error) => {
        clearTimeout(timer);
        sub.dispose();
        err ? reject(err) : resolve();
      };
      const check = (s: ServerState) => {
        if (s === 'running') done();
        else if (s === 'missing') done(new Error('the agentls binary was not found (set agentls.path)'));
        else if (s === 'failed') done(new Error('the agentls server keeps stopping; see the agentls output'));
      };
      const timer = setTimeout(() => done(new Error(`the agentls server is not running (${this._state}) after ${timeoutMs / 1000} s`)), timeoutMs);
      const sub = this.onDidChangeState(check);
      check(this._state);
    });
  }

  /**
   * Runs one of the server's commands (workspace/executeCommand) with its one argument object.
   * With onProgress, the request carries a workDoneToken and each progress message is passed on.
   */
  async command<T>(command: string, arg: object, token?: vscode.CancellationToken, onProgress?: (message: string) => void): Promise<T> {
    await this.whenRunning();
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error('the agentls server is not running');
    }
    if (!onProgress) {
      return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] }, token)) as T;
    }
    const workDoneToken = `agentls-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const sub = client.onProgress(WorkDoneProgress.type, workDoneToken, (p) => {
      if (p.kind !== 'end' && p.message) onProgress(p.message);
    });
    try {
      return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg], workDoneToken }, token)) as T;
    } finally {
      sub.dispose();
    }
  }

  async listTools(): Promise<ToolList> {
    const list = checkToolList(await this.command<unknown>('agentls.listTools', {}));
    this.tools = list;
    this.toolsEmitter.fire(list);
    return list;
  }

  callTool(name: string, args: unknown, token?: vscode.CancellationToken, onProgress?: (message: string) => void): Promise<CallResult> {
    return this.command<CallResult>('agentls.callTool', { name, arguments: args ?? {} }, token, onProgress);
  }

  indexStatus(): Promise<IndexStatus> {
    return this.command<IndexStatus>('agentls.indexStatus', {});
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.toolsEmitter.dispose();
    this.diagnosticsWatch.dispose();
  }
}

/** agentls/saveDocument: saves the open document; {saved} says whether disk now has its text. */
async function saveDocument(uri: string | undefined): Promise<{ saved: boolean }> {
  if (typeof uri !== 'string') return { saved: false };
  let target: vscode.Uri;
  try {
    target = vscode.Uri.parse(uri, true);
  } catch {
    return { saved: false };
  }
  const doc = vscode.workspace.textDocuments.find(
    (d) => d.uri.toString() === target.toString() || (d.uri.scheme === 'file' && target.scheme === 'file' && d.uri.fsPath === target.fsPath),
  );
  if (!doc) return { saved: false };
  if (!doc.isDirty) return { saved: true };
  try {
    return { saved: await doc.save() };
  } catch {
    return { saved: false };
  }
}
