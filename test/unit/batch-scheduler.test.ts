import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, AuthError, UsageError } from '../../src/contract/errors.js';
import { BatchScheduler, type LineWork, type SourceLine } from '../../src/batch/scheduler.js';
import { RetryableFailure } from '../../src/call/retryable.js';
import { AdaptiveLimit } from '../../src/batch/adaptive-limit.js';

async function* linesOf(texts: string[]): AsyncGenerator<SourceLine> {
  for (let i = 0; i < texts.length; i++) yield { line: i + 1, text: texts[i] as string };
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);

/** Work whose answers the test decides per line; records in-flight counts. */
function fakeWork(
  answer: (text: string, attempt: number) => Promise<string>,
): LineWork<{ text: string; attempts: number }> & { maxInFlight: number; starts: Array<{ text: string; at: number }> } {
  let inFlight = 0;
  const work = {
    maxInFlight: 0,
    starts: [] as Array<{ text: string; at: number }>,
    parse(text: string) {
      if (text === 'bad') throw new UsageError('bad line');
      return { payload: { text, attempts: 0 }, idJson: JSON.stringify(text) };
    },
    async run(p: { text: string; attempts: number }, signal: AbortSignal) {
      inFlight++;
      work.maxInFlight = Math.max(work.maxInFlight, inFlight);
      work.starts.push({ text: p.text, at: Date.now() });
      try {
        p.attempts++;
        return await Promise.race([
          answer(p.text, p.attempts),
          new Promise<string>((_, reject) =>
            signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          ),
        ]);
      } finally {
        inFlight--;
      }
    },
  };
  return work;
}

/** A timer: on the fake clock in the tests that use one, so what runs when is decided by the clock, not the machine. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the fake clock, timer by timer, until `work` settles; no real time passes. */
async function onFakeClock<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  // Each step also lets the promise callbacks that are due run, so the scheduler reacts between timers.
  while (!settled) await vi.advanceTimersToNextTimerAsync();
  return work;
}

/** Every microtask the test's actions set off has run: the scheduler has done all it can without a timer or I/O. */
const quiet = () => new Promise((r) => setImmediate(r));

