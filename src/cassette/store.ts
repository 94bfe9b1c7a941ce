/**
 * A cassette directory: one file per entry, named from its key (`watsonx-post-ml-v1-text-generation-<key>.json`), so
 * that recording the same calls again rewrites the same files and a review shows only what changed. Files are
 * written atomically (a temporary file and a rename: src/config/private-file.ts); only names this module makes are
 * read, never through a symbolic link and never more than MAX_ENTRY_BYTES, so a hostile directory (a committed link
 * to elsewhere, a `../` name, a huge file) cannot make textgen read or write outside it.
 *
 * Replay hits are remembered for `cassette prune --unused-since-run`: an empty file `.hits/RUN/KEY` per entry used
 * (creating a file is atomic, so parallel replays never lose each other's hits). docs/cassettes.md, "Pruning".
 */
import { lstat, readFile, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../contract/errors.js';
import { makePrivateDirs, writePrivateFile } from '../config/private-file.js';
import { type Entry, parseEntry, serializeEntry } from './entry.js';

/** Far beyond any answer textgen reads whole (128 MiB), with room for base64. */
export const MAX_ENTRY_BYTES = 192 * 1024 * 1024;
/** More entries than this in one directory is not a cassette textgen made. */
const MAX_ENTRIES = 100_000;
const ENTRY_NAME = /^[a-z0-9-]{1,120}-([0-9a-f]{20})\.jsonl?$/;
const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const HITS_DIR = '.hits';

export interface ListedEntry {
  /** The file name (no directory). */
  name: string;
  file: string;
  key: string;
  size: number;
  mtimeMs: number;
}

/** The readable part of a file name: the protocol, the method and the path, in lower-case words. */
function slug(protocol: string, method: string, urlPath: string): string {
  const words = `${protocol}-${method}-${urlPath}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return words.slice(0, 80).replace(/-+$/, '') || 'request';
}

export function entryName(protocol: string, method: string, urlPath: string, key: string, stream: boolean): string {
  return `${slug(protocol, method, urlPath)}-${key}.${stream ? 'jsonl' : 'json'}`;
}

function fsWords(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'ENOENT' ? 'no such file or directory' : (err.code ?? err.message);
}

export class CassetteDir {
  readonly root: string;
  /** The write in flight per file name: the same key written twice (a 429, then its retry) lands in order. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  #inside(name: string): string {
    if (!ENTRY_NAME.test(name) && !name.startsWith(`${HITS_DIR}/`))
      throw new UsageError(`not a cassette name: ${name}`);
    return path.join(this.root, name);
  }

  write(name: string, entry: Entry, scrub: (text: string) => string): Promise<void> {
    const file = this.#inside(name);
    const text = scrub(serializeEntry(entry));
    const previous = this.#writes.get(name) ?? Promise.resolve();
    const next = previous.then(() => writePrivateFile(file, text, { followLinks: false }));
    const settled = next.catch(() => undefined);
    this.#writes.set(name, settled);
    void settled.then(() => {
      if (this.#writes.get(name) === settled) this.#writes.delete(name);
    });
    return next;
  }

  /** Every entry file, sorted by name; a missing directory has none. */
  async list(): Promise<ListedEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new UsageError(`cannot read the cassette directory ${this.root}: ${fsWords(e)}`);
    }
    const out: ListedEntry[] = [];
    for (const name of names.sort()) {
      const match = ENTRY_NAME.exec(name);
      if (!match) continue;
      if (out.length >= MAX_ENTRIES)
        throw new UsageError(`${this.root} holds more than ${MAX_ENTRIES} entries; split it into several cassettes`);
      const file = path.join(this.root, name);
      const s = await lstat(file).catch(() => undefined);
      if (!s?.isFile()) continue; // a link or a directory under an entry's name is not read
      out.push({ name, file, key: match[1]!, size: s.size, mtimeMs: s.mtimeMs });
    }
    return out;
  }

  /** The entry in `name`, or undefined when there is none; a link, an oversized or malformed file is an error. */
  async read(name: string): Promise<Entry | undefined> {
    const file = this.#inside(name);
    let s;
    try {
      s = await lstat(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new UsageError(`cannot read ${file}: ${fsWords(e)}`);
    }
    if (!s.isFile()) throw new UsageError(`${file} is not a regular file (a cassette never follows links)`);
    if (s.size > MAX_ENTRY_BYTES)
      throw new UsageError(`${file} is larger than ${MAX_ENTRY_BYTES / (1024 * 1024)} MiB; not a cassette entry`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${fsWords(e)}`);
    }
    return parseEntry(text, file);
  }

  /** Remembers that `key` answered a replay in run `run` (best effort: a read-only checkout still replays). */
  async markHit(run: string, key: string): Promise<void> {
    if (!RUN_NAME.test(run) || !/^[0-9a-f]{20}$/.test(key)) return;
    const dir = path.join(this.root, HITS_DIR, run);
    try {
      await makePrivateDirs(dir);
      await writePrivateFile(path.join(dir, key), '', { followLinks: false });
    } catch {
      // Not being able to remember a hit must not fail the replay.
    }
  }

  /** The runs that recorded hits, newest first (by the time of their latest hit), each with the keys it hit. */
  async runs(): Promise<Array<{ run: string; lastHitMs: number; keys: Map<string, number> }>> {
    const dir = path.join(this.root, HITS_DIR);
    let runs: string[];
    try {
      runs = await readdir(dir);
    } catch {
      return [];
    }
    const out: Array<{ run: string; lastHitMs: number; keys: Map<string, number> }> = [];
    for (const run of runs) {
      if (!RUN_NAME.test(run)) continue;
      const runDir = path.join(dir, run);
      const s = await lstat(runDir).catch(() => undefined);
      if (!s?.isDirectory()) continue;
      const keys = new Map<string, number>();
      let lastHitMs = 0;
      for (const key of (await readdir(runDir).catch(() => [] as string[])).slice(0, MAX_ENTRIES)) {
        if (!/^[0-9a-f]{20}$/.test(key)) continue;
        const k = await stat(path.join(runDir, key)).catch(() => undefined);
        if (!k?.isFile()) continue;
        keys.set(key, k.mtimeMs);
        lastHitMs = Math.max(lastHitMs, k.mtimeMs);
      }
      out.push({ run, lastHitMs, keys });
    }
    return out.sort((a, b) => b.lastHitMs - a.lastHitMs || (a.run < b.run ? 1 : -1));
  }

  async remove(name: string): Promise<void> {
    await rm(this.#inside(name), { force: true });
  }

  /** Waits for every write in flight (a process must not exit before its entries are on disk). */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes.values()]);
  }
}
