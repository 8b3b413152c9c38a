// When to restart a server that stopped on its own. Pure: the caller passes the clock.

export interface BackoffOptions {
  /** The first delay, in ms. */
  initialMs: number;
  /** No delay is longer than this. */
  maxMs: number;
  /** A server that ran this long before it stopped counts as healthy: the delays start over. */
  resetAfterMs: number;
  /** After this many crashes in a row, give up (the user can still restart by command). */
  maxAttempts: number;
}

export const defaultBackoff: BackoffOptions = { initialMs: 1000, maxMs: 30000, resetAfterMs: 60000, maxAttempts: 8 };

export class Backoff {
  private attempts = 0;
  constructor(private readonly opts: BackoffOptions = defaultBackoff) {}

  /**
   * Called when the server stopped unexpectedly after running for ranMs. Returns the delay before
   * the next start, or undefined to give up.
   */
  next(ranMs: number): number | undefined {
    if (ranMs >= this.opts.resetAfterMs) {
      this.attempts = 0;
    }
    if (this.attempts >= this.opts.maxAttempts) {
      return undefined;
    }
    const delay = Math.min(this.opts.maxMs, this.opts.initialMs * 2 ** this.attempts);
    this.attempts++;
    return delay;
  }

  /** A start the user asked for: the count starts over. */
  reset(): void {
    this.attempts = 0;
  }

  get crashes(): number {
    return this.attempts;
  }
}
