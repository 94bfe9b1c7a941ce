/**
 * Runs the lines of a batch a few at a time and hands their records out in input order.
 *
 * - A window of `window` lines (a few × concurrency) holds every line read but not yet written; when the oldest
 *   line is slow the window fills and reading pauses, so memory stays flat whatever the length of the input.
 * - Retries happen here, not in the HTTP client: a line that failed with a retryable status waits its backoff (or
 *   the service's Retry-After) and goes again, before any new line. A 429 also pauses every new start until its
 *   Retry-After has passed and halves the in-flight limit (AdaptiveLimit), so the batch backs off as a whole.
 * - A failed line with --fail-fast, or an authentication failure at any time, stops the batch at that line: the
 *   lines before it still finish and are written, the ones after it are aborted and dropped.
 * - Ctrl-C (the context's signal) aborts what is in flight; the records that are finished and in order are written.
 */
import { getEventListeners } from 'node:events';
import { AuthError, Interrupted, UsageError } from '../contract/errors.js';
import { backoffMs, LONG_WAIT_MS } from '../http/retry.js';
import { AdaptiveLimit } from './adaptive-limit.js';
import { lineIdOf } from './batch-line.js';
import { errorRecord, lineErrorOf, recordPrefix, resultRecord, type LineError } from './records.js';
import { RetryableFailure } from '../call/retryable.js';
import { AbortableNext } from './abortable-next.js';
import { MAX_LINE_BYTES } from './line-reader.js';
import type { BatchOutcome, BatchStats, LineWork, RecordSink, SchedulerOptions, SourceLine } from './types.js';
import { LiveSet, type Membership } from '../contract/live-set.js';

export type { BatchOutcome, BatchStats, LineWork, RecordSink, SchedulerOptions, SourceLine } from './types.js';

interface Slot<P> {
  seq: number;
  line: number;
  prefix: string;
  payload: P | undefined;
  attempts: number;
  record: string | undefined;
  ok: boolean;
  exitCode: number;
  controller: AbortController | undefined;
  /** Its place among the running lines while its call is in flight. */
  running: Membership | undefined;
  /** Aborted because the batch stopped before it: it gets no record. */
  dropped: boolean;
}

export class BatchScheduler<P> {
  readonly stats: BatchStats;
  readonly #work: LineWork<P>;
  readonly #sink: RecordSink;
  readonly #opts: Required<Omit<SchedulerOptions, 'window' | 'notice'>> & Pick<SchedulerOptions, 'notice'>;
  /** Until when the last long wait that was told about lasts: one notice per wait, not one per line that hit it. */
  #noticedUntil = 0;
  readonly #window: number;
  readonly #limit: AdaptiveLimit;
  readonly #slots: Array<Slot<P> | undefined>;
  /** Next seq to write, and next seq to assign. */
  #head = 0;
  #tail = 0;
  #queue: Array<Slot<P>> = [];
  #queueStart = 0;
  /** Lines whose retry wait is over, oldest first: they go before new lines. */
  #retryReady: Array<Slot<P>> = [];
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  // A LiveSet, not a Set: a Set kept every finished line reachable for the scavenger (live-set.ts).
  readonly #running = new LiveSet<Slot<P>>();
  /**
   * Controllers of lines that ended without being aborted, for the next lines: a new AbortController and the first
   * listener on its signal cost more CPU than a lean request's whole write (docs/performance.md, "Batch"). Only a
   * signal nobody listens to any more is reused, so no later abort can reach what a finished line left behind.
   */
  readonly #spare: AbortController[] = [];
  #pausedUntil = 0;
  #pauseTimer: NodeJS.Timeout | undefined;
  #interrupted = false;
  #stopSeq: number | undefined;
  #stoppedAt: { line: number; exitCode: number } | undefined;
  #writing = false;
  #writeError: unknown;
  #wake: (() => void) | undefined;

  constructor(work: LineWork<P>, sink: RecordSink, opts: SchedulerOptions) {
    this.#work = work;
    this.#sink = sink;
    this.#opts = { now: Date.now, random: Math.random, ...opts };
    this.#window = opts.window ?? Math.max(4 * opts.concurrency, 64);
    this.#limit = new AdaptiveLimit(opts.concurrency);
    this.#slots = new Array<Slot<P> | undefined>(this.#window);
    this.stats = { written: 0, succeeded: 0, failed: 0, throttled: 0, limit: opts.concurrency };
  }

