/**
 * Exchanged tokens on disk, so the next invocation skips the exchange: `$XDG_CACHE_HOME/textgen/<key>.json`
 * (default `$HOME/.cache/textgen`). Directories it creates are 0700 and files 0600 whatever the umask; writes go through a
 * temporary file and a rename, so a reader never sees half a token. Anything unreadable is a miss.
 */
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writePrivateFile } from './private-file.js';

export interface CachedToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  /** Epoch ms when the token was obtained; lets the refresh margin scale with the token's lifetime. */
  obtainedAt?: number;
}

export interface TokenCache {
  get(key: string): Promise<CachedToken | undefined>;
  set(key: string, token: CachedToken): Promise<void>;
  delete(key: string): Promise<void>;
}

export function tokenCacheDir(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec says relative values are to be ignored.
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'textgen');
}

/** sha256 of the credential parts, hex. JSON framing keeps ["ab","c"] and ["a","bc"] apart. */
export function tokenCacheKey(parts: string[]): string {
  // node:crypto on first use, not when this module loads: a watsonx request with --token (no exchange) would
  // otherwise load crypto's 14 modules for nothing (13 M instructions; docs/performance.md).
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export function createTokenCache(opts: { env: Record<string, string | undefined> }): TokenCache {
  const dir = tokenCacheDir(opts.env);
  // Keys are normally tokenCacheKey hashes; anything else is hashed so it can never escape the directory.
  const fileFor = (key: string) => path.join(dir, `${/^[0-9a-f]{64}$/.test(key) ? key : tokenCacheKey([key])}.json`);

  return {
    async get(key) {
      try {
        return parseCachedToken(await readFile(fileFor(key), 'utf8'));
      } catch {
        return undefined;
      }
    },

    async set(key, token) {
      const record: CachedToken = { token: token.token, expiresAt: token.expiresAt };
      if (token.obtainedAt !== undefined) record.obtainedAt = token.obtainedAt;
      await writePrivateFile(fileFor(key), JSON.stringify(record));
    },

    async delete(key) {
      await rm(fileFor(key), { force: true });
    },
  };
}

function parseCachedToken(text: string): CachedToken | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object') return undefined;
  const { token, expiresAt, obtainedAt } = data as Record<string, unknown>;
  if (typeof token !== 'string' || token === '' || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
    return undefined;
  // A token no header can carry (a line break, a space: written by an older version) is a miss, not a poison.
  if (!/^[\x21-\x7e]+$/.test(token)) return undefined;
  const cached: CachedToken = { token, expiresAt };
  if (typeof obtainedAt === 'number' && Number.isFinite(obtainedAt)) cached.obtainedAt = obtainedAt;
  return cached;
}
