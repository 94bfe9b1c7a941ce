import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTokenCache, tokenCacheDir } from '../../src/config/token-cache.js';
import { tokenCacheKey } from '../../src/contract/token-cache.js';

let root: string;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'textgen-cache-'));
  env = { HOME: path.join(root, 'home'), XDG_CACHE_HOME: path.join(root, 'xdg-cache') };
  dir = path.join(root, 'xdg-cache', 'textgen');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const KEY = tokenCacheKey(['iam', 'https://iam.example/token', '', 'api-key-1']);
const TOKEN = { token: 'tok-1', expiresAt: 1_700_000_000_000, obtainedAt: 1_699_999_000_000 };

describe('where tokens are kept', () => {
  it.each([
    ['$XDG_CACHE_HOME/textgen', { HOME: '/h', XDG_CACHE_HOME: '/x' }, '/x/textgen'],
    ['$HOME/.cache/textgen without XDG_CACHE_HOME', { HOME: '/h' }, '/h/.cache/textgen'],
    [
      '$HOME/.cache/textgen when XDG_CACHE_HOME is relative',
      { HOME: '/h', XDG_CACHE_HOME: 'rel' },
      '/h/.cache/textgen',
    ],
  ])('in %s', (_case, e, expected) => {
    expect(tokenCacheDir(e)).toBe(expected);
  });

  it('creates the directory on first write, under HOME when XDG_CACHE_HOME is unset', async () => {
    const cache = createTokenCache({ env: { HOME: env.HOME! } });
    await cache.set(KEY, TOKEN);
    expect(await readdir(path.join(env.HOME!, '.cache', 'textgen'))).toEqual([`${KEY}.json`]);
  });
});

describe('a round trip', () => {
  it('gives back what was stored, from a second cache object on the same directory', async () => {
    await createTokenCache({ env }).set(KEY, TOKEN);
    expect(await createTokenCache({ env }).get(KEY)).toEqual(TOKEN);
  });

  it('misses a key that was never stored', async () => {
    expect(await createTokenCache({ env }).get(KEY)).toBeUndefined();
  });

  it('replaces an earlier token for the same key', async () => {
    const cache = createTokenCache({ env });
    await cache.set(KEY, TOKEN);
    await cache.set(KEY, { token: 'tok-2', expiresAt: 5 });
    expect(await cache.get(KEY)).toEqual({ token: 'tok-2', expiresAt: 5 });
  });

  it('forgets a deleted token, and deleting a missing one is fine', async () => {
    const cache = createTokenCache({ env });
    await cache.set(KEY, TOKEN);
    await cache.delete(KEY);
    expect(await cache.get(KEY)).toBeUndefined();
    await expect(cache.delete(KEY)).resolves.toBeUndefined();
  });

  it('keeps a key that is not a hash inside the cache directory', async () => {
    const cache = createTokenCache({ env });
    await cache.set('../../escape', TOKEN);
    expect(await cache.get('../../escape')).toEqual(TOKEN);
    expect(await readdir(root)).toEqual(['xdg-cache']);
    expect((await readdir(dir))[0]).toMatch(/^[0-9a-f]{64}\.json$/);
  });
});

describe('file modes', () => {
  it('makes the directory 0700 and the file 0600', async () => {
    await createTokenCache({ env }).set(KEY, TOKEN);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, `${KEY}.json`))).mode & 0o777).toBe(0o600);
  });

  it('tightens a file that already exists with a loose mode, and leaves a directory it did not create alone', async () => {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    await writeFile(path.join(dir, `${KEY}.json`), '{}');
    await chmod(path.join(dir, `${KEY}.json`), 0o644);
    await createTokenCache({ env }).set(KEY, TOKEN);
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(dir, `${KEY}.json`))).mode & 0o777).toBe(0o600);
  });

  it('ignores a permissive umask', async () => {
    let previous: number;
    try {
      previous = process.umask(0);
    } catch {
      // Worker threads cannot change the umask; the first test above covers the same ground there.
      return;
    }
    try {
      await createTokenCache({ env }).set(KEY, TOKEN);
    } finally {
      process.umask(previous);
    }
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, `${KEY}.json`))).mode & 0o777).toBe(0o600);
  });
});

describe('atomic writes', () => {
  it('leaves no temporary files behind', async () => {
    const cache = createTokenCache({ env });
    await Promise.all(Array.from({ length: 10 }, (_, i) => cache.set(KEY, { token: `t${i}`, expiresAt: i })));
    expect(await readdir(dir)).toEqual([`${KEY}.json`]);
    expect(JSON.parse(await readFile(path.join(dir, `${KEY}.json`), 'utf8'))).toMatchObject({
      token: expect.stringMatching(/^t\d$/),
    });
  });

  it('never lets a reader see a half-written token while writers race', async () => {
    const cache = createTokenCache({ env });
    await cache.set(KEY, TOKEN);
    const big = { token: 'x'.repeat(200_000), expiresAt: 1 };
    const writes = Array.from({ length: 20 }, (_, i) => cache.set(KEY, i % 2 === 0 ? big : TOKEN));
    const reads = Array.from({ length: 50 }, () => cache.get(KEY));
    const seen = await Promise.all(reads);
    await Promise.all(writes);
    for (const token of seen) expect([TOKEN, big]).toContainEqual(token);
  });
});

describe('damaged cache files are a miss, never a crash', () => {
  it.each([
    ['not JSON', '{"token": "abc", "expi'],
    ['empty', ''],
    ['JSON of the wrong shape', '{"token": 5, "expiresAt": "soon"}'],
    ['a token without expiry', '{"token": "abc"}'],
    ['an empty token', '{"token": "", "expiresAt": 1}'],
    ['JSON null', 'null'],
  ])('%s', async (_case, content) => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `${KEY}.json`), content);
    expect(await createTokenCache({ env }).get(KEY)).toBeUndefined();
  });

  it('an unreadable entry (a directory where the file should be)', async () => {
    await mkdir(path.join(dir, `${KEY}.json`), { recursive: true });
    expect(await createTokenCache({ env }).get(KEY)).toBeUndefined();
  });

  it('a damaged file is overwritten by the next token', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `${KEY}.json`), 'garbage');
    const cache = createTokenCache({ env });
    await cache.set(KEY, TOKEN);
    expect(await cache.get(KEY)).toEqual(TOKEN);
  });
});

describe('tokenCacheKey', () => {
  it('is a sha256 hex digest that depends on every part and their boundaries', () => {
    const key = tokenCacheKey(['iam', 'u', '', 'k']);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenCacheKey(['iam', 'u', '', 'k'])).toBe(key);
    expect(tokenCacheKey(['iam', 'u', '', 'k2'])).not.toBe(key);
    expect(tokenCacheKey(['ab', 'c'])).not.toBe(tokenCacheKey(['a', 'bc']));
  });

  it('does not contain the secret', () => {
    expect(tokenCacheKey(['iam', 'u', '', 'secret-value'])).not.toContain('secret');
  });
});
