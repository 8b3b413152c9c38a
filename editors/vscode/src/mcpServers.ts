// Which MCP servers to offer the chat: `agentls mcp --attach` per folder, by the agentls.mcpServer
// mode and whether the session has plugin tools. Pure.

export type McpMode = 'plugins' | 'always' | 'never';

/** One stdio MCP server, as plain data. */
export interface McpServer {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

/** The tools the server has beyond those package.json declares. */
export function pluginTools(serverTools: string[], declared: Set<string>): string[] {
  return serverTools.filter((n) => !declared.has(n));
}

/** The MCP servers to offer: one per file folder, attached to this editor session. */
export function mcpServers(
  mode: McpMode,
  binary: string | undefined,
  serverTools: string[],
  declared: Set<string>,
  folders: { name: string; path: string }[],
): McpServer[] {
  if (mode === 'never' || !binary) return [];
  if (mode !== 'always' && pluginTools(serverTools, declared).length === 0) return [];
  return folders.map((f) => ({ label: `agentls: ${f.name}`, command: binary, args: ['mcp', '--attach', '--dir', f.path], cwd: f.path }));
}
