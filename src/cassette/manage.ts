/**
 * `textgen cassette ls|show|prune DIR`: what a cassette directory holds, one entry as stored, and removing the
 * entries a test suite no longer uses (docs/cassettes.md, "Pruning").
 */
import path from 'node:path';
import { UsageError } from '../contract/errors.js';
import { CassetteDir, type ListedEntry } from './store.js';

export interface EntryRow {
  key: string;
  protocol: string;
  method: string;
  path: string;
  status: number;
  stream: boolean;
  /** Bytes of the file. */
  size: number;
  file: string;
}

export async function listEntries(dir: string): Promise<EntryRow[]> {
  const store = new CassetteDir(dir);
  const rows: EntryRow[] = [];
  for (const listed of await store.list()) {
    const entry = await store.read(listed.name);
    if (entry === undefined) continue;
    rows.push({
      key: entry.key,
      protocol: entry.protocol,
      method: entry.request.method,
      path: entry.request.path,
      status: entry.status,
      stream: entry.kind === 'stream',
      size: listed.size,
      file: listed.name,
    });
  }
  return rows;
}

/** The file a `show` argument names: a key (or a unique prefix of 6+ digits), or an entry's file name. */
export async function findEntry(dir: string, which: string): Promise<ListedEntry> {
  const store = new CassetteDir(dir);
  const listed = await store.list();
  const base = path.basename(which);
  const byName = listed.find((l) => l.name === base);
  if (byName) {
    if (which.includes('/') || which.includes(path.sep)) {
      // A path must name the file inside DIR, not one elsewhere that happens to share its name.
      if (path.resolve(which) !== byName.file && path.resolve(store.root, which) !== byName.file)
        throw new UsageError(`${which} is not in the cassette ${store.root}`);
    }
    return byName;
  }
  const prefix = which.toLowerCase();
  if (!/^[0-9a-f]{6,20}$/.test(prefix))
    throw new UsageError(`no entry ${which} in ${store.root}`, {
      hint: `give a key (or its first 6+ digits) or a file name from "textgen cassette ls ${dir}"`,
    });
  const found = listed.filter((l) => l.key.startsWith(prefix));
  if (found.length === 0) throw new UsageError(`no entry with key ${which} in ${store.root}`);
  if (found.length > 1)
    throw new UsageError(`key ${which} is ambiguous in ${store.root}: ${found.map((f) => f.key).join(', ')}`);
  return found[0]!;
}

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `2w`. */
export function parseAge(text: string): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  if (!match) throw new UsageError(`--older-than must be a number and a unit (m, h, d, w), e.g. 30d, not "${text}"`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export interface PruneChoice {
  /** `true`: the latest run; a string: that run. */
  unusedSinceRun?: string | true | undefined;
  olderThanMs?: number | undefined;
  now: number;
  dryRun: boolean;
}

export interface PruneResult {
  /** The files removed: entries, then serve's kept answer times (`.front/KEY.json`). */
  removed: string[];
  /** How many of `removed` are answer times. */
  timesRemoved: number;
  /** Entries kept. */
  kept: number;
  /** The run `--unused-since-run` judged by. */
  run?: string;
}

export async function pruneEntries(dir: string, choice: PruneChoice): Promise<PruneResult> {
  const store = new CassetteDir(dir);
  const listed = await store.list();
  const runs = await store.runs();
  let usedInRun: Map<string, number> | undefined;
  let runName: string | undefined;
  if (choice.unusedSinceRun !== undefined) {
    const run = choice.unusedSinceRun === true ? runs[0] : runs.find((r) => r.run === choice.unusedSinceRun);
    if (run === undefined)
      throw new UsageError(
        choice.unusedSinceRun === true
          ? `no replay run has recorded its hits in ${store.root} yet`
          : `no replay run "${choice.unusedSinceRun}" in ${store.root} (runs: ${runs.map((r) => r.run).join(', ') || 'none'})`,
        { hint: 'replay with --replay DIR first (TEXTGEN_CASSETTE_RUN names the run; docs/cassettes.md)' },
      );
    usedInRun = run.keys;
    runName = run.run;
  }
  const lastUse = (l: { key: string; mtimeMs: number }): number =>
    Math.max(l.mtimeMs, ...runs.map((r) => r.keys.get(l.key) ?? 0));
  const goes = (l: { key: string; mtimeMs: number }): boolean => {
    const unused = usedInRun !== undefined && !usedInRun.has(l.key);
    const old = choice.olderThanMs !== undefined && choice.now - lastUse(l) > choice.olderThanMs;
    // Both given: an entry goes when it is unused in the run *and* old (each narrows the other).
    return usedInRun !== undefined && choice.olderThanMs !== undefined
      ? unused && old
      : usedInRun !== undefined
        ? unused
        : old;
  };
  const removed: string[] = [];
  for (const l of listed) {
    if (!goes(l)) continue;
    if (!choice.dryRun) await store.remove(l.name);
    removed.push(l.name);
  }
  const kept = listed.length - removed.length;
  const entriesRemoved = removed.length;
  // serve's kept answer times (.front/KEY.json) go by the same rule: a replay notes each it used, as it does entries.
  const { listFrontTimes, removeFrontTime } = await import('./front-times.js');
  for (const t of await listFrontTimes(dir)) {
    if (!goes(t)) continue;
    if (!choice.dryRun) await removeFrontTime(dir, t.key);
    removed.push(t.name);
  }
  return {
    removed,
    timesRemoved: removed.length - entriesRemoved,
    kept,
    ...(runName === undefined ? {} : { run: runName }),
  };
}
