import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/emulator/core/admission.js';

/** Resolves after `n` turns of the event loop. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('Admission', () => {
  it('starts a lone request at once, without a promise', () => {
    const admission = new Admission();
    expect(admission.admit()).toBeUndefined();
    expect(admission.waiting).toBe(0);
  });

  it('starts a burst one per turn of the event loop, in arrival order, with the loop polled in between', async () => {
    const admission = new Admission();
    const log: string[] = [];
    // An independent chain of immediates: one 'tick' per turn of the loop.
    let ticking = true;
    const tick = (): void => {
      if (!ticking) return;
      log.push('tick');
      setImmediate(tick);
    };
    setImmediate(tick);
    const started = Array.from({ length: 5 }, async (_, i) => {
      const turn = admission.admit();
      if (i === 0) expect(turn).toBeUndefined();
      else expect(turn).toBeInstanceOf(Promise);
      await turn;
      log.push(`start ${i}`);
    });
    expect(admission.waiting).toBe(4);
    await Promise.all(started);
    ticking = false;
    const starts = log.filter((l) => l.startsWith('start'));
    expect(starts).toEqual(['start 0', 'start 1', 'start 2', 'start 3', 'start 4']);
    // Never two starts without a turn of the loop between them (after the first, which ran at once).
    const afterFirst = log.slice(log.indexOf('start 0') + 1);
    for (let i = 1; i < afterFirst.length; i++)
      if (afterFirst[i]?.startsWith('start')) expect(afterFirst[i - 1]).toBe('tick');
    expect(admission.waiting).toBe(0);
  });

  it('lets a second request start at once again once a turn has passed with no one waiting', async () => {
    const admission = new Admission();
    expect(admission.admit()).toBeUndefined();
    // In the same turn: it waits.
    const second = admission.admit();
    expect(second).toBeInstanceOf(Promise);
    await second;
    await turns(2);
    expect(admission.admit()).toBeUndefined();
  });

  it('keeps order when requests keep arriving while others wait', async () => {
    const admission = new Admission();
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
