import { describe, expect, it } from 'vitest';
import { withLazy, withReadThrough } from '../../src/contract/lazy-property.js';

describe('withLazy', () => {
  it('computes on the first read only, and keeps the value', () => {
    let calls = 0;
    const o = withLazy({ id: 1 }, 'top', () => {
      calls++;
      return [calls];
    });
    expect(calls).toBe(0);
    expect(o.top).toEqual([1]);
    expect(o.top).toBe(o.top);
    expect(calls).toBe(1);
  });

  it('looks like a plain object with the property last: JSON, spread, keys, deep equality', () => {
    const o = withLazy({ id: 1, text: 'a' }, 'topTokens', () => [{ text: 'b' }]);
    const plain = { id: 1, text: 'a', topTokens: [{ text: 'b' }] };
    expect(JSON.stringify(o)).toBe(JSON.stringify(plain));
    expect({ ...o }).toEqual(plain);
    expect(Object.keys(o)).toEqual(['id', 'text', 'topTokens']);
    expect(o).toEqual(plain);
    expect(Object.getOwnPropertySymbols({ ...o })).toEqual([]);
  });

  it('takes an assignment before or after the first read, without computing', () => {
    let calls = 0;
    const o = withLazy({ id: 1 } as { id: number }, 'top', (): number[] | undefined => {
      calls++;
      return [9];
    });
    o.top = undefined;
    expect(o.top).toBeUndefined();
    expect(JSON.stringify(o)).toBe('{"id":1}');
    o.top = [2];
    expect(o.top).toEqual([2]);
    expect(calls).toBe(0);
  });

  it('keeps each object its own value when many share the property name', () => {
    const a = withLazy({}, 'v', () => 'a');
    const b = withLazy({}, 'v', () => 'b');
    expect([a.v, b.v]).toEqual(['a', 'b']);
  });
});

describe('withReadThrough', () => {
  it('reads on every read: a value that changes while the object lives', () => {
    let count: number | undefined;
    const o = withReadThrough({ text: 'hi' }, 'count', () => count ?? 2);
    expect(o.count).toBe(2);
    count = 7;
    expect(o.count).toBe(7);
    expect(JSON.stringify(o)).toBe('{"text":"hi","count":7}');
    expect({ ...o }).toEqual({ text: 'hi', count: 7 });
  });

  it('keeps the lazy and the read-through kinds of one name apart', () => {
    let n = 0;
    const live = withReadThrough({}, 'x', () => ++n);
    const lazy = withLazy({}, 'x', () => ++n);
    expect([live.x, live.x, lazy.x, lazy.x]).toEqual([1, 2, 3, 3]);
  });
});
