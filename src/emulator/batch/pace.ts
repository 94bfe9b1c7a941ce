/**
 * The batch services' clock. A batch's life is measured in emulated seconds (validation, each line, finalizing,
 * cancelling: PHASE_MS), and `--batch-speed N` makes N emulated seconds pass in one real second. The
 * timestamps a batch reports are its `created_at` plus the emulated time it has spent, so they add up the way a real
 * batch's do, and a window expires when the modelled time passes it, whatever the machine's speed: a test that
 * expires a batch does not depend on load.
 */
import type { BatchRecord } from './types.js';

/**
 * Emulated milliseconds each step costs (a real batch of 50 000 requests takes about an hour and a half); whole
 * milliseconds, so that the clock adds up exactly (0.1 s ten times is 1 s, not 0.9999…).
 */
export const PHASE_MS = { validating: 20_000, line: 100, finalizing: 20_000, cancelling: 10_000 } as const;

/** Below this much owed real time the pace does not sleep (timers are not finer), it yields. */
const MIN_SLEEP_MS = 4;
/** Lines between yields, so that a fast engine does not keep the server from answering status requests. */
const YIELD_EVERY = 16;

export class Pace {
  private owedMs = 0;
  private steps = 0;

  constructor(
    private readonly speed: number,
    private readonly signal: AbortSignal,
  ) {}

  /** Spends `ms` of the batch's emulated time, sleeping for its real share; false once the server closes. */
  async spend(batch: BatchRecord, ms: number): Promise<boolean> {
    batch.elapsedMs += ms;
    this.owedMs += ms / this.speed;
    this.steps++;
    if (this.owedMs >= MIN_SLEEP_MS) {
      const ms = this.owedMs;
      this.owedMs = 0;
      this.steps = 0;
      return sleep(ms, this.signal);
    }
    if (this.steps >= YIELD_EVERY) {
      this.steps = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return !this.signal.aborted;
  }
}

/** The batch's clock now, in whole Unix seconds. */
export function batchNow(batch: BatchRecord): number {
  return batch.createdAt + Math.floor(batch.elapsedMs / 1000);
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `24h`, `7d`, `90m`, `3600s` → seconds; undefined when it is none of these. */
export function windowSeconds(window: string): number | undefined {
  const m = /^(\d{1,7})([smhd])$/.exec(window);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return n > 0 ? n * unit : undefined;
}
