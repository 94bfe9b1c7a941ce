import { afterEach, describe, expect, it, vi } from 'vitest';
import { Interrupted } from '../../src/contract/errors.js';
import { backoffMs, isRetryableStatus, retryAfterMs, retryDelayMs, sleep } from '../../src/http/retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('isRetryableStatus', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [200, false],
    [400, false],
    [401, false],
    [404, false],
    [501, false],
  ])('status %i is retryable: %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });
});

describe('retryAfterMs', () => {
  it.each<[string, Record<string, string>, number | undefined]>([
    ['no header means no wish', {}, undefined],
    ['retry-after-ms is milliseconds', { 'retry-after-ms': '250' }, 250],
    ['retry-after-ms wins over Retry-After', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['retry-after-ms with a fraction', { 'retry-after-ms': '12.5' }, 12.5],
    ['an unusable retry-after-ms falls back to Retry-After', { 'retry-after-ms': 'soon', 'retry-after': '2' }, 2000],
    ['Retry-After in seconds', { 'retry-after': '3' }, 3000],
    ['Retry-After zero means now', { 'retry-after': '0' }, 0],
    ['Retry-After as an HTTP date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, 5000],
    ['an HTTP date in the past means now', { 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, 0],
    ['seconds are capped at 60 s', { 'retry-after': '3600' }, 60_000],
    ['retry-after-ms is capped at 60 s', { 'retry-after-ms': '90000' }, 60_000],
    ['a far HTTP date is capped at 60 s', { 'retry-after': 'Fri, 02 Jan 2026 00:00:00 GMT' }, 60_000],
    ['garbage is ignored', { 'retry-after': 'later please' }, undefined],
    ['negative seconds are ignored', { 'retry-after': '-5' }, undefined],
  ])('%s', (_name, headers, expected) => {
    expect(retryAfterMs(headers, NOW)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it.each([
    [0, 0.5, 500],
    [1, 0.5, 1000],
    [2, 0.5, 2000],
    [3, 0.5, 4000],
    [4, 0.5, 8000],
    [10, 0.5, 8000],
    [0, 0, 375],
    [0, 0.999999, 625],
    [1, 0, 750],
    [4, 0.999999, 8000],
  ])('attempt %i with random %f waits %i ms (500 ms × 2^n, ±25 %, capped at 8 s)', (attempt, random, expected) => {
    expect(backoffMs(attempt, () => random)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  it("prefers the server's wish over backoff", () => {
    expect(retryDelayMs(0, { 'retry-after': '7' }, () => 0.5, NOW)).toBe(7000);
  });
  it('uses backoff when the server says nothing', () => {
    expect(retryDelayMs(2, {}, () => 0.5, NOW)).toBe(2000);
    expect(retryDelayMs(1, undefined, () => 0.5, NOW)).toBe(1000);
  });
});

describe('sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after the delay, not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = sleep(5).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('ends at once with Interrupted when aborted while waiting, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    // No time passes on the fake clock: only the abort can end the wait.
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(Interrupted);
    expect(vi.getTimerCount()).toBe(0);
  });
  it('rejects with Interrupted when the signal is already aborted', async () => {
    await expect(sleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(Interrupted);
  });
});
