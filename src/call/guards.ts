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

export class CallGuards {
  readonly signal: AbortSignal;
  readonly silenceMs: number;
  private readonly user: AbortSignal;
  private readonly deadline = new AbortController();
  private readonly silence = new AbortController();
  private readonly limitMs: number | undefined;
  private limitTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(options: GuardOptions) {
    this.user = options.user.length === 1 ? (options.user[0] as AbortSignal) : AbortSignal.any([...options.user]);
    this.limitMs = options.limitMs;
    this.silenceMs = options.silenceMs;
    this.signal = AbortSignal.any([this.user, this.deadline.signal, this.silence.signal]);
  }

  /** Starts the time limit, when there is one: call it right before sending. */
  start(): void {
    if (this.limitMs !== undefined) this.limitTimer = setTimeout(() => this.deadline.abort(), this.limitMs);
  }

  /** The user cancelled. */
  cancelled(): boolean {
    return this.user.aborted;
  }

  /** The time limit (not the user) cut the call short. */
  timedOut(): boolean {
    return this.deadline.signal.aborted && !this.user.aborted;
  }

  /** The watchdog (not the user) ended a silent stream. */
  silent(): boolean {
    return this.silence.signal.aborted && !this.user.aborted;
  }

  /** An event arrived: the stream may be silent for another --timeout. */
  heard(): void {
    clearTimeout(this.watchdog);
    if (this.silenceMs > 0) this.watchdog = setTimeout(() => this.silence.abort(), this.silenceMs);
  }

  /** The stream is over: no watchdog any more. */
  unwatch(): void {
    clearTimeout(this.watchdog);
  }

  dispose(): void {
    clearTimeout(this.limitTimer);
    clearTimeout(this.watchdog);
  }
}
