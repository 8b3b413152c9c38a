// The commands a person uses to see and try the tools.

import * as vscode from 'vscode';
import { skeletonText } from './args';
import type { AgentlsServer } from './client';
import { userDescription, type ServerTool } from './contribution';
import { failureText, resultText } from './result';

async function pickTool(server: AgentlsServer, placeHolder: string): Promise<ServerTool | undefined> {
  let tools: ServerTool[];
  try {
    tools = (await server.listTools()).tools;
  } catch (err) {
    void vscode.window.showErrorMessage(`agentls: cannot list the tools: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    tools.map((t) => ({ label: t.name, description: t.readOnly ? 'read-only' : '', detail: userDescription(t.description), tool: t })),
    { placeHolder, matchOnDetail: true },
  );
  return picked?.tool;
}

/** The markdown page for one tool: its description and schema. */
export function toolPage(t: ServerTool): string {
  return [
    `# ${t.name}${t.readOnly ? ' (read-only)' : ''}`,
    '',
    t.description,
    '',
    '## Arguments (JSON Schema)',
    '',
    '```json',
    JSON.stringify(t.inputSchema, null, 2),
    '```',
    '',
  ].join('\n');
}

export function registerCommands(server: AgentlsServer, output: vscode.OutputChannel, status: { refresh(): Promise<void> }): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('agentls.showTools', async () => {
      const t = await pickTool(server, 'agentls tools: pick one to see its description and schema');
      if (!t) return;
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: toolPage(t) });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),

    vscode.commands.registerCommand('agentls.runTool', async (name?: string, args?: object) => {
      let tool: ServerTool | undefined;
      if (typeof name === 'string') {
        tool = (server.lastTools ?? (await server.listTools())).tools.find((t) => t.name === name);
      } else {
        tool = await pickTool(server, 'agentls: pick a tool to run');
      }
      if (!tool) return;
      let input = args;
      if (input === undefined) {
        const text = await vscode.window.showInputBox({
          title: `agentls: arguments for ${tool.name}`,
          prompt: 'A JSON object; the required properties are filled in',
          value: skeletonText(tool.inputSchema).replace(/\n\s*/g, ' '),
          validateInput: (v) => {
            try {
              const o = JSON.parse(v);
              return typeof o === 'object' && o !== null && !Array.isArray(o) ? undefined : 'want a JSON object';
            } catch (err) {
              return `not JSON: ${err instanceof Error ? err.message : String(err)}`;
            }
          },
        });
        if (text === undefined) return;
        input = JSON.parse(text) as object;
      }
      output.appendLine(`▶ ${tool.name} ${JSON.stringify(input)}`);
      output.show(true);
      const toolName = tool.name;
      const text = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `agentls: running ${toolName}`, cancellable: true },
        async (progress, token) => {
          // bash streams its output as progress: show the latest line while it runs.
          const onProgress = (msg: string) => {
            const last = msg.trimEnd().split('\n').pop() ?? '';
            progress.report({ message: last.length > 80 ? last.slice(0, 79) + '…' : last });
          };
          try {
            const r = resultText(toolName, await server.callTool(toolName, input, token, onProgress));
            return (r.isError ? '✗ ' : '') + r.text;
          } catch (err) {
            return token.isCancellationRequested ? '✗ cancelled' : failureText(toolName, err);
          }
        },
      );
      output.appendLine(text);
      output.appendLine('');
      return text;
    }),

    vscode.commands.registerCommand('agentls.restartServer', async () => {
      await server.restart();
    }),

    vscode.commands.registerCommand('agentls.showIndexStatus', async () => {
      try {
        const s = await server.indexStatus();
        const langs = Array.isArray(s.languages) ? s.languages.join(', ') : Object.keys(s.languages ?? {}).join(', ');
        const n = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
        const msg = `agentls index: ${s.state}, ${n(s.files, 'file')}, ${n(s.symbols, 'symbol')}${langs ? ` (${langs})` : ''}`;
        output.appendLine(msg);
        void vscode.window.showInformationMessage(msg);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        void vscode.window.showWarningMessage(
          /unknown command/.test(msg) ? 'agentls: this agentls server has no symbol index (it does not offer agentls.indexStatus)' : `agentls: no index status: ${msg}`,
        );
      }
      await status.refresh();
    }),
  ];
}
