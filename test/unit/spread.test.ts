import { describe, expect, it } from 'vitest';
import { extensibleCopy, merged } from '../../src/contract/spread.js';

describe('merged / extensibleCopy', () => {
  it('gives what the spread literal gives: keys, values, order, later keys winning', () => {
    const a = { z: 1, a: 2, [Symbol.for('s')]: 3 };
    const b = { a: 4, m: 5 };
    const m = merged(a, b);
    expect(m).toEqual({ ...a, ...b });
    expect(Object.keys(m)).toEqual(Object.keys({ ...a, ...b }));
    expect(m[Symbol.for('s')]).toBe(3);
    const c = extensibleCopy(a);
    expect(c).toEqual({ ...a });
    expect(c).not.toBe(a);
  });

  it('keeps a "__proto__" key from JSON an own key, as a spread does (no prototype change)', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    for (const out of [merged({}, hostile), extensibleCopy(hostile)]) {
      expect(Object.hasOwn(out, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    }
  });
});
