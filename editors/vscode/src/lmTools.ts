// Each agentls tool as a VS Code language-model tool. The tools are the ones package.json declares
// (VS Code shows only declared tools); invoke sends agentls.callTool through the language client.

import * as vscode from 'vscode';
import type { AgentlsServer } from './client';
import { serverToolName, type ToolContribution } from './contribution';
import { confirmation, invocationMessage } from './confirm';
import { failureText, resultText } from './result';

export function declaredTools(context: vscode.ExtensionContext): ToolContribution[] {
  const tools = (context.extension.packageJSON as { contributes?: { languageModelTools?: ToolContribution[] } }).contributes?.languageModelTools;
  return Array.isArray(tools) ? tools : [];
}

class AgentlsTool implements vscode.LanguageModelTool<object> {
  private readonly readOnly: boolean;
  constructor(
    private readonly server: AgentlsServer,
    private readonly name: string,
    contribution: ToolContribution,
  ) {
    this.readOnly = contribution.tags.includes('read-only');
  }

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<object>): vscode.PreparedToolInvocation {
    const allowHosts = vscode.workspace.getConfiguration('agentls').get<string[]>('webFetch.allowHosts', []);
    const c = confirmation(this.name, this.readOnly, options.input, allowHosts);
    return {
      invocationMessage: new vscode.MarkdownString(invocationMessage(this.name, options.input)),
      confirmationMessages: c && { title: c.title, message: new vscode.MarkdownString(c.message) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<object>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    let text: string;
    try {
      text = resultText(this.name, await this.server.callTool(this.name, options.input, token)).text;
    } catch (err) {
      if (token.isCancellationRequested) {
        throw new vscode.CancellationError();
      }
      text = failureText(this.name, err);
    }
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  }
}

export function registerTools(context: vscode.ExtensionContext, server: AgentlsServer): vscode.Disposable[] {
  const out: vscode.Disposable[] = [];
  for (const c of declaredTools(context)) {
    const name = serverToolName(c.name);
    if (name) {
      out.push(vscode.lm.registerTool(c.name, new AgentlsTool(server, name, c)));
    }
  }
  return out;
}
