// Plugin tools (the MCP servers configured in agentls, named mcp__<server>__<tool>) cannot be
// declared in package.json, so they reach the chat through an MCP server definition:
// `agentls mcp --attach` run inside this window's editor session. Its list holds the built-ins too,
// which package.json already declares, so by default the definition is offered only while the
// session has plugin tools (setting agentls.mcpServer: "plugins" | "always" | "never").

import * as vscode from 'vscode';
import type { AgentlsServer } from './client';

export function pluginTools(serverTools: string[], declared: Set<string>): string[] {
  return serverTools.filter((n) => !declared.has(n));
}

export function registerMcpProvider(server: AgentlsServer, declared: Set<string>): vscode.Disposable[] {
  if (typeof vscode.lm.registerMcpServerDefinitionProvider !== 'function') {
    return [];
  }
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const mode = vscode.workspace.getConfiguration('agentls').get<string>('mcpServer', 'plugins');
      const bin = server.binary;
      if (mode === 'never' || !bin) return [];
      const names = server.lastTools?.tools.map((t) => t.name) ?? [];
      if (mode !== 'always' && pluginTools(names, declared).length === 0) return [];
      return (vscode.workspace.workspaceFolders ?? [])
        .filter((f) => f.uri.scheme === 'file')
        .map((f) => {
          const def = new vscode.McpStdioServerDefinition(`agentls: ${f.name}`, bin, ['mcp', '--attach', '--dir', f.uri.fsPath]);
          def.cwd = f.uri;
          return def;
        });
    },
  };
  return [
    changed,
    vscode.lm.registerMcpServerDefinitionProvider('agentls', provider),
    server.onDidChangeTools(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentls.mcpServer')) changed.fire();
    }),
  ];
}
