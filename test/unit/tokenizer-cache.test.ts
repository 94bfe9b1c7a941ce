import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCachedTokenizer, tokenizerCacheFile, writeCachedTokenizer } from '../../src/flows/tokenizer-cache.js';

let root: string;
let env: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'textgen-tokenizers-'));
  env = { HOME: path.join(root, 'home'), XDG_CACHE_HOME: path.join(root, 'xdg') };
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the tokenizer cache', () => {
  it('keeps a file per endpoint and model under $XDG_CACHE_HOME/textgen/tokenizers', () => {
    const file = tokenizerCacheFile(env, 'https://api.aleph-alpha.com', 'luminous-base');
    expect(path.dirname(file)).toBe(path.join(root, 'xdg', 'textgen', 'tokenizers'));
    expect(path.basename(file)).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(tokenizerCacheFile(env, 'https://api.aleph-alpha.com', 'luminous-extended')).not.toBe(file);
    expect(tokenizerCacheFile(env, 'https://aa.example', 'luminous-base')).not.toBe(file);
    expect(tokenizerCacheFile(env, 'https://api.aleph-alpha.com', 'luminous-base')).toBe(file);
  });

  it('a missing file is a miss', async () => {
    expect(await readCachedTokenizer(tokenizerCacheFile(env, 'u', 'm'))).toBeUndefined();
  });

  it('writes 0600 files in 0700 directories whatever the umask, with no temporary file left', async () => {
    const file = tokenizerCacheFile(env, 'u', 'm');
    const old = process.umask(0o000);
    try {
      await writeCachedTokenizer(file, '{"model":{}}');
    } finally {
      process.umask(old);
    }
    expect(await readCachedTokenizer(file)).toBe('{"model":{}}');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect((await stat(path.dirname(path.dirname(file)))).mode & 0o777).toBe(0o700);
    expect(await readdir(path.dirname(file))).toStrictEqual([path.basename(file)]);
  });

  it('replaces an older file and leaves the mode of a directory it did not create alone', async () => {
    const file = tokenizerCacheFile(env, 'u', 'm');
    await mkdir(path.dirname(file), { recursive: true });
    await chmod(path.dirname(file), 0o755);
    await writeFile(file, 'old');
    await writeCachedTokenizer(file, 'new');
    expect(await readCachedTokenizer(file)).toBe('new');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o755);
  });
});
