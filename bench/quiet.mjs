// Is the machine quiet enough for a verdict? The load average cannot tell: the bench's own servers and clients
// raise it (a full run on an idle machine ends near 1.7 on 2 cores). So each group of rows samples the CPU time the
// whole machine used (/proc/stat) and subtracts what the bench's own process tree used (/proc/<pid>/stat of this
// process and its live descendants, plus the children it has already reaped): what is left is other work. A short
// window is sampled before the group starts any process of its own, and the whole group is sampled too.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on every Linux build in practice). */
const TICKS_PER_S = 100;

/** Busy ticks of the whole machine from the first line of /proc/stat (everything but idle and iowait). */
export function parseMachineBusy(procStat) {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already inside user and nice).
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return user + nice + system + irq + softirq + steal;
}

/**
 * One /proc/<pid>/stat line → { pid, ppid, ticks }: utime + stime (all threads) + cutime + cstime (children the
 * process has waited for). The command name (field 2) may hold spaces and parentheses, so fields count from the last ')'.
 */
export function parseProcessStat(line) {
  const close = line.lastIndexOf(')');
  if (close === -1) return undefined;
  const pid = Number(line.slice(0, line.indexOf(' ')));
  // After ')': state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const f = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const num = (field) => Number(f[field - 3] ?? 0);
  return { pid, ppid: num(4), ticks: num(14) + num(15) + num(16) + num(17) };
}

/** Ticks used by `rootPid` and every live descendant (read from /proc now), children already reaped included. */
export function treeTicks(processes, rootPid) {
  const children = new Map();
  for (const p of processes) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const root = processes.find((p) => p.pid === rootPid);
  if (root === undefined) return 0;
  let ticks = 0;
  const stack = [root];
  while (stack.length > 0) {
    const p = stack.pop();
    ticks += p.ticks;
    stack.push(...(children.get(p.pid) ?? []));
  }
  return ticks;
}

/** A sample of the machine's busy ticks and the bench tree's, or undefined where /proc is not there (not Linux). */
export function sampleCpu(rootPid = process.pid) {
  try {
    const machine = parseMachineBusy(readFileSync('/proc/stat', 'utf8'));
    const processes = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const p = parseProcessStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
        if (p !== undefined) processes.push(p);
      } catch {
        // The process ended between readdir and read.
      }
    }
    if (machine === undefined) return undefined;
    return { at: performance.now(), machine, own: treeTicks(processes, rootPid) };
  } catch {
    return undefined;
  }
}

/**
 * Cores' worth of CPU that other processes used between two samples: the machine's busy ticks minus the bench
 * tree's, over the wall time. A process of the tree that was killed and not yet reaped between the samples is
 * counted as other work (it errs towards "busy"); never below 0.
 */
export function othersCores(before, after) {
  const seconds = (after.at - before.at) / 1000;
  if (!(seconds > 0)) return 0;
  const others = after.machine - before.machine - (after.own - before.own);
  return Math.max(0, others / TICKS_PER_S / seconds);
}

/**
 * The verdict decision, from figures alone. `groups`: [{ name, before, during }] with other processes' CPU in
 * cores (before the group started its processes, and over the whole group; either may be undefined when /proc could
 * not be read). Quiet when every figure is below `busyCores`; a figure that could not be measured counts as busy,
 * so no verdict prints on a machine the bench cannot see.
 */
export function decideQuiet(groups, busyCores) {
  const reasons = [];
  for (const g of groups)
    for (const [when, cores] of [
      ['before', g.before],
      ['during', g.during],
    ]) {
      if (cores === undefined) reasons.push(`${g.name}: other processes' CPU ${when} the group not measured`);
      else if (cores >= busyCores)
        reasons.push(
          `${g.name}: other processes used ${cores.toFixed(2)} cores ${when} the group (busy from ${busyCores.toFixed(2)})`,
        );
    }
  return { quiet: groups.length > 0 && reasons.length === 0, reasons };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one group of rows (`run` starts the group's servers and clients), sampling other processes' CPU for
 * `windowMs` before it and over it. Returns { result, figures: { name, before, during, load } }.
 */
export async function measuredGroup(name, run, { windowMs = 2000, loadavg } = {}) {
  const load = loadavg?.()[0];
  const s0 = sampleCpu();
  await sleep(windowMs);
  const s1 = sampleCpu();
  const result = await run();
  const s2 = sampleCpu();
  const both = (a, b) => (a === undefined || b === undefined ? undefined : othersCores(a, b));
  return { result, figures: { name, load, before: both(s0, s1), during: both(s1, s2) } };
}