function collect(): { records: string[]; write(line: number, record: string): void; until(n: number): Promise<void> } {
  const records: string[] = [];
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  return {
    records,
    write: (_line, record) => {
      records.push(record);
      for (const w of waiting.filter((x) => records.length >= x.n)) w.resolve();
    },
    /** Resolves once `n` records are written. */
    until: (n) => (records.length >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

const parsed = (records: string[]) =>
  records.map(
    (r) =>
      JSON.parse(r) as {
        line: number;
        id?: string;
        result?: unknown;
        error?: { exit_code: number; message: string; status?: number };
      },
  );

describe('the batch scheduler', () => {
  it('writes one record per line in input order although answers arrive out of order', async () => {
    vi.useFakeTimers();
    const work = fakeWork(async (text) => {
      // 0…14 ms, scattered: line n answers after line n+1 often.
      await sleep((Number(text.slice(1)) * 7) % 15);
      return JSON.stringify(text.toUpperCase());
    });
    const sink = collect();
    const outcome = await onFakeClock(
      new BatchScheduler(work, sink, {
        concurrency: 8,
        retries: 0,
        failFast: false,
        signal: new AbortController().signal,
      }).run(linesOf(numbered(200))),
    );
    const records = parsed(sink.records);
    expect(records.map((r) => r.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(records[41]).toEqual({ line: 42, id: 'p42', result: 'P42' });
    expect(work.maxInFlight).toBe(8);
    expect(outcome).toMatchObject({ written: 200, succeeded: 200, failed: 0, interrupted: false });
  });

  it('pauses reading while the oldest line is slow: never more than the window is held', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const work = fakeWork(async (text) => {
      if (text === 'p1') await gate;
      return '1';
    });
    const sink = collect();
    const scheduler = new BatchScheduler(work, sink, {
      concurrency: 4,
      retries: 0,
      failFast: false,
      signal: new AbortController().signal,
      window: 10,
    });
    const running = scheduler.run(linesOf(numbered(100)));
    await quiet();
    // Line 1 blocks the window of 10: lines 2…10 are done, nothing further was read.
    expect(work.starts.length).toBe(10);
    expect(sink.records).toHaveLength(0);
    release();
    await running;
    expect(sink.records).toHaveLength(100);
  });

  it('a bad line and a failed line get error records; the others go on', async () => {
    const work = fakeWork(async (text) => {
      if (text === 'p3')
        throw new ApiError({ provider: 'watsonx', status: 400, code: 'invalid_input_argument', message: 'nope' });
      return '"ok"';
    });
    const sink = collect();
    const outcome = await new BatchScheduler(work, sink, {
      concurrency: 2,
      retries: 2,
      failFast: false,
      signal: new AbortController().signal,
    }).run(linesOf(['p1', 'bad', 'p3', 'p4']));
    expect(parsed(sink.records)).toEqual([
      { line: 1, id: 'p1', result: 'ok' },
      { line: 2, error: { exit_code: 2, message: 'bad line' } },
      {
        line: 3,
        id: 'p3',
        error: {
          exit_code: 4,
          message: 'watsonx returned HTTP 400 invalid_input_argument: nope',
          status: 400,
          code: 'invalid_input_argument',
        },
      },
      { line: 4, id: 'p4', result: 'ok' },
    ]);
    expect(outcome).toMatchObject({ written: 4, succeeded: 2, failed: 2 });
  });

  it('retries a retryable failure up to --retries times, then records the last error', async () => {
    const err = new ApiError({ provider: 'watsonx', status: 503, message: 'busy' });
    const work = fakeWork(async (text, attempt) => {
      if (text === 'p1' && attempt < 3) throw new RetryableFailure(err, 1, false);
      if (text === 'p2') throw new RetryableFailure(err, 1, false);
      return '1';
    });
    const sink = collect();
    await new BatchScheduler(work, sink, {
      concurrency: 2,
      retries: 2,
      failFast: false,
      signal: new AbortController().signal,
    }).run(linesOf(['p1', 'p2']));
    const records = parsed(sink.records);
    expect(records[0]).toEqual({ line: 1, id: 'p1', result: 1 });
    expect(records[1]?.error).toMatchObject({ exit_code: 4, status: 503 });
    expect(work.starts.filter((s) => s.text === 'p2')).toHaveLength(3);
  });

  it('a 429 halves the in-flight limit and holds every new start until Retry-After has passed', async () => {
    vi.useFakeTimers();
    const throttled = new ApiError({ provider: 'watsonx', status: 429, message: 'slow down' });
    let thrown = 0;
    let throttledAt = 0;
    const work = fakeWork(async (text, attempt) => {
      await sleep(5);
      if (text === 'p20' && attempt === 1) {
        thrown++;
        throttledAt = Date.now();
        throw new RetryableFailure(throttled, 150, true);
      }
      return '1';
    });
    const sink = collect();
    const outcome = await onFakeClock(
      new BatchScheduler(work, sink, {
        concurrency: 8,
        retries: 2,
        failFast: false,
        signal: new AbortController().signal,
      }).run(linesOf(numbered(60))),
    );
    expect(thrown).toBe(1);
    expect(outcome).toMatchObject({ written: 60, succeeded: 60, throttled: 1 });
    // On the fake clock the times are exact: nothing started after the 429 until its Retry-After of 150 ms had passed,
    // and the batch went on at that moment.
    const after = work.starts.filter((s) => s.at > throttledAt);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after.map((s) => s.at))).toBe(throttledAt + 150);
    expect(outcome.limit).toBeLessThanOrEqual(8);
  });

  it('--fail-fast stops at the first failed line: the records before it are written, none after', async () => {
    vi.useFakeTimers();
    const work = fakeWork(async (text) => {
      await sleep(text === 'p2' ? 30 : 2);
      if (text === 'p5') throw new ApiError({ provider: 'watsonx', status: 400, message: 'no' });
      return '1';
    });
    const sink = collect();
    const outcome = await onFakeClock(
      new BatchScheduler(work, sink, {
        concurrency: 4,
        retries: 0,
        failFast: true,
        signal: new AbortController().signal,
      }).run(linesOf(numbered(50))),
    );
    expect(parsed(sink.records).map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
    expect(outcome.stoppedAt).toEqual({ line: 5, exitCode: 4 });
    expect(work.starts.length).toBeLessThan(20);
  });

  it('an authentication failure stops the batch even without --fail-fast', async () => {
    const work = fakeWork(async (text) => {
      if (text === 'p3') throw new AuthError('watsonx returned HTTP 401: no', { status: 401 });
      return '1';
    });
    const sink = collect();
    const outcome = await new BatchScheduler(work, sink, {
      concurrency: 2,
      retries: 2,
      failFast: false,
      signal: new AbortController().signal,
    }).run(linesOf(numbered(100)));
    expect(outcome.stoppedAt).toEqual({ line: 3, exitCode: 3 });
    expect(parsed(sink.records).at(-1)).toMatchObject({ line: 3, error: { exit_code: 3, status: 401 } });
    expect(work.starts.length).toBeLessThan(10);
  });

  it('Ctrl-C aborts what is in flight and writes the finished records that are in order', async () => {
    const controller = new AbortController();
    const work = fakeWork(async (text) => {
      if (text === 'p4') await new Promise(() => {});
      return '1';
    });
    const sink = collect();
    const running = new BatchScheduler(work, sink, {
      concurrency: 4,
      retries: 0,
      failFast: false,
      signal: controller.signal,
    }).run(linesOf(numbered(100)));
    await sink.until(3);
    controller.abort();
    const outcome = await running;
    expect(outcome.interrupted).toBe(true);
    expect(parsed(sink.records).map((r) => r.line)).toEqual([1, 2, 3]);
  });

  it('a source that never ends (stdin left open) does not keep an interrupted batch waiting', async () => {
    const controller = new AbortController();
    async function* forever(): AsyncGenerator<SourceLine> {
      yield { line: 1, text: 'p1' };
      await new Promise(() => {});
    }
    const sink = collect();
    const running = new BatchScheduler(
      fakeWork(async () => '1'),
      sink,
      { concurrency: 2, retries: 0, failFast: false, signal: controller.signal },
    ).run(forever());
    await sink.until(1);
    controller.abort();
    expect((await running).interrupted).toBe(true);
    expect(sink.records).toHaveLength(1);
  });
});

describe('adaptive concurrency', () => {
  it('halves once per throttle episode and grows back by one per round of successes', () => {
    const limit = new AdaptiveLimit(16);
    expect(limit.onThrottle(1000, 2000)).toBe(true);
    expect(limit.limit).toBe(8);
    expect(limit.onThrottle(1500, 2500)).toBe(false); // same episode
    expect(limit.limit).toBe(8);
    expect(limit.onThrottle(2001, 3000)).toBe(true);
    expect(limit.limit).toBe(4);
    for (let i = 0; i < 4; i++) limit.onSuccess();
    expect(limit.limit).toBe(5);
    for (let i = 0; i < 1000; i++) limit.onSuccess();
    expect(limit.limit).toBe(16);
  });

  it('never goes below one', () => {
    const limit = new AdaptiveLimit(1);
    limit.onThrottle(0, 10);
    expect(limit.limit).toBe(1);
  });
});

describe('BatchScheduler: line signals', () => {
  async function signalsOver(lines: number, leak: boolean): Promise<AbortSignal[]> {
    const seen: AbortSignal[] = [];
    const work: LineWork<string> = {
      parse: (text) => ({ payload: text, idJson: undefined }),
      async run(text, signal) {
        expect(signal.aborted).toBe(false);
        seen.push(signal);
        const onAbort = () => undefined;
        signal.addEventListener('abort', onAbort, { once: true });
        await sleep(1);
        if (!leak) signal.removeEventListener('abort', onAbort);
        return JSON.stringify(text);
      },
    };
    const sink = collect();
    const scheduler = new BatchScheduler(work, sink, {
      concurrency: 4,
      retries: 0,
      failFast: false,
      signal: new AbortController().signal,
    });
    await scheduler.run(linesOf(numbered(lines)));
    expect(sink.records).toHaveLength(lines);
    return seen;
  }

  it('a line whose call left no listener on its signal hands the signal on to a later line', async () => {
    const seen = await signalsOver(40, false);
    expect(new Set(seen).size).toBeLessThanOrEqual(8);
  });

  it('a signal something still listens to is never reused', async () => {
    const seen = await signalsOver(40, true);
    expect(new Set(seen).size).toBe(40);
  });
});
