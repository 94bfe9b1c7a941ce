/**
 * CallGuards (src/call/guards.ts): one signal for a call, ended by the user, the time limit or the silence
 * watchdog, and afterwards the one cause. One watchdog timer per stream (re-armed when it fires early), and the
 * user's signals let go of the call at dispose(), so a batch's thousands of calls on one Ctrl-C signal leave
 * nothing behind on it.
 */
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallGuards } from '../../src/call/guards.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('CallGuards', () => {
  it('the user: the signal aborts with the user signal reason, and only cancelled() says so', () => {
    const user = new AbortController();
    const guards = new CallGuards({ user: [user.signal], silenceMs: 1000 });
    expect(guards.signal.aborted).toBe(false);
    user.abort(new Error('stop'));
    expect(guards.signal.aborted).toBe(true);
    expect((guards.signal.reason as Error).message).toBe('stop');
    expect([guards.cancelled(), guards.timedOut(), guards.silent()]).toEqual([true, false, false]);
  });

  it('cancel(): the caller stops the call as the user would', () => {
    const guards = new CallGuards({ user: [], silenceMs: 1000 });
    guards.heard();
    guards.cancel();
    expect(guards.signal.aborted).toBe(true);
    expect([guards.cancelled(), guards.timedOut(), guards.silent()]).toEqual([true, false, false]);
  });

  it('an already aborted user signal ends the call at once', () => {
    const user = new AbortController();
    user.abort();
    const guards = new CallGuards({ user: [user.signal], silenceMs: 0 });
    expect(guards.signal.aborted).toBe(true);
    expect(guards.cancelled()).toBe(true);
  });

  it('any of several user signals ends it', () => {
    const a = new AbortController();
    const b = new AbortController();
    const guards = new CallGuards({ user: [a.signal, b.signal], silenceMs: 0 });
    b.abort();
    expect(guards.signal.aborted).toBe(true);
    expect(guards.cancelled()).toBe(true);
  });

  it('the time limit starts with start() and reads as timedOut()', () => {
    const guards = new CallGuards({ user: [], limitMs: 500, silenceMs: 0 });
    vi.advanceTimersByTime(1000);
    expect(guards.signal.aborted).toBe(false);
    guards.start();
    vi.advanceTimersByTime(499);
    expect(guards.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect([guards.cancelled(), guards.timedOut(), guards.silent()]).toEqual([false, true, false]);
  });

  it('the watchdog fires after silenceMs without an event; each event gives another silenceMs', () => {
    const guards = new CallGuards({ user: [], silenceMs: 1000 });
    guards.heard();
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(900);
      guards.heard();
    }
    expect(guards.signal.aborted).toBe(false);
    vi.advanceTimersByTime(999);
    expect(guards.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect([guards.cancelled(), guards.timedOut(), guards.silent()]).toEqual([false, false, true]);
  });

  it('one timer for a stream however many events come', () => {
    const guards = new CallGuards({ user: [], silenceMs: 1000 });
    for (let i = 0; i < 1000; i++) guards.heard();
    expect(vi.getTimerCount()).toBe(1);
    guards.unwatch();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(guards.signal.aborted).toBe(false);
  });

  it('silenceMs 0 turns the watchdog off', () => {
    const guards = new CallGuards({ user: [], silenceMs: 0 });
    guards.heard();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the first cause is the one: a user abort after the time limit does not make it a time limit', () => {
    const user = new AbortController();
    const guards = new CallGuards({ user: [user.signal], limitMs: 10, silenceMs: 0 });
    guards.start();
    vi.advanceTimersByTime(10);
    expect(guards.timedOut()).toBe(true);
    user.abort();
    // The user pressed Ctrl-C too: that is what the call reports (exit 130), as before.
    expect(guards.cancelled()).toBe(true);
    expect(guards.timedOut()).toBe(false);
  });

  it("dispose() takes the call's listener off the user's signals and stops every timer", () => {
    const user = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const guards = new CallGuards({ user: [user.signal], limitMs: 60_000, silenceMs: 1000 });
      guards.start();
      guards.heard();
      guards.dispose();
    }
    expect(getEventListeners(user.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
