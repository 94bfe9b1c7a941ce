/**
 * The user config file as textgen last validated it, so that a command whose config file has not changed skips the
 * YAML parser and the zod schema: building them and checking a file costs about 30 ms of a 130 ms request on a
 * machine where `node -e 0` takes 65 ms (docs/performance.md, "Start-up, sixth round").
 *
 * `$XDG_CACHE_HOME/textgen/parsed-config/<name>.json` (default `$HOME/.cache/textgen`, beside the token cache). A
 * record holds the file's path, a 64-bit hash and the length of its text (textHash) and the validated config; it is
 * used only when the path and the text's hash and length match, and the record was written by a build with the same schema
 * (`schemaId`, a hash of the sources the bundler computed). A config with a literal credential is never recorded
 * (./load.ts: no copy of a secret on disk); the rest gets the token cache's protection all the same: 0600 in a
 * 0700 directory, written whole through a rename. It is
 * read only when it and its directory belong to this user and nobody else may write to them, and never through a
 * symbolic link: a file someone else could have written cannot stand in for a config they could not.
 *
 * Anything unreadable, foreign or stale is a miss, and a miss only means parsing the file as before; nothing here
 * ever fails a command. Deleting the directory is always safe.
 */
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Bigger than any config file worth caching; a larger record is not ours to read. */
const MAX_RECORD_BYTES = 1024 * 1024;
const VERSION = 1;

interface CachedRecord {
  v: number;
  schema: string;
  file: string;
  /** textHash of the file's text. */
  text: string;
  config: unknown;
}

export function parsedConfigDir(env: { [name: string]: string | undefined }): string {
  const xdg = env.XDG_CACHE_HOME;
  // As the token cache (./token-cache.ts): the XDG spec says relative values are to be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'textgen', 'parsed-config');
}

/**
 * 64 bits of two 32-bit hashes (FNV-1a and a multiply-xorshift) and the length: the record keeps this of the file's
 * text rather than the text, which may hold a secret in a comment. It tells an edited file from the recorded one;
 * it need not resist someone crafting a collision, who would have to be able to write the config file already.
 */
export function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `${hex(a)}${hex(b)}-${text.length}`;
}

/** One record per config file path, named by a hash of the path (the record says which file it is). */
function recordPath(dir: string, file: string): string {
  return path.join(dir, `${textHash(file).replace('-', '')}.json`);
}

function ownedByMe(st: { uid: number; mode: number }): boolean {
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  return st.uid === uid && (st.mode & 0o022) === 0;
}

/** The validated config recorded for exactly this file and text under this schema, or undefined. */
export function cachedConfig(dir: string, schemaId: string | undefined, file: string, text: string): unknown {
  if (schemaId === undefined) return undefined;
  let fd: number | undefined;
  try {
    const d = lstatSync(dir);
    if (!d.isDirectory() || !ownedByMe(d)) return undefined;
    fd = openSync(recordPath(dir, file), fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || !ownedByMe(st) || st.size > MAX_RECORD_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(st.size);
    let at = 0;
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at);
      if (n === 0) return undefined;
      at += n;
    }
    const record = JSON.parse(bytes.toString('utf8')) as Partial<CachedRecord> | null;
    if (
      record === null ||
      typeof record !== 'object' ||
      record.v !== VERSION ||
      record.schema !== schemaId ||
      record.file !== file ||
      record.text !== textHash(text) ||
      record.config === null ||
      typeof record.config !== 'object'
    )
      return undefined;
    return record.config;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Records the validated config of `file`, when JSON gives it back exactly (it always should: a config is YAML's
 * plain data; a value JSON cannot hold, such as YAML's `.inf`, leaves the file uncached). Never throws; true when
 * the record was written, so that the next run will use it.
 */
export async function rememberConfig(
  dir: string,
  schemaId: string | undefined,
  file: string,
  text: string,
  config: unknown,
): Promise<boolean> {
  if (schemaId === undefined || text.length > MAX_RECORD_BYTES / 4) return false;
  try {
    const body = JSON.stringify({
      v: VERSION,
      schema: schemaId,
      file,
      text: textHash(text),
      config,
    } satisfies CachedRecord);
    const { isDeepStrictEqual } = await import('node:util');
    if (!isDeepStrictEqual((JSON.parse(body) as CachedRecord).config, config) || body.length > MAX_RECORD_BYTES)
      return false;
    const { writePrivateFile } = await import('./private-file.js');
    await writePrivateFile(recordPath(dir, file), body, { followLinks: false });
    return true;
  } catch {
    // A read-only or foreign cache directory: the next run parses the file again.
    return false;
  }
}
