import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The reason for src/contract/spread.ts, checked on the running Node: its form shares hidden classes, a literal
// that starts with a spread does not (Node 20's V8).
describe('spread.ts: hidden classes', () => {
  it('shares hidden classes between objects of the same keys, where a leading spread does not (V8 natives)', () => {
    // In a child process: %HaveSameMap needs --allow-natives-syntax, which vitest's workers do not run with.
    const script = `
      const NO_KEYS = Object.freeze({});
      const merged = (a, b) => ({ ...NO_KEYS, ...a, ...b });
      const literal = (a, b) => ({ ...a, ...b });
      const count = (f) => { let same = 0, prev = f({ a: 1 }, { b: 0 }); for (let i = 0; i < 5000; i++) { const o = f({ a: 1 }, { b: i }); if (%HaveSameMap(o, prev)) same++; prev = o; } return same; };
      process.stdout.write(JSON.stringify({ merged: count(merged), literal: count(literal) }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], { encoding: 'utf8' }),
    );
    expect(out.merged).toBe(5000);
    // The cost this module avoids, on Node 20: not asserted, since a later V8 may share these maps too.
    if (out.literal > 4000)
      console.info(`this Node shares the maps of leading-spread literals too (${out.literal}/5000)`);
  });
});
