/**
 * Fetched tokenizer files on disk, so `--local` asks the service once per endpoint and model:
 * `$XDG_CACHE_HOME/textgen/tokenizers/<sha256 of url and model>.json`. Like the token cache (src/config/token-cache.ts)
 * directories it creates are 0700 and files 0600 whatever the umask, and a write goes through a temporary file and a
 * rename, so a reader never sees half a file. An unreadable file is a miss.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { tokenCacheDir } from '../config/token-cache.js';
import { tokenCacheKey } from '../contract/token-cache.js';
import { writePrivateFile } from '../config/private-file.js';

export function tokenizerCacheFile(env: Record<string, string | undefined>, url: string, model: string): string {
  return path.join(tokenCacheDir(env), 'tokenizers', `${tokenCacheKey(['tokenizer', url, model])}.json`);
}

export async function readCachedTokenizer(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function writeCachedTokenizer(file: string, text: string): Promise<void> {
  await writePrivateFile(file, text);
}

/** Drops a cached file textgen cannot use, so the next run fetches it again instead of failing on it for ever. */
export async function forgetCachedTokenizer(file: string): Promise<void> {
  await rm(file, { force: true });
}
