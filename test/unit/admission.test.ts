import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/emulator/core/admission.js';

/** Resolves after `n` turns of the event loop. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** An independent chain of immediates: one 'tick' in `log` per turn of the loop, until the returned stop is called. */
function tickInto(log: string[]): () => void {
  let ticking = true;
  const tick = (): void => {
    if (!ticking) return;
    log.push('tick');
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    ticking = false;
  };
}

describe('Admission, budget 0 (one start per turn)', () => {
  it('starts a lone request at once, without a promise', () => {
    const admission = new Admission(0);
    expect(admission.admit()).toBeUndefined();
    expect(admission.waiting).toBe(0);
  });

  it('starts a burst one per turn of the event loop, in arrival order, with the loop polled in between', async () => {
    const admission = new Admission(0);
    const log: string[] = [];
    const stopTicking = tickInto(log);
    const started = Array.from({ length: 5 }, async (_, i) => {
      const turn = admission.admit();
      if (i === 0) expect(turn).toBeUndefined();
      else expect(turn).toBeInstanceOf(Promise);
      await turn;
      log.push(`start ${i}`);
    });
    expect(admission.waiting).toBe(4);
    await Promise.all(started);
    stopTicking();
    const starts = log.filter((l) => l.startsWith('start'));
    expect(starts).toEqual(['start 0', 'start 1', 'start 2', 'start 3', 'start 4']);
    // Never two starts without a turn of the loop between them (after the first, which ran at once).
    const afterFirst = log.slice(log.indexOf('start 0') + 1);
    for (let i = 1; i < afterFirst.length; i++)
      if (afterFirst[i]?.startsWith('start')) expect(afterFirst[i - 1]).toBe('tick');
    expect(admission.waiting).toBe(0);
  });

  it('lets a second request start at once again once a turn has passed with no one waiting', async () => {
    const admission = new Admission(0);
    expect(admission.admit()).toBeUndefined();
    // In the same turn: it waits.
    const second = admission.admit();
    expect(second).toBeInstanceOf(Promise);
    await second;
    await turns(2);
    expect(admission.admit()).toBeUndefined();
  });

  it('keeps order when requests keep arriving while others wait', async () => {
    const admission = new Admission(0);
    const order: number[] = [];
    const start = async (i: number): Promise<void> => {
      await admission.admit();
      order.push(i);
    };
    const all = [start(0), start(1), start(2)];
    await turns(1);
    all.push(start(3), start(4));
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('Admission with a time budget per turn', () => {
  /** A clock that each start moves on by `costMs`, as a start's synchronous work would. */
  const clock = () => {
    const c = { now: 0 };
    return { c, now: () => c.now };
  };

  it('starts a burst of cheap starts within one turn, and the rest in the next turn', async () => {
    const { c, now } = clock();
    const admission = new Admission(1, now);
    const log: string[] = [];
    const stopTicking = tickInto(log);
    // As the server does: a request admitted at once starts in the same synchronous run.
    const started = Array.from({ length: 6 }, async (_, i) => {
      const turn = admission.admit();
      if (turn) await turn;
      log.push(`start ${i}`);
      c.now += 0.4; // each start's work
    });
    await Promise.all(started);
    stopTicking();
    // 0, 0.4 and 0.8 ms into the turn fit the 1 ms budget; the fourth start (at 1.2 ms) waits for the next turn.
    const firstTick = log.indexOf('tick');
    expect(log.slice(0, firstTick)).toEqual(['start 0', 'start 1', 'start 2']);
    expect(log.filter((l) => l.startsWith('start'))).toEqual([0, 1, 2, 3, 4, 5].map((i) => `start ${i}`));
    const secondTurn = log.slice(firstTick + 1);
    expect(secondTurn.slice(0, 3)).toEqual(['start 3', 'start 4', 'start 5']);
  });

  it('lets arrivals of the same turn start at once while the budget lasts, and queues them after', () => {
    const { c, now } = clock();
    const admission = new Admission(1, now);
    expect(admission.admit()).toBeUndefined();
    c.now += 0.5;
    expect(admission.admit()).toBeUndefined();
    c.now += 0.6;
    expect(admission.admit()).toBeInstanceOf(Promise);
    expect(admission.waiting).toBe(1);
  });

  it('holds an expensive start to one per turn, as budget 0 does', async () => {
    const { c, now } = clock();
    const admission = new Admission(1, now);
    const order: string[] = [];
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      if (!ticking) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const turn = admission.admit();
        if (turn) await turn;
        order.push(`start ${i} after ${turns} turns`);
        c.now += 2; // longer than the budget
      }),
    );
    ticking = false;
    expect(order).toEqual([
      'start 0 after 0 turns',
      'start 1 after 1 turns',
      'start 2 after 2 turns',
      'start 3 after 3 turns',
    ]);
  });
});

describe('Admission while event streams are open', () => {
  it('goes back to one start per turn while a stream is open, and to the budget once it closes', async () => {
    const { EventEmitter } = await import('node:events');
    const c = { now: 0 };
    const admission = new Admission(1, () => c.now);
    const res = new EventEmitter();
    admission.streamOpened(res);
    expect(admission.admit()).toBeUndefined();
    // Cheap (the clock has not moved), but a stream is open: the second start of the turn waits.
    const second = admission.admit();
    expect(second).toBeInstanceOf(Promise);
    await second;
    res.emit('close');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(admission.admit()).toBeUndefined();
    expect(admission.admit()).toBeUndefined();
  });
});
