/**
 * Fetched tokenizer files on disk, so `--local` asks the service once per endpoint and model:
 * `$XDG_CACHE_HOME/textgen/tokenizers/<sha256 of url and model>.json`. Like the token cache (src/config/token-cache.ts)
 * the directories are 0700 and files 0600 whatever the umask, and a write goes through a temporary file and a
 * rename, so a reader never sees half a file. An unreadable file is a miss.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tokenCacheDir, tokenCacheKey } from '../config/token-cache.js';

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
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask and ignored for directories that exist: set both outright.
  await chmod(path.dirname(dir), 0o700);
  await chmod(dir, 0o700);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}
