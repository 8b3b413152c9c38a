// What the chat shows before a tool runs: an invocation message for every tool and, for the tools
// that change something, a confirmation (title + markdown) that says what will happen. Pure.

import { clip } from './result';

export interface Confirmation {
  title: string;
  /** Markdown. */
  message: string;
}

type Args = { [key: string]: unknown };

function str(args: Args, key: string): string | undefined {
  const v = args[key];
  return typeof v === 'string' ? v : undefined;
}

/** Inline code that survives backticks in the text. */
export function code(text: string): string {
  const oneLine = clip(text.replace(/\s*\n\s*/g, ' ⏎ '), 200);
  const longest = Math.max(0, ...(oneLine.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${oneLine}${pad}${fence}`;
}

/** A fenced block that no line of text can close. */
export function block(text: string, lang = ''): string {
  const longest = Math.max(2, ...(text.match(/`{3,}/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function lines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The short message shown while the tool runs, e.g. "Reading `src/a.go`". */
export function invocationMessage(tool: string, input: unknown): string {
  const a = (typeof input === 'object' && input !== null ? input : {}) as Args;
  const path = str(a, 'path');
  switch (tool) {
    case 'read_file':
      return path ? `Reading ${code(path)}` : 'Reading a file';
    case 'ls':
      return `Listing ${code(path ?? '.')}`;
    case 'glob':
      return `Finding files matching ${code(str(a, 'pattern') ?? '')}`;
    case 'grep':
      return `Searching for ${code(str(a, 'pattern') ?? '')}${path ? ` in ${code(path)}` : ''}`;
    case 'code_index': {
      const action = str(a, 'action') ?? 'search';
      const q = str(a, 'query');
      return `Looking up the symbol index (${action}${q ? ` ${code(q)}` : ''})`;
    }
    case 'web_fetch':
      return `Fetching ${code(str(a, 'url') ?? '')}`;
    case 'bash_output':
      return `Reading the output of shell ${code(str(a, 'shell_id') ?? '')}`;
    case 'wait':
      return `Waiting for shell ${code(str(a, 'shell_id') ?? '')}`;
    case 'write_file':
      return `Writing ${code(path ?? '')}`;
    case 'edit_file':
    case 'multi_edit':
      return `Editing ${code(path ?? '')}`;
    case 'notebook_edit':
      return `Editing notebook ${code(path ?? '')}`;
    case 'move_file':
      return `Moving ${code(str(a, 'source') ?? '')} to ${code(str(a, 'destination') ?? '')}`;
    case 'delete_file':
      return `Deleting ${code(path ?? '')}`;
    case 'bash':
      return `Running ${code(str(a, 'command') ?? '')}`;
    case 'kill_shell':
      return `Stopping shell ${code(str(a, 'shell_id') ?? '')}`;
    default:
      return `Running agentls tool ${code(tool)}`;
  }
}

/**
 * The confirmation for a tool that is not read-only: what will happen, in a sentence and the
 * details that matter (the command for bash, the path and a summary for edits). Read-only tools
 * get none.
 */
/**
 * Whether host matches one of patterns (the agentls.webFetch.allowHosts setting): a host name
 * exactly, or `*.example.com` for every subdomain of example.com. Case does not matter. The server
 * matches the same way (lsp.HostAllowed).
 */
export function hostAllowed(patterns: readonly string[], host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((raw) => {
    const p = raw.trim().toLowerCase().replace(/\.$/, '');
    if (p.startsWith('*.')) return h.endsWith(p.slice(1));
    return p !== '' && h === p;
  });
}

/** The host of a URL, or undefined when it has none. */
function hostOf(url: string): string | undefined {
  try {
    const h = new URL(url).hostname;
    return h === '' ? undefined : h.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
}

/**
 * The confirmation VS Code shows before a call, or undefined for none. VS Code does not confirm
 * tools it takes for read-only, and with clientConfirms the server does not ask either; but
 * web_fetch can send what the read-only tools read to any host, so it is confirmed, naming the
 * host, unless the host is in allowHosts.
 */
export function confirmation(tool: string, readOnly: boolean, input: unknown, allowHosts: readonly string[] = []): Confirmation | undefined {
  const a = (typeof input === 'object' && input !== null ? input : {}) as Args;
  if (tool === 'web_fetch') {
    const url = str(a, 'url') ?? '';
    const host = hostOf(url);
    if (host !== undefined && hostAllowed(allowHosts, host)) {
      return undefined;
    }
    return { title: `Fetch from ${host ?? 'the web'}?`, message: `Fetch ${code(url)} from ${code(host ?? url)}. What the agent read may be sent with the request; \`agentls.webFetch.allowHosts\` lists hosts that need no confirmation.` };
  }
  if (readOnly) {
    return undefined;
  }
  const path = str(a, 'path') ?? '';
  switch (tool) {
    case 'bash': {
      const cmd = str(a, 'command') ?? '';
      const parts = [block(cmd, 'sh')];
      const desc = str(a, 'description');
      if (desc) parts.unshift(desc);
      if (a.run_in_background === true) parts.push('Runs in the background.');
      return { title: 'Run this command?', message: parts.join('\n\n') };
    }
    case 'write_file': {
      const content = str(a, 'content') ?? '';
      return {
        title: 'Write this file?',
        message: `Create or replace ${code(path)} with ${plural(lines(content), 'line')} (${plural(Buffer.byteLength(content, 'utf8'), 'byte')}).`,
      };
    }
    case 'edit_file': {
      const oldS = str(a, 'old_string') ?? '';
      const newS = str(a, 'new_string') ?? '';
      const how = a.replace_all === true ? 'every occurrence of' : 'one occurrence of';
      return {
        title: 'Edit this file?',
        message:
          `In ${code(path)}, replace ${how} ${plural(lines(oldS), 'line')} with ${plural(lines(newS), 'line')}:\n\n` +
          block(clip(oldS, 600)) + '\n\n→\n\n' + block(clip(newS, 600)),
      };
    }
    case 'multi_edit': {
      const edits = Array.isArray(a.edits) ? a.edits : [];
      return { title: 'Edit this file?', message: `Apply ${plural(edits.length, 'edit')} to ${code(path)}, all or none.` };
    }
    case 'notebook_edit': {
      const mode = str(a, 'edit_mode') ?? 'replace';
      const cell = str(a, 'cell_id') ?? (typeof a.cell_number === 'number' ? `#${a.cell_number}` : 'a cell');
      return { title: 'Edit this notebook?', message: `${mode[0].toUpperCase()}${mode.slice(1)} cell ${code(cell)} of ${code(path)}.` };
    }
    case 'move_file':
      return {
        title: 'Move this file?',
        message: `Move ${code(str(a, 'source') ?? '')} to ${code(str(a, 'destination') ?? '')}` +
          (a.overwrite === true ? ', replacing what is there.' : '.'),
      };
    case 'delete_file':
      return {
        title: 'Delete this file?',
        message: a.recursive === true ? `Delete ${code(path)} and everything under it.` : `Delete ${code(path)}.`,
      };
    case 'kill_shell':
      return { title: 'Stop this shell?', message: `Stop background shell ${code(str(a, 'shell_id') ?? '')} and its processes.` };
    default:
      return {
        title: `Run ${tool}?`,
        message: `The agentls tool ${code(tool)} may change the workspace. Arguments:\n\n` + block(clip(JSON.stringify(a, null, 2), 1200), 'json'),
      };
  }
}
