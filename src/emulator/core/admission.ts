import type { ClosingAnswer, StreamCounter } from './router.js';

/**
 * Admission of new requests to their routes: while event streams are open, at most one request starts per turn of
 * the event loop; while none is, starts share a turn up to a time budget.
 *
 * Why: a burst of requests (100 clients starting at once) arrives in one poll of the event loop, and each route's
 * start (validating the body, planning the answer, sending the upstream request of `serve --upstream`) runs
 * synchronously up to its first wait. Started all at once, they hold the loop for the whole burst — about 100 ×
 * 0.5 ms — and every event of the streams already running (the upstream's tokens) waits behind it: that was most of
 * `serve --upstream`'s p99 added latency in bench/gateway.mjs. One start per turn bounds that wait by one start.
 *
 * Why a budget when no stream is open: nothing then waits for an event, and a cheap start (a plain completion:
 * about a tenth of a millisecond) paid a whole turn of the loop each; a batch client's 64 requests in flight spent
 * longer queued here than being answered (bench/batch.mjs: 0.65× of ideal throughput against 0.75× without
 * admission). A budget, not no limit, so that answers whose wait is over (a delay, a token) still get the loop
 * within about a millisecond of a burst. Measured against a budget while streams are open: bench/gateway.mjs's p99
 * rose from 6.2–6.6 ms added to 8.2–9.4 ms with 1 ms, and 7.4–8.4 ms with 0.3 ms.
 *
 * A turn is one `setImmediate`: the loop polls for I/O (without blocking, since an immediate is pending) between
 * two of them. A request that finds no one queued and room in this turn starts at once, with no delay.
 */
export const TURN_BUDGET_MS = 1;

export class Admission implements StreamCounter {
  readonly #waiting: Array<(() => void) | undefined> = [];
  #head = 0;
  /** When the first start of this turn began (the clock's ms); undefined when none has started in this turn. */
  #turnStartedAt: number | undefined;
  #scheduled = false;
  /** Event streams open now (streamOpened, until each answer closes). */
  #streams = 0;
  readonly #budgetMs: number;
  readonly #now: () => number;

  /** `budgetMs` 0 starts one request per turn; `now` is the clock (tests). */
  constructor(budgetMs = TURN_BUDGET_MS, now: () => number = () => performance.now()) {
    this.#budgetMs = budgetMs;
    this.#now = now;
  }

  /** Resolves when the caller may start; undefined when it may start now. */
  admit(): Promise<void> | undefined {
    if (this.#head === this.#waiting.length && this.#budgetLeft()) return undefined;
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  /** An event stream began on `res`: until it closes, starts go one per turn. */
  streamOpened(res: ClosingAnswer): void {
    this.#streams++;
    res.once('close', this.#streamClosed);
  }

  readonly #streamClosed = (): void => {
    this.#streams--;
  };

  /** Whether a start begun `at` leaves room for another in this turn. */
  #roomAfter(at: number): boolean {
    return this.#streams === 0 && this.#now() - at < this.#budgetMs;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Whether one more start fits in this turn; the first of a turn always does (and opens the turn). */
  #budgetLeft(): boolean {
    if (this.#turnStartedAt === undefined) {
      this.#turnStartedAt = this.#now();
      this.#schedule();
      return true;
    }
    return this.#roomAfter(this.#turnStartedAt);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#turn);
  }

  readonly #turn = (): void => {
    this.#scheduled = false;
    this.#turnStartedAt = undefined;
    if (this.#head === this.#waiting.length) return;
    this.#turnStartedAt = this.#now();
    this.#schedule();
    this.#startNext();
  };

  #startNext(): void {
    const next = this.#waiting[this.#head] as () => void;
    // Cleared, not left behind the head: a long-lived array's stale slot would keep the request it started
    // reachable for the scavenger (lazy-property.ts says what that costs).
    this.#waiting[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#waiting.length) {
      this.#waiting.length = 0;
      this.#head = 0;
    }
    // The route runs in the microtasks after this one; `#more` is queued behind its synchronous part.
    next();
    queueMicrotask(this.#more);
  }

  /** After a start's synchronous part: the next waiting request, if the turn's budget is not used up. */
  readonly #more = (): void => {
    if (this.#head === this.#waiting.length || this.#turnStartedAt === undefined) return;
    if (this.#roomAfter(this.#turnStartedAt)) this.#startNext();
  };
}
