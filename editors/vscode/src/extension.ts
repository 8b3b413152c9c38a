// Activation: starts the agentls server and wires its tools into VS Code.

import * as vscode from 'vscode';
import { AgentlsServer, type IndexStatus, type ServerState } from './client';
import { registerCommands } from './commands';
import { serverToolName, type ToolList } from './contribution';
import { declaredTools, registerTools } from './lmTools';
import { currentMcpServers, registerMcpProvider, type McpMode, type McpServer } from './mcp';
import type { CallResult } from './result';
import { StatusItem } from './statusBar';

/** What activate returns: for tests and for other extensions. */
export interface AgentlsApi {
  readonly state: ServerState;
  /** The running server's process id. */
  readonly pid: number | undefined;
  onDidChangeState: vscode.Event<ServerState>;
  whenRunning(timeoutMs?: number): Promise<void>;
  listTools(): Promise<ToolList>;
  callTool(name: string, args: unknown, token?: vscode.CancellationToken): Promise<CallResult>;
  indexStatus(): Promise<IndexStatus>;
  restart(): Promise<void>;
  /** The MCP servers the extension offers to the chat (for mode, or as the setting says). */
  mcpServers(mode?: McpMode): McpServer[];
}

let running: AgentlsServer | undefined;

export function activate(context: vscode.ExtensionContext): AgentlsApi {
  const output = vscode.window.createOutputChannel('agentls', { log: true });
  const server = new AgentlsServer(output, context.extensionPath);
  running = server;
  const status = new StatusItem(server);
  const declared = new Set(declaredTools(context).map((t) => serverToolName(t.name) ?? t.name));
  context.subscriptions.push(
    output,
    server,
    status,
    ...registerTools(context, server),
    ...registerCommands(server, output, status),
    ...registerMcpProvider(server, declared),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentls.path')) void server.restart();
    }),
  );
  void server.start();
  return {
    get state() {
      return server.state;
    },
    get pid() {
      return server.pid;
    },
    onDidChangeState: server.onDidChangeState,
    whenRunning: (ms) => server.whenRunning(ms),
    listTools: () => server.listTools(),
    callTool: (n, a, t) => server.callTool(n, a, t),
    indexStatus: () => server.indexStatus(),
    restart: () => server.restart(),
    mcpServers: (mode) => currentMcpServers(server, declared, mode),
  };
}

/** Lets the server shut down cleanly (and kill the commands it started) before VS Code goes. */
export function deactivate(): Promise<void> | undefined {
  return running?.stop();
}
