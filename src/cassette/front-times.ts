/**
 * The times of `serve`'s own answers in a cassette directory, one small file per front request
 * (`.front/KEY.json`: `{"recorded_at", "method", "path"}`), so that a replay writes the same `created` /
 * `created_at` as the recording did (src/emulator/core/answer-clock.ts; the ids need no file: they are drawn from
 * the front request's hash). Like the entries, they are plain files safe to commit, written atomically, never read
 * through a link or past a small size, and a file that is not one of these is ignored (that answer gets the time of
 * its replay). docs/cassettes.md.
 */
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { makePrivateDirs, writePrivateFile } from '../config/private-file.js';
import { CassetteDir } from './store.js';

export const FRONT_DIR = '.front';
const KEY = /^[0-9a-f]{20}$/;
const MAX_BYTES = 4096;

export interface FrontTimes {
  recordedTime(key: string): Promise<number | undefined>;
  remember(key: string, ms: number, request: { method: string; path: string }): void;
  /** Resolves when every time remembered so far is on disk. */
  flush(): Promise<void>;
}

/**
 * `run`: a replay notes each time it used under that run's hits (`.hits/RUN/KEY`, as the entries), so that
 * `cassette prune` keeps the times a replay still uses and removes the others with the entries they went with.
 */
export function frontTimes(
  root: string,
  options: { write: boolean; warn: (message: string) => void; run?: string | undefined },
): FrontTimes {
  const dir = path.join(path.resolve(root), FRONT_DIR);
  const pending = new Set<Promise<void>>();
  let warned = false;
  return {
    async recordedTime(key) {
      if (!KEY.test(key)) return undefined;
      const file = path.join(dir, `${key}.json`);
      try {
        const s = await lstat(file);
        if (!s.isFile() || s.size > MAX_BYTES) return undefined;
        const value = (JSON.parse(await readFile(file, 'utf8')) as { recorded_at?: unknown }).recorded_at;
        const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        if (!Number.isFinite(ms)) return undefined;
        if (options.run !== undefined) await new CassetteDir(root).markHit(options.run, key);
        return ms;
      } catch {
        return undefined;
      }
    },
    remember(key, ms, request) {
      if (!options.write || !KEY.test(key)) return;
      const text = `${JSON.stringify({ recorded_at: new Date(ms).toISOString(), method: request.method, path: request.path })}\n`;
      const write = makePrivateDirs(dir)
        .then(() => writePrivateFile(path.join(dir, `${key}.json`), text, { followLinks: false }))
        .catch((e: unknown) => {
          if (warned) return;
          warned = true;
          options.warn(`cassette: cannot keep the time of serve's answer in ${dir}: ${(e as Error).message}`);
        })
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async flush() {
      await Promise.all([...pending]);
    },
  };
}

/** A kept time, as `cassette prune` weighs it: its key, its file (`.front/KEY.json`) and when it was written. */
export interface ListedFrontTime {
  key: string;
  /** Relative to the cassette directory. */
  name: string;
  mtimeMs: number;
}

/** The times kept in a cassette directory (regular files named by a key only; anything else is left alone). */
export async function listFrontTimes(root: string): Promise<ListedFrontTime[]> {
  const dir = path.join(path.resolve(root), FRONT_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: ListedFrontTime[] = [];
  for (const name of names.sort()) {
    const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!KEY.test(key)) continue;
    try {
      const s = await lstat(path.join(dir, name));
      if (s.isFile()) out.push({ key, name: `${FRONT_DIR}/${name}`, mtimeMs: s.mtimeMs });
    } catch {
      // Gone since the listing: nothing to weigh.
    }
  }
  return out;
}

export async function removeFrontTime(root: string, key: string): Promise<void> {
  if (!KEY.test(key)) return;
  await rm(path.join(path.resolve(root), FRONT_DIR, `${key}.json`), { force: true });
}
