// The status bar item: the server's state, the tool count and the index state.

import * as vscode from 'vscode';
import type { AgentlsServer, IndexStatus } from './client';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Right, 100);
  private readonly subs: vscode.Disposable[] = [];
  private index: IndexStatus | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly server: AgentlsServer) {
    this.item.name = 'agentls';
    this.item.command = 'agentls.showTools';
    this.subs.push(
      server.onDidChangeState((s) => {
        if (s === 'running') void this.refresh();
        this.render();
      }),
      server.onDidChangeTools(() => this.render()),
    );
    this.render();
    this.item.show();
  }

  /** Asks the server for the index state; while it is indexing, asks again every 2 s. */
  async refresh(): Promise<void> {
    clearTimeout(this.poll);
    if (this.server.state !== 'running') return;
    try {
      this.index = await this.server.indexStatus();
    } catch {
      this.index = undefined;
    }
    this.render();
    if (this.index?.state === 'indexing') {
      this.poll = setTimeout(() => void this.refresh(), 2000);
    }
  }

  private render(): void {
    const s = this.server.state;
    const tools = this.server.lastTools?.tools.length;
    let text: string;
    switch (s) {
      case 'running':
        text = `$(tools) agentls${tools !== undefined ? ` ${tools} tools` : ''}`;
        if (this.index) text += this.index.state === 'ready' ? ` · $(database) ${this.index.symbols} symbols` : ' · $(sync~spin) indexing';
        break;
      case 'starting':
      case 'restarting':
        text = `$(sync~spin) agentls ${s}`;
        break;
      case 'missing':
        text = '$(warning) agentls not found';
        break;
      default:
        text = `$(error) agentls ${s}`;
    }
    this.item.text = text;
    const lines = [`agentls server: ${s}`];
    if (this.server.binary) lines.push(this.server.binary);
    if (tools !== undefined) lines.push(`${tools} tools`);
    if (this.index) lines.push(`index: ${this.index.state}, ${this.index.files} files, ${this.index.symbols} symbols`);
    this.item.tooltip = lines.join('\n');
  }

  dispose(): void {
    clearTimeout(this.poll);
    this.subs.forEach((d) => d.dispose());
    this.item.dispose();
  }
}
