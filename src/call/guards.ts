/**
 * What may end a call early, in one signal for the HTTP client: the user (Ctrl-C, the interactive loop's own
 * Ctrl-C, a batch line's cancel), a client-side time limit, and the silence watchdog of a stream (no event for
 * --timeout; keep-alive comments do not count). Afterwards the call asks which of them it was: the same abort reads
 * as "interrupted" (exit 130), "time limit" (the text so far, exit 0) or "stream broke off" (exit 6).
 */
export interface GuardOptions {
  /** Signals of the user's: Ctrl-C and anything that cancels only this call. */
  user: readonly AbortSignal[];
  /** A time limit the CLI keeps (a client deadline, or the backstop behind a service's own), from `start()`. */
  limitMs?: number | undefined;
  /** --timeout: the longest a stream may go without an event; 0 turns the watchdog off. */
  silenceMs: number;
}

/**
 * One AbortController for the whole call rather than one per cause joined with AbortSignal.any (which in Node 20
 * costs a weak reference and a finalizer per signal, a visible share of a gateway's or a batch's CPU per call):
 * the user's signals are linked with one listener each, removed by dispose(), and the cause is remembered.
 */
export class CallGuards {
  readonly signal: AbortSignal;
  readonly silenceMs: number;
  private readonly controller = new AbortController();
  private readonly users: readonly AbortSignal[];
  private cause: 'user' | 'deadline' | 'silence' | undefined;
  private readonly limitMs: number | undefined;
  private limitTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  /** When the last event came (Date.now()): the watchdog is armed once and re-armed only when it fires early. */
  private lastHeard = 0;
  private readonly onUserAbort = (event: Event): void => {
    this.abort('user', (event.target as AbortSignal).reason);
  };

  constructor(options: GuardOptions) {
    this.users = options.user;
    this.limitMs = options.limitMs;
    this.silenceMs = options.silenceMs;
    this.signal = this.controller.signal;
    const already = this.users.find((s) => s.aborted);
    if (already) this.abort('user', already.reason);
    else for (const s of this.users) s.addEventListener('abort', this.onUserAbort, { once: true });
  }

  private abort(cause: 'user' | 'deadline' | 'silence', reason?: unknown): void {
    if (this.controller.signal.aborted) return;
    this.cause = cause;
    this.unlink();
    this.controller.abort(reason);
  }

  private unlink(): void {
    for (const s of this.users) s.removeEventListener('abort', this.onUserAbort);
  }

  /** The caller stops the call as the user would (the reader of its answer went away). */
  cancel(reason?: unknown): void {
    this.abort('user', reason);
  }

  /** Starts the time limit, when there is one: call it right before sending. */
  start(): void {
    if (this.limitMs !== undefined) this.limitTimer = setTimeout(() => this.abort('deadline'), this.limitMs);
  }

  /** The user cancelled. */
  cancelled(): boolean {
    return this.cause === 'user' || this.users.some((s) => s.aborted);
  }

  /** The time limit (not the user) cut the call short. */
  timedOut(): boolean {
    return this.cause === 'deadline' && !this.cancelled();
  }

  /** The watchdog (not the user) ended a silent stream. */
  silent(): boolean {
    return this.cause === 'silence' && !this.cancelled();
  }

  /** An event arrived: the stream may be silent for another --timeout. */
  heard(): void {
    if (this.silenceMs <= 0) return;
    this.lastHeard = Date.now();
    // One timer per stream, not one per event: when it fires it looks at when the last event came.
    this.watchdog ??= setTimeout(this.watch, this.silenceMs);
  }

  private readonly watch = (): void => {
    const quiet = Date.now() - this.lastHeard;
    if (quiet >= this.silenceMs) {
      this.watchdog = undefined;
      this.abort('silence');
    } else this.watchdog = setTimeout(this.watch, this.silenceMs - quiet);
  };

  /** The stream is over: no watchdog any more. */
  unwatch(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  /** The call is over: no timers, and the user's signals no longer hold on to it. */
  dispose(): void {
    clearTimeout(this.limitTimer);
    this.unwatch();
    this.unlink();
  }
}
