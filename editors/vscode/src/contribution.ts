// The languageModelTools contribution for each agentls tool, derived from the server's tool list
// (`agentls tools --json`, the same shape as agentls.listTools). Pure: no vscode import, so
// gen-tools and the unit tests use it too.

/** A JSON Schema object, as the server sends it (canonical: sorted keys). */
export type JsonSchema = { [key: string]: unknown };

/** One tool of agentls.listTools. */
export interface ServerTool {
  name: string;
  description: string;
  readOnly: boolean;
  inputSchema: JsonSchema;
}

/** The agentls.listTools result. */
export interface ToolList {
  workspace?: string;
  revision?: number;
  digest?: string;
  tools: ServerTool[];
}

/** One entry of contributes.languageModelTools in package.json. */
export interface ToolContribution {
  name: string;
  toolReferenceName: string;
  displayName: string;
  modelDescription: string;
  userDescription: string;
  canBeReferencedInPrompt: boolean;
  tags: string[];
  inputSchema: JsonSchema;
}

/** VS Code tool names are global: every agentls tool carries this prefix. */
export const TOOL_PREFIX = 'agentls_';

export function lmToolName(serverName: string): string {
  return TOOL_PREFIX + serverName;
}

/** The server's name for a VS Code tool name, or undefined when it is not an agentls tool. */
export function serverToolName(lmName: string): string | undefined {
  return lmName.startsWith(TOOL_PREFIX) ? lmName.slice(TOOL_PREFIX.length) : undefined;
}

/** "read_file" → "Read File". */
export function displayName(serverName: string): string {
  return serverName
    .split(/[_\-\s]+/)
    .filter((w) => w.length > 0)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}

/** The first sentence of a description: what a person reads in the tool picker. */
export function userDescription(description: string): string {
  const text = description.trim().replace(/\s+/g, ' ');
  const m = /^(.+?[.!?])(\s|$)/.exec(text);
  let first = m ? m[1] : text;
  if (first.length > 160) {
    first = first.slice(0, 159).trimEnd() + '…';
  }
  return first;
}

export function toContribution(tool: ServerTool): ToolContribution {
  const tags = ['agentls'];
  if (tool.readOnly) {
    tags.push('read-only');
  }
  return {
    name: lmToolName(tool.name),
    toolReferenceName: tool.name,
    displayName: displayName(tool.name),
    modelDescription: tool.description,
    userDescription: userDescription(tool.description),
    canBeReferencedInPrompt: true,
    tags,
    inputSchema: tool.inputSchema,
  };
}

/** Checks the shape of a tool list and returns its contributions sorted by name. */
export function toContributions(list: unknown): ToolContribution[] {
  const tools = checkToolList(list).tools;
  return tools.map(toContribution).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Throws an Error naming the first field that does not have the listTools shape. */
export function checkToolList(list: unknown): ToolList {
  if (typeof list !== 'object' || list === null || !Array.isArray((list as ToolList).tools)) {
    throw new Error('tool list: want an object with a "tools" array');
  }
  (list as ToolList).tools.forEach((t, i) => {
    const at = `tool list: tools[${i}]`;
    if (typeof t !== 'object' || t === null) throw new Error(`${at} is not an object`);
    if (typeof t.name !== 'string' || !/^[A-Za-z0-9_-]+$/.test(t.name)) throw new Error(`${at}.name is not a tool name`);
    if (typeof t.description !== 'string') throw new Error(`${at}.description is not a string`);
    if (typeof t.readOnly !== 'boolean') throw new Error(`${at}.readOnly is not a boolean`);
    if (typeof t.inputSchema !== 'object' || t.inputSchema === null || Array.isArray(t.inputSchema)) {
      throw new Error(`${at}.inputSchema is not an object`);
    }
  });
  return list as ToolList;
}

/**
 * The package.json text with contributes.languageModelTools replaced by tools. Every other key
 * keeps its place and value; the result ends in a newline, formatted as npm writes package.json.
 */
export function packageJsonWithTools(packageJsonText: string, tools: ToolContribution[]): string {
  const pkg = JSON.parse(packageJsonText) as { contributes?: { [key: string]: unknown } };
  pkg.contributes = pkg.contributes ?? {};
  pkg.contributes.languageModelTools = tools;
  return JSON.stringify(pkg, null, 2) + '\n';
}
