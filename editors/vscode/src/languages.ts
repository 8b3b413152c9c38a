// The editor's own language servers, for agents: the client side of the requests agentls sends so
// that its tools (diagnostics, code_nav, rename_symbol, code_action, editor_state) get what VS Code's
// language features know (docs/PROTOCOL.md, "The editor's language servers").
//
//   agentls/diagnostics {uri?, version?, waitMs?}  vscode.languages.getDiagnostics
//   agentls/languageRequest {method, params}        the vscode.execute…Provider commands
//   agentls/editorState {}                          window.activeTextEditor, workspace.textDocuments
//
// Positions are UTF-16 code units on both sides (the encoding vscode-languageclient negotiates), so
// they pass through as they are. The answers leave out agentls's own providers (its symbol index):
// while a request of agentls runs, the client's middleware answers nothing for them.

import * as vscode from 'vscode';
import {
  ResponseError,
  type ClientCapabilities,
  type FeatureState,
  type LanguageClient,
  type Middleware,
  type StaticFeature,
} from 'vscode-languageclient/node';

/** The error agentls expects when no language server in the editor handles a document. */
export const NO_SERVER = -32001;

/** Advertises the three requests in capabilities.experimental.agentls. */
export class LanguagesFeature implements StaticFeature {
  fillClientCapabilities(caps: ClientCapabilities): void {
    const experimental = (caps.experimental ?? {}) as { [key: string]: unknown };
    experimental.agentls = { ...((experimental.agentls as object) ?? {}), diagnostics: true, languageRequest: true, editorState: true };
    caps.experimental = experimental;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

// While > 0, agentls's own providers answer nothing: an agentls request is asking the others.
let asking = 0;

async function askOthers<T>(fn: () => Thenable<T>): Promise<T> {
  asking++;
  try {
    return await fn();
  } finally {
    asking--;
  }
}

/** Middleware that hides agentls's own navigation providers from agentls's own requests. */
export const ownProviders: Middleware = {
  provideDefinition: (doc, pos, token, next) => (asking > 0 ? undefined : next(doc, pos, token)),
  provideReferences: (doc, pos, ctx, token, next) => (asking > 0 ? undefined : next(doc, pos, ctx, token)),
  provideDocumentSymbols: (doc, token, next) => (asking > 0 ? undefined : next(doc, token)),
  provideWorkspaceSymbols: (query, token, next) => (asking > 0 ? undefined : next(query, token)),
};

type LspPosition = { line: number; character: number };
type LspRange = { start: LspPosition; end: LspPosition };

const pos = (p: vscode.Position): LspPosition => ({ line: p.line, character: p.character });
const range = (r: vscode.Range): LspRange => ({ start: pos(r.start), end: pos(r.end) });
const toPosition = (p: LspPosition): vscode.Position => new vscode.Position(p?.line ?? 0, p?.character ?? 0);
const toRange = (r: LspRange): vscode.Range => new vscode.Range(toPosition(r.start), toPosition(r.end));

function parseUri(uri: unknown): vscode.Uri {
  if (typeof uri !== 'string') throw new ResponseError(-32602, 'textDocument.uri is missing');
  return vscode.Uri.parse(uri, true);
}

function diagnostic(d: vscode.Diagnostic): object {
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  return { range: range(d.range), severity: d.severity + 1, source: d.source, code, message: d.message };
}

// When each document's diagnostics last changed: uri → {seq, version of the document then}.
const changed = new Map<string, { seq: number; version: number }>();
let seq = 0;
const waiters = new Set<() => void>();

/** Follows diagnostic changes; dispose it with the client. */
export function watchDiagnostics(): vscode.Disposable {
  return vscode.languages.onDidChangeDiagnostics((e) => {
    seq++;
    for (const uri of e.uris) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      changed.set(uri.toString(), { seq, version: doc?.version ?? 0 });
    }
    for (const w of waiters) w();
  });
}

/** Waits up to ms for uri's diagnostics to change once its document reached version (or after now). */
function waitForUpdate(uri: vscode.Uri, version: number | undefined, ms: number): Promise<boolean> {
  const key = uri.toString();
  const start = seq;
  const satisfied = () => {
    const c = changed.get(key);
    if (!c) return false;
    return version !== undefined ? c.version >= version && c.seq > 0 : c.seq > start;
  };
  if (satisfied()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (v: boolean) => {
      waiters.delete(check);
      clearTimeout(timer);
      resolve(v);
    };
    const check = () => {
      if (satisfied()) finish(true);
    };
    const timer = setTimeout(() => finish(false), ms);
    waiters.add(check);
  });
}

