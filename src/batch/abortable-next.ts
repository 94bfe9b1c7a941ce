/**
 * The source's next line, or 'aborted' as soon as Ctrl-C comes (stdin may never answer). Not Promise.race with one
 * shared abort promise: every race would leave a reaction on it, a leak of one per line. One abort listener for the
 * whole read, not one added and removed per line: each addEventListener/removeEventListener pair on an AbortSignal
 * cost several microseconds a line (docs/performance.md, "Batch").
 */
export class AbortableNext<T> {
  readonly #it: AsyncIterator<T>;
  readonly #signal: AbortSignal;
  /** The pending read's resolve, while one is pending. */
  #pending: ((v: 'aborted') => void) | undefined;
  readonly #onAbort = (): void => {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.('aborted');
  };

  constructor(it: AsyncIterator<T>, signal: AbortSignal) {
    this.#it = it;
    this.#signal = signal;
    if (!signal.aborted) signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  next(): Promise<IteratorResult<T> | 'aborted'> {
    if (this.#signal.aborted) return Promise.resolve('aborted');
    return new Promise((resolve, reject) => {
      this.#pending = resolve;
      this.#it.next().then(
        (v) => {
          if (this.#pending === resolve) this.#pending = undefined;
          resolve(v);
        },
        (e: unknown) => {
          if (this.#pending === resolve) this.#pending = undefined;
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  /** Stops listening on the signal (the read is over). */
  close(): void {
    this.#pending = undefined;
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}
