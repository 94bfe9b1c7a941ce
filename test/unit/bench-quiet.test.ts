import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs bench script without type declarations
import * as quiet from '../../bench/quiet.mjs';

type Sample = { at: number; machine: number; own: number };
type Group = { name: string; before?: number; during?: number };
const q = quiet as {
  parseMachineBusy(s: string): number | undefined;
  parseProcessStat(s: string): { pid: number; ppid: number; ticks: number } | undefined;
  treeTicks(p: { pid: number; ppid: number; ticks: number }[], root: number): number;
  othersCores(a: Sample, b: Sample): number;
  decideQuiet(g: Group[], busyCores: number): { quiet: boolean; reasons: string[] };
};

// The bench decides "quiet" on what other processes used, not on the load average its own processes raise.
describe('bench: is the machine quiet enough for a verdict', () => {
  it('reads the busy ticks of the whole machine from /proc/stat (idle and iowait left out)', () => {
    const stat = 'cpu  100 5 50 9000 40 3 2 1 0 0\ncpu0 50 2 25 4500 20 1 1 0 0 0\n';
    expect(q.parseMachineBusy(stat)).toBe(100 + 5 + 50 + 3 + 2 + 1);
    expect(q.parseMachineBusy('intr 1 2 3')).toBeUndefined();
  });

  it('reads utime + stime + cutime + cstime of a process, with spaces and parentheses in its name', () => {
    const line = '4242 (node (x) y) S 17 4242 4242 0 -1 4194304 10 0 0 0 120 30 7 3 20 0 11 0 500 0 0';
    expect(q.parseProcessStat(line)).toEqual({ pid: 4242, ppid: 17, ticks: 120 + 30 + 7 + 3 });
  });

  it("sums the bench's own tree: itself and its live descendants, not its parent or siblings", () => {
    const procs = [
      { pid: 1, ppid: 0, ticks: 1000 },
      { pid: 10, ppid: 1, ticks: 50 }, // the bench
      { pid: 11, ppid: 10, ticks: 200 }, // its server
      { pid: 12, ppid: 11, ticks: 5 }, // a grandchild
      { pid: 20, ppid: 1, ticks: 900 }, // someone else
    ];
    expect(q.treeTicks(procs, 10)).toBe(255);
    expect(q.treeTicks(procs, 99)).toBe(0);
  });

  it("counts as others' CPU only what the machine used beyond the bench's tree", () => {
    const a = { at: 0, machine: 1000, own: 100 };
    // 2 s; the machine used 300 ticks (3 s of CPU), the bench 260 of them: others 0.4 s over 2 s = 0.2 cores.
    expect(q.othersCores(a, { at: 2000, machine: 1300, own: 360 })).toBeCloseTo(0.2, 6);
    // The bench's own load, however high, is not others' work.
    expect(q.othersCores(a, { at: 1000, machine: 1200, own: 300 })).toBe(0);
    expect(q.othersCores(a, { at: 0, machine: 5000, own: 100 })).toBe(0);
  });

  it('gives a verdict when every group was quiet before and during, and names every busy figure otherwise', () => {
    const quietRun = [
      { name: 'start-up', before: 0.01, during: 0.05 },
      { name: 'batch', before: 0, during: 0.1 },
    ];
    expect(q.decideQuiet(quietRun, 0.5)).toEqual({ quiet: true, reasons: [] });
    const busy = q.decideQuiet(
      [
        { name: 'start-up', before: 0.7, during: 0.1 },
        { name: 'batch', before: 0.1, during: 1.2 },
      ],
      0.5,
    );
    expect(busy.quiet).toBe(false);
    expect(busy.reasons).toEqual([
      'start-up: other processes used 0.70 cores before the group (busy from 0.50)',
      'batch: other processes used 1.20 cores during the group (busy from 0.50)',
    ]);
  });

  it('gives no verdict when it could not measure, or measured nothing', () => {
    expect(q.decideQuiet([{ name: 'start-up', before: undefined, during: 0 }], 0.5).quiet).toBe(false);
    expect(q.decideQuiet([], 0.5).quiet).toBe(false);
  });
});