/** agentls/diagnostics. */
export async function diagnostics(p: { uri?: string; version?: number; waitMs?: number }): Promise<object> {
  let fresh = true;
  if (typeof p?.uri === 'string') {
    const uri = parseUri(p.uri);
    if (typeof p.waitMs === 'number' && p.waitMs > 0) {
      fresh = await waitForUpdate(uri, typeof p.version === 'number' ? p.version : undefined, p.waitMs);
    }
    return { fresh, items: [{ uri: p.uri, diagnostics: vscode.languages.getDiagnostics(uri).map(diagnostic) }] };
  }
  const items = vscode.languages
    .getDiagnostics()
    .filter(([, ds]) => ds.length > 0)
    .map(([uri, ds]) => ({ uri: uri.toString(), diagnostics: ds.map(diagnostic) }));
  return { fresh, items };
}

function location(l: vscode.Location | vscode.LocationLink): object {
  if ('targetUri' in l) {
    return {
      targetUri: l.targetUri.toString(),
      targetRange: range(l.targetRange),
      targetSelectionRange: range(l.targetSelectionRange ?? l.targetRange),
      originSelectionRange: l.originSelectionRange && range(l.originSelectionRange),
    };
  }
  return { uri: l.uri.toString(), range: range(l.range) };
}

function workspaceEdit(we: vscode.WorkspaceEdit | undefined): object | undefined {
  if (!we) return undefined;
  const changes: { [uri: string]: object[] } = {};
  for (const [uri, edits] of we.entries()) {
    const list = (changes[uri.toString()] ??= []);
    for (const e of edits) {
      if (e instanceof vscode.TextEdit) list.push({ range: range(e.range), newText: e.newText });
    }
  }
  return { changes };
}

function markdown(c: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof c === 'string') return c;
  if ('language' in c) return '```' + c.language + '\n' + c.value + '\n```';
  return c.value;
}

// The code actions and commands of the last answers, by the id sent to agentls (agentlsServer), to
// apply one: their arguments need not survive JSON.
const actions = new Map<number, vscode.CodeAction | vscode.Command>();
let nextAction = 1;

function command(c: vscode.Command | undefined): object | undefined {
  if (!c) return undefined;
  let args: unknown[] | undefined;
  try {
    args = c.arguments && JSON.parse(JSON.stringify(c.arguments));
  } catch {
    args = undefined; // not JSON: agentls sends the id back and the stored command runs
  }
  return { title: c.title, command: c.command, arguments: args };
}

function codeAction(a: vscode.CodeAction | vscode.Command): object {
  const id = nextAction++;
  actions.set(id, a);
  if (actions.size > 500) actions.delete(id - 500);
  if (!('kind' in a) && typeof (a as vscode.Command).command === 'string') {
    return { ...command(a as vscode.Command), agentlsServer: id };
  }
  const ca = a as vscode.CodeAction;
  return {
    title: ca.title,
    kind: ca.kind?.value,
    isPreferred: ca.isPreferred,
    disabled: ca.disabled,
    edit: workspaceEdit(ca.edit),
    command: command(ca.command),
    agentlsServer: id,
  };
}

type Params = { [key: string]: any };

const locationCommands: { [method: string]: string } = {
  'textDocument/definition': 'vscode.executeDefinitionProvider',
  'textDocument/typeDefinition': 'vscode.executeTypeDefinitionProvider',
  'textDocument/implementation': 'vscode.executeImplementationProvider',
  'textDocument/references': 'vscode.executeReferenceProvider',
};