  async run(source: AsyncIterable<SourceLine>): Promise<BatchOutcome> {
    const { signal } = this.#opts;
    const onAbort = () => this.#interrupt();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) this.#interrupt();
    const it = source[Symbol.asyncIterator]();
    const reader = new AbortableNext(it, signal);
    try {
      while (!this.#halted()) {
        if (this.#tail - this.#head >= this.#window) {
          await this.#sleepUntilWoken();
          continue;
        }
        const next = await reader.next();
        if (next === 'aborted' || next.done) break;
        this.#add(next.value);
        this.#pump();
      }
    } finally {
      reader.close();
      // A source blocked on a read (stdin) must not keep the batch alive once it is over.
      void it.return?.(undefined);
    }
    while (!this.#settled()) await this.#sleepUntilWoken();
    await this.#writeReady();
    signal.removeEventListener('abort', onAbort);
    this.#clearTimers();
    if (this.#writeError !== undefined) throw this.#writeError;
    const outcome: BatchOutcome = { ...this.stats, interrupted: this.#interrupted };
    if (this.#stoppedAt !== undefined) outcome.stoppedAt = this.#stoppedAt;
    return outcome;
  }

  #halted(): boolean {
    return this.#interrupted || this.#stopSeq !== undefined || this.#writeError !== undefined;
  }

  /** Nothing more will happen: every line read has its record, or the batch stopped and nothing is in flight. */
  #settled(): boolean {
    if (this.#running.size > 0) return false;
    if (this.#interrupted || this.#writeError !== undefined) return true;
    const end = this.#stopSeq === undefined ? this.#tail : this.#stopSeq + 1;
    return this.#head >= end && !this.#writing;
  }

  #sleepUntilWoken(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #add({ line, text, tooLong }: SourceLine): void {
    const seq = this.#tail++;
    const slot: Slot<P> = {
      seq,
      line,
      prefix: '',
      payload: undefined,
      attempts: 0,
      record: undefined,
      ok: false,
      exitCode: 0,
      controller: undefined,
      running: undefined,
      dropped: false,
    };
    this.#slots[seq % this.#window] = slot;
    try {
      if (tooLong)
        throw new UsageError(
          `the line is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB; a batch line may be at most that long`,
        );
      const parsed = this.#work.parse(text, line);
      slot.payload = parsed.payload;
      slot.prefix = recordPrefix(line, parsed.idJson);
      this.#queue.push(slot);
    } catch (e) {
      slot.prefix = recordPrefix(line, lineIdOf(e));
      this.#finishFailed(slot, e instanceof UsageError ? e : new UsageError(String(e)));
    }
  }

  #pump(): void {
    if (this.#interrupted || this.#writeError !== undefined) return;
    if (this.#pausedUntil > 0) {
      const wait = this.#pausedUntil - this.#opts.now();
      if (wait > 0) {
        this.#pauseTimer ??= setTimeout(() => {
          this.#pauseTimer = undefined;
          this.#pump();
        }, wait);
        return;
      }
      this.#pausedUntil = 0;
    }
    while (this.#running.size < this.#limit.limit) {
      const slot = this.#retryReady.length > 0 ? this.#retryReady.shift() : this.#nextQueued();
      if (slot === undefined) break;
      if (this.#stopSeq !== undefined && slot.seq > this.#stopSeq) {
        slot.dropped = true;
        continue;
      }
      this.#start(slot);
    }
  }

  #nextQueued(): Slot<P> | undefined {
    if (this.#queueStart >= this.#queue.length) return undefined;
    const slot = this.#queue[this.#queueStart++];
    // Compact now and then instead of shift(): shift is O(n) on a long queue.
    if (this.#queueStart > 1024 && this.#queueStart * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#queueStart);
      this.#queueStart = 0;
    }
    return slot;
  }

  #start(slot: Slot<P>): void {
    slot.attempts++;
    const controller = this.#spare.pop() ?? new AbortController();
    slot.controller = controller;
    slot.running = this.#running.add(slot);
    this.#work.run(slot.payload as P, controller.signal).then(
      (json) => this.#succeeded(slot, json),
      (e: unknown) => this.#failed(slot, e),
    );
  }

  #leave(slot: Slot<P>): void {
    if (slot.running !== undefined) this.#running.delete(slot.running);
    slot.running = undefined;
  }

  /** The line's call has settled: its controller, unless aborted, serves another line. */
  #spareController(slot: Slot<P>): AbortController | undefined {
    const controller = slot.controller;
    slot.controller = undefined;
    if (
      controller !== undefined &&
      !controller.signal.aborted &&
      getEventListeners(controller.signal, 'abort').length === 0
    )
      this.#spare.push(controller);
    return controller;
  }

  #succeeded(slot: Slot<P>, json: string): void {
    this.#leave(slot);
    this.#spareController(slot);
    slot.record = resultRecord(slot.prefix, json);
    slot.ok = true;
    this.#limit.onSuccess();
    this.stats.limit = this.#limit.limit;
    this.#afterLine(slot);
    this.#pump();
  }

  #failed(slot: Slot<P>, e: unknown): void {
    this.#leave(slot);
    const controller = this.#spareController(slot);
    if (controller?.signal.aborted || e instanceof Interrupted) {
      // Ctrl-C, or a line after the one that stopped the batch: no record.
      if (!this.#interrupted) slot.dropped = true;
      this.#notify();
      return;
    }
    if (e instanceof RetryableFailure) {
      const now = this.#opts.now();
      if (e.throttled) {
        this.stats.throttled++;
      }
      if (slot.attempts <= this.#opts.retries && !this.#halted()) {
        const delay = e.retryAfterMs ?? backoffMs(slot.attempts - 1, this.#opts.random);
        if (e.retryAfterMs !== undefined && e.retryAfterMs >= LONG_WAIT_MS && now + delay > this.#noticedUntil + 1000) {
          this.#noticedUntil = now + delay;
          const status = (e.error as { status?: unknown }).status;
          const what = e.throttled ? 'no new request starts' : `line ${slot.line} is retried`;
          this.#opts.notice?.(
            `note: batch: the service answered${typeof status === 'number' ? ` HTTP ${status}` : ''} and asked to wait; ${what} for ${Math.round(delay / 1000)} s`,
          );
        }
        if (e.throttled) {
          this.#limit.onThrottle(now, now + delay);
          this.stats.limit = this.#limit.limit;
          this.#pausedUntil = Math.max(this.#pausedUntil, now + delay);
        }
        this.#retryLater(slot, delay);
        this.#pump();
        return;
      }
      this.#finishFailed(slot, e.error);
    } else {
      this.#finishFailed(slot, e);
    }
    this.#pump();
  }

  #retryLater(slot: Slot<P>, delay: number): void {
    const timer = setTimeout(() => {
      this.#retryTimers.delete(timer);
      // Oldest first: the oldest line is the one holding the window.
      const at = this.#retryReady.findIndex((s) => s.seq > slot.seq);
      if (at === -1) this.#retryReady.push(slot);
      else this.#retryReady.splice(at, 0, slot);
      this.#pump();
    }, delay);
    this.#retryTimers.add(timer);
  }

  #finishFailed(slot: Slot<P>, e: unknown): void {
    const error: LineError = lineErrorOf(e);
    slot.record = errorRecord(slot.prefix, error);
    slot.ok = false;
    slot.exitCode = error.exit_code;
    // Every other line would fail the same way: an authentication failure stops the batch, --fail-fast any failure.
    if (this.#opts.failFast || e instanceof AuthError) this.#stopAt(slot);
    this.#afterLine(slot);
  }

  #stopAt(slot: Slot<P>): void {
    const seq = slot.seq;
    if (this.#stopSeq !== undefined && this.#stopSeq <= seq) return;
    this.#stopSeq = seq;
    this.#stoppedAt = { line: slot.line, exitCode: slot.exitCode };
    for (const s of this.#running) if (s.seq > seq) s.controller?.abort();
    for (const s of this.#retryReady) if (s.seq > seq) s.dropped = true;
    this.#retryReady = this.#retryReady.filter((s) => s.seq < seq);
    this.#notify();
  }

  #afterLine(slot: Slot<P>): void {
    if (slot.seq === this.#head) void this.#writeReady();
    else this.#notify();
  }

  /** Writes every finished record at the head of the window, in order. */
  async #writeReady(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      for (;;) {
        if (this.#stopSeq !== undefined && this.#head > this.#stopSeq) break;
        const slot = this.#slots[this.#head % this.#window];
        if (slot === undefined || slot.seq !== this.#head || slot.record === undefined) break;
        const pending = this.#sink.write(slot.line, slot.record);
        if (pending !== undefined) await pending;
        if (slot.ok) this.stats.succeeded++;
        else this.stats.failed++;
        this.stats.written++;
        this.#slots[this.#head % this.#window] = undefined;
        this.#head++;
      }
    } catch (e) {
      this.#writeError = e;
      this.#interrupt();
    } finally {
      this.#writing = false;
      this.#notify();
    }
  }

  #interrupt(): void {
    if (this.#interrupted) return;
    this.#interrupted = true;
    for (const s of this.#running) s.controller?.abort();
    this.#clearTimers();
    this.#notify();
  }

  #clearTimers(): void {
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    if (this.#pauseTimer !== undefined) clearTimeout(this.#pauseTimer);
    this.#pauseTimer = undefined;
  }
}
