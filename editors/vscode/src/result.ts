// Mapping an agentls.callTool result to the text the model reads. Pure.

export interface CallResult {
  content: string;
  isError: boolean;
}

/**
 * The text for the model. A tool error is text too, marked as such, so the model can read what
 * went wrong and correct the call; a result that does not have the contract's shape says so.
 */
export function resultText(toolName: string, raw: unknown): { text: string; isError: boolean } {
  const r = raw as Partial<CallResult> | null | undefined;
  if (typeof r !== 'object' || r === null || typeof r.content !== 'string') {
    return { text: `agentls: ${toolName} returned no result (got ${clip(JSON.stringify(raw) ?? String(raw), 120)})`, isError: true };
  }
  if (r.isError === true) {
    return { text: `Error from ${toolName}: ${r.content}`, isError: true };
  }
  return { text: r.content === '' ? '(no output)' : r.content, isError: false };
}

/** The text for a call that failed before the tool ran (server not running, protocol error). */
export function failureText(toolName: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `Error: agentls could not run ${toolName}: ${msg}`;
}

export function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1) + '…';
}
