/**
 * The ids and timestamps serve writes into an answer (`chatcmpl-…`, `created`, watsonx `created_at`, error traces).
 * Normally random ids and the time of the answer. With a cassette (`serve --upstream … --record|--replay DIR`) an
 * answer must be a pure function of the front request and the upstream's recorded answer, so that recording and
 * replaying give the same bytes: each front request then runs with a replayable clock, whose ids are drawn from a
 * hash of the front request (the same request, the same ids) and whose time is the recorded answer's (the first
 * read while recording, kept beside the cassette's entries: src/cassette/front-times.ts). Within one answer every
 * read of the time gives the same value, so the stream's events carry one timestamp. docs/cassettes.md.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes, randomUUID } from 'node:crypto';

interface AnswerClock {
  now(): number;
  hex(bytes: number): string;
}

const current = new AsyncLocalStorage<AnswerClock>();

/** Milliseconds since the epoch, for the answer being written. */
export function answerNow(): number {
  const clock = current.getStore();
  return clock === undefined ? Date.now() : clock.now();
}

/** Seconds since the epoch (OpenAI's `created`). */
export function answerSeconds(): number {
  return Math.floor(answerNow() / 1000);
}

/** ISO 8601 (watsonx's `created_at`). */
export function answerIso(): string {
  return new Date(answerNow()).toISOString();
}

/** `bytes` random bytes as hex, or with a replayable clock the next ones drawn from the request's hash. */
export function answerHex(bytes: number): string {
  const clock = current.getStore();
  if (clock !== undefined) return clock.hex(bytes);
  // randomUUID draws from a cached pool; randomBytes per answer was a measurable share of the server's time.
  if (bytes <= 15)
    return randomUUID()
      .replaceAll('-', '')
      .slice(0, bytes * 2);
  return randomBytes(bytes).toString('hex');
}

/** A version-4-shaped UUID, random or drawn like answerHex. */
export function answerUuid(): string {
  const clock = current.getStore();
  if (clock === undefined) return randomUUID();
  const h = clock.hex(16);
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Runs `fn` with a replayable clock: ids from `seed` (a hash of the front request), the time `pinnedMs` when a
 * recording gave one, else the time of the first read, which `onFirstRead` is told at once (so that it is kept
 * before the answer ends: a client that stops serve when it has its answer loses nothing).
 */
export function withReplayableClock<T>(
  seed: string,
  pinnedMs: number | undefined,
  onFirstRead: (ms: number) => void,
  fn: () => T,
): T {
  let time = pinnedMs;
  let drawn = 0;
  const clock: AnswerClock = {
    now: () => {
      if (time === undefined) {
        time = Date.now();
        onFirstRead(time);
      }
      return time;
    },
    hex: (bytes) => {
      let out = '';
      while (out.length < bytes * 2) out += createHash('sha256').update(`${seed}:${drawn++}`).digest('hex');
      return out.slice(0, bytes * 2);
    },
  };
  return current.run(clock, fn);
}
