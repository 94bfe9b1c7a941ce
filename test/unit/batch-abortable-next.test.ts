import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { AbortableNext } from '../../src/batch/abortable-next.js';

async function* three() {
  yield 1;
  yield 2;
  yield 3;
}

describe('AbortableNext', () => {
  test('passes the values through with one listener on the signal for every read, none after close', async () => {
    const controller = new AbortController();
    const reader = new AbortableNext(three(), controller.signal);
    const seen: unknown[] = [];
    for (;;) {
      const next = await reader.next();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      if (next === 'aborted' || next.done) break;
      seen.push(next.value);
    }
    expect(seen).toEqual([1, 2, 3]);
    reader.close();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('an abort during a read that never answers gives aborted at once', async () => {
    const controller = new AbortController();
    const never: AsyncIterator<number> = { next: () => new Promise(() => {}) };
    const reader = new AbortableNext(never, controller.signal);
    const pending = reader.next();
    controller.abort();
    await expect(pending).resolves.toBe('aborted');
    await expect(reader.next()).resolves.toBe('aborted');
  });

  test('an aborted signal does not read at all', async () => {
    const controller = new AbortController();
    controller.abort();
    let reads = 0;
    const counting: AsyncIterator<number> = {
      next: async () => {
        reads++;
        return { done: true, value: undefined };
      },
    };
    const reader = new AbortableNext(counting, controller.signal);
    await expect(reader.next()).resolves.toBe('aborted');
    expect(reads).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('a failed read rejects with an Error, and a later abort finds nothing pending', async () => {
    const controller = new AbortController();
    const failing: AsyncIterator<number> = { next: () => Promise.reject('disk gone') };
    const reader = new AbortableNext(failing, controller.signal);
    await expect(reader.next()).rejects.toThrow('disk gone');
    controller.abort();
    await expect(reader.next()).resolves.toBe('aborted');
  });
});
