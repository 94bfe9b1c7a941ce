/**
 * Admission of new requests to their routes: at most one starts per turn of the event loop, so the answers already
 * in flight get the loop between two starts.
 *
 * Why: a burst of requests (100 clients starting at once) arrives in one poll of the event loop, and each route's
 * start (validating the body, planning the answer, sending the upstream request of `serve --upstream`) runs
 * synchronously up to its first wait. Started all at once, they hold the loop for the whole burst — about 100 ×
 * 0.5 ms — and every event of the streams already running (the upstream's tokens) waits behind it: that was most of
 * `serve --upstream`'s p99 added latency in bench/gateway.mjs. One start per turn bounds that wait by one start's
 * work. The total work is the same; a request of a burst waits for the turns of those before it instead of for
 * their whole start-up, which it waited for anyway.
 *
 * A turn is one `setImmediate`: the loop polls for I/O (without blocking, since an immediate is pending) between
 * two of them. A request that finds no one queued and no start in this turn starts at once, with no delay.
 */
export class Admission {
  readonly #waiting: Array<() => void> = [];
  #head = 0;
  #startedThisTurn = false;
  #scheduled = false;

  /** Resolves when the caller may start; undefined when it may start now. */
  admit(): Promise<void> | undefined {
    if (!this.#startedThisTurn && this.#head === this.#waiting.length) {
      this.#startedThisTurn = true;
      this.#schedule();
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#turn);
  }

  readonly #turn = (): void => {
    this.#scheduled = false;
    this.#startedThisTurn = false;
    if (this.#head === this.#waiting.length) return;
    const next = this.#waiting[this.#head] as () => void;
    this.#head += 1;
    if (this.#head === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#head = 0;
    }
    this.#startedThisTurn = true;
    // The route runs in the microtasks after this callback, before the loop's next poll.
    next();
    this.#schedule();
  };
}
