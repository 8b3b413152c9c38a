// Plugin tools (the MCP servers configured in agentls, named mcp__<server>__<tool>) cannot be
// declared in package.json, so they reach the chat through an MCP server definition:
// `agentls mcp --attach` run inside this window's editor session. Its list holds the built-ins too,
// which package.json already declares, so by default the definition is offered only while the
// session has plugin tools (setting agentls.mcpProvider: "plugins" | "always" | "never").

import * as vscode from 'vscode';
import type { AgentlsServer } from './client';
import { mcpServers, type McpMode, type McpServer } from './mcpServers';

export type { McpMode, McpServer };

/** The servers for the current settings, tools and folders. */
export function currentMcpServers(server: AgentlsServer, declared: Set<string>, mode?: McpMode): McpServer[] {
  return mcpServers(
    mode ?? vscode.workspace.getConfiguration('agentls').get<McpMode>('mcpProvider', 'plugins'),
    server.binary,
    server.lastTools?.tools.map((t) => t.name) ?? [],
    declared,
    (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath })),
  );
}

export function registerMcpProvider(server: AgentlsServer, declared: Set<string>): vscode.Disposable[] {
  if (typeof vscode.lm.registerMcpServerDefinitionProvider !== 'function') {
    return [];
  }
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      currentMcpServers(server, declared).map((s) => {
        const def = new vscode.McpStdioServerDefinition(s.label, s.command, s.args);
        def.cwd = vscode.Uri.file(s.cwd);
        return def;
      }),
  };
  return [
    changed,
    vscode.lm.registerMcpServerDefinitionProvider('agentls', provider),
    server.onDidChangeTools(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentls.mcpProvider')) changed.fire();
    }),
  ];
}
