import { describe, expect, it } from 'vitest';
import { LiveSet } from '../../src/contract/live-set.js';

describe('LiveSet', () => {
  it('adds, counts and deletes members by their membership, in any order', () => {
    const set = new LiveSet<string>();
    const a = set.add('a');
    const b = set.add('b');
    const c = set.add('c');
    expect(set.size).toBe(3);
    expect(set.delete(a)).toBe(true);
    expect([...set].sort()).toEqual(['b', 'c']);
    expect(set.delete(c)).toBe(true);
    expect([...set]).toEqual(['b']);
    expect(set.delete(b)).toBe(true);
    expect(set.size).toBe(0);
  });

  it('refuses a membership deleted before, without touching the others', () => {
    const set = new LiveSet<number>();
    const one = set.add(1);
    set.add(2);
    expect(set.delete(one)).toBe(true);
    expect(set.delete(one)).toBe(false);
    expect([...set]).toEqual([2]);
  });

  it('iterates a copy, so members may be deleted while it walks (aborting all in flight)', () => {
    const set = new LiveSet<{ n: number }>();
    const places = new Map<number, ReturnType<typeof set.add>>();
    for (let n = 0; n < 5; n++) places.set(n, set.add({ n }));
    const seen: number[] = [];
    for (const m of set) {
      seen.push(m.n);
      set.delete(places.get(m.n)!);
    }
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(set.size).toBe(0);
  });

  it('keeps every member reachable by iteration through many adds and deletes', () => {
    const set = new LiveSet<number>();
    const live = new Map<number, ReturnType<typeof set.add>>();
    let next = 0;
    for (let round = 0; round < 2000; round++) {
      live.set(next, set.add(next));
      next++;
      if (round % 3 === 0) {
        const victim = [...live.keys()][(round * 7) % live.size]!;
        expect(set.delete(live.get(victim)!)).toBe(true);
        live.delete(victim);
      }
      if (round % 97 === 0) expect([...set].sort((x, y) => x - y)).toEqual([...live.keys()].sort((x, y) => x - y));
    }
    expect(set.size).toBe(live.size);
  });
});
