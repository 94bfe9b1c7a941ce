/**
 * When to try again and how long to wait first (docs/design.md §7). Pure functions plus the default sleep,
 * so the client's loop stays readable and the timing rules are tested without sockets.
 */
import { Interrupted } from '../contract/errors.js';

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Base of the exponential backoff: 0.5 s, 1 s, 2 s, 4 s, 8 s. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
/** Whatever a server asks for, we never wait longer than this between attempts. */
export const RETRY_AFTER_CAP_MS = 60_000;
const JITTER = 0.25;
/** A wait the service asks for that is this long or longer is said on stderr: a silent minute looks like a hang. */
export const LONG_WAIT_MS = 5_000;

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * The server's own wish, from `retry-after-ms` (OpenAI/Azure) or `Retry-After` (seconds or an HTTP
 * date), capped at 60 s. Undefined when neither header holds a usable value.
 */
export function retryAfterMs(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = headers['retry-after-ms']?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.min(Number(ms), RETRY_AFTER_CAP_MS);

  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_CAP_MS);
  // An HTTP date always names a day or month; without letters Date.parse would read "-5" as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), RETRY_AFTER_CAP_MS);
}

/** Exponential backoff with ±25 % jitter so that many clients do not retry in step. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_CAP_MS);
  const jittered = base * (1 + (random() * 2 - 1) * JITTER);
  return Math.round(Math.min(jittered, BACKOFF_CAP_MS));
}

/** The wait after failed attempt number `attempt` (0 = the first try). */
export function retryDelayMs(
  attempt: number,
  headers: Record<string, string> | undefined,
  random: () => number = Math.random,
  now: number = Date.now(),
): number {
  const asked = headers ? retryAfterMs(headers, now) : undefined;
  return asked ?? backoffMs(attempt, random);
}

/** Waits `ms`; an abort ends the wait at once with Interrupted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Interrupted());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Interrupted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