/** agentls/languageRequest. */
export async function languageRequest(req: { method?: string; params?: Params }): Promise<unknown> {
  const method = req?.method;
  const p: Params = req?.params ?? {};
  if (typeof method !== 'string') throw new ResponseError(-32602, 'method is missing');
  const exec = <T>(cmd: string, ...args: unknown[]) => askOthers(() => vscode.commands.executeCommand<T>(cmd, ...args));
  if (locationCommands[method]) {
    const uri = parseUri(p.textDocument?.uri);
    const res = await exec<(vscode.Location | vscode.LocationLink)[]>(locationCommands[method], uri, toPosition(p.position));
    return (res ?? []).map(location);
  }
  switch (method) {
    case 'textDocument/hover': {
      const hovers = await exec<vscode.Hover[]>('vscode.executeHoverProvider', parseUri(p.textDocument?.uri), toPosition(p.position));
      return (hovers ?? []).map((h) => ({ contents: h.contents.map((c) => ({ kind: 'markdown', value: markdown(c) })), range: h.range && range(h.range) }));
    }
    case 'textDocument/prepareRename': {
      const r = await exec<{ range: vscode.Range; placeholder: string }>('vscode.prepareRename', parseUri(p.textDocument?.uri), toPosition(p.position));
      return r ? { range: range(r.range), placeholder: r.placeholder } : null;
    }
    case 'textDocument/rename': {
      const we = await exec<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', parseUri(p.textDocument?.uri), toPosition(p.position), String(p.newName ?? ''));
      return workspaceEdit(we) ?? null;
    }
    case 'textDocument/codeAction': {
      const only = Array.isArray(p.context?.only) && typeof p.context.only[0] === 'string' ? p.context.only[0] : undefined;
      const list = await exec<(vscode.CodeAction | vscode.Command)[]>('vscode.executeCodeActionProvider', parseUri(p.textDocument?.uri), toRange(p.range), only, 100);
      return (list ?? []).map(codeAction);
    }
    case 'codeAction/resolve': {
      const a = actions.get(Number(p.agentlsServer));
      if (!a) throw new ResponseError(-32602, 'that code action is no longer known; list the actions again');
      const { agentlsServer: _, ...rest } = codeAction(a) as Params;
      return rest;
    }
    case 'workspace/executeCommand': {
      const a = actions.get(Number(p.agentlsServer));
      const c: vscode.Command | undefined = a ? ('kind' in a || !(typeof (a as vscode.Command).command === 'string') ? (a as vscode.CodeAction).command : (a as vscode.Command)) : undefined;
      if (c) return (await vscode.commands.executeCommand(c.command, ...(c.arguments ?? []))) ?? null;
      if (typeof p.command !== 'string') throw new ResponseError(-32602, 'command is missing');
      return (await vscode.commands.executeCommand(p.command, ...(Array.isArray(p.arguments) ? p.arguments : []))) ?? null;
    }
    case 'workspace/symbol': {
      const syms = await exec<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', String(p.query ?? ''));
      return (syms ?? []).map((s) => ({ name: s.name, kind: s.kind + 1, containerName: s.containerName, location: location(s.location) }));
    }
  }
  throw new ResponseError(-32601, `agentls/languageRequest: ${method} is not supported`);
}

/** agentls/editorState. */
export function editorState(): object {
  const documents = vscode.workspace.textDocuments
    .filter((d) => d.uri.scheme === 'file' || d.isUntitled)
    .map((d) => ({ uri: d.uri.toString(), languageId: d.languageId, version: d.version, dirty: d.isDirty }));
  const ed = vscode.window.activeTextEditor;
  const active = ed && {
    uri: ed.document.uri.toString(),
    cursor: pos(ed.selection.active),
    selections: ed.selections.filter((s) => !s.isEmpty).map((s) => range(s)),
    visibleRange: ed.visibleRanges[0] && range(ed.visibleRanges[0]),
  };
  return { documents, active: active ?? null };
}

/** Registers the three request handlers on the client. */
export function registerLanguageRequests(client: LanguageClient): void {
  client.registerFeature(new LanguagesFeature());
  client.onRequest('agentls/diagnostics', (p) => diagnostics(p));
  client.onRequest('agentls/languageRequest', (p) => languageRequest(p));
  client.onRequest('agentls/editorState', () => editorState());
}
