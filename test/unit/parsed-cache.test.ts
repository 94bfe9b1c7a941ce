import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedConfig, parsedConfigDir, rememberConfig, textHash } from '../../src/config/parsed-cache.js';

let root: string;
let dir: string;
const FILE = '/home/u/.config/textgen/config.yaml';
const TEXT = 'profiles:\n  a:\n    provider: openai\n    url: http://127.0.0.1:1/v1\n# old key: sk-NOT-IN-THE-RECORD\n';
const CONFIG = { profiles: { a: { provider: 'openai', url: 'http://127.0.0.1:1/v1' } } };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'textgen-parsed-'));
  dir = join(root, 'cache', 'textgen', 'parsed-config');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const onlyRecord = () => {
  const [name, ...more] = readdirSync(dir);
  expect(more).toEqual([]);
  return join(dir, name as string);
};

describe('the parsed user config cache (src/config/parsed-cache.ts)', () => {
  it('lives beside the token cache, honouring an absolute XDG_CACHE_HOME only', () => {
    expect(parsedConfigDir({ HOME: '/h', XDG_CACHE_HOME: '/x' })).toBe('/x/textgen/parsed-config');
    expect(parsedConfigDir({ HOME: '/h', XDG_CACHE_HOME: 'rel' })).toBe('/h/.cache/textgen/parsed-config');
  });

  it('gives back what it recorded for the same file, text and schema, and nothing otherwise', async () => {
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toBeUndefined();
    expect(await rememberConfig(dir, 's1', FILE, TEXT, CONFIG)).toBe(true);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toEqual(CONFIG);
    expect(cachedConfig(dir, 's1', FILE, `${TEXT} `)).toBeUndefined();
    expect(cachedConfig(dir, 's1', FILE, TEXT.replace('1/v1', '2/v1'))).toBeUndefined();
    expect(cachedConfig(dir, 's2', FILE, TEXT)).toBeUndefined();
    expect(cachedConfig(dir, 's1', '/elsewhere/config.yaml', TEXT)).toBeUndefined();
    expect(cachedConfig(dir, undefined, FILE, TEXT)).toBeUndefined();
  });

  it('is private (0600 in 0700) and keeps a hash of the text, not the text', async () => {
    await rememberConfig(dir, 's1', FILE, TEXT, CONFIG);
    const record = onlyRecord();
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const body = readFileSync(record, 'utf8');
    expect(body).not.toContain('sk-NOT-IN-THE-RECORD');
    expect(JSON.parse(body).text).toBe(textHash(TEXT));
  });

  it('refuses a record or a directory that someone else could have written, and a symbolic link', async () => {
    await rememberConfig(dir, 's1', FILE, TEXT, CONFIG);
    const record = onlyRecord();
    chmodSync(record, 0o620);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toBeUndefined();
    chmodSync(record, 0o600);
    chmodSync(dir, 0o770);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toBeUndefined();
    chmodSync(dir, 0o700);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toEqual(CONFIG);

    const elsewhere = join(root, 'planted.json');
    writeFileSync(elsewhere, readFileSync(record), { mode: 0o600 });
    rmSync(record);
    symlinkSync(elsewhere, record);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toBeUndefined();
  });

  it('treats damaged and foreign records as misses', async () => {
    await rememberConfig(dir, 's1', FILE, TEXT, CONFIG);
    const record = onlyRecord();
    for (const body of [
      '',
      'not json',
      'null',
      '[]',
      JSON.stringify({ v: 2 }),
      JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), config: 'x' }),
    ]) {
      writeFileSync(record, body);
      expect(cachedConfig(dir, 's1', FILE, TEXT), body).toBeUndefined();
    }
  });

  it('records only what JSON gives back exactly, and never throws', async () => {
    expect(
      await rememberConfig(dir, 's1', FILE, TEXT, { profiles: { a: { timeout: Number.POSITIVE_INFINITY } } }),
    ).toBe(false);
    expect(await rememberConfig(dir, 's1', FILE, TEXT, { profiles: { a: { url: undefined } } })).toBe(false);
    expect(await rememberConfig(dir, undefined, FILE, TEXT, CONFIG)).toBe(false);
    // A file where the directory should be: the write fails quietly.
    mkdirSync(join(root, 'cache', 'textgen'), { recursive: true });
    writeFileSync(dir, 'x');
    expect(await rememberConfig(dir, 's1', FILE, TEXT, CONFIG)).toBe(false);
    expect(cachedConfig(dir, 's1', FILE, TEXT)).toBeUndefined();
  });

  it('keeps an own __proto__ key as data', async () => {
    const config = JSON.parse('{"profiles":{"__proto__":{"provider":"openai"}}}') as object;
    expect(await rememberConfig(dir, 's1', FILE, TEXT, config)).toBe(true);
    const back = cachedConfig(dir, 's1', FILE, TEXT) as { profiles: object };
    expect(Object.hasOwn(back.profiles, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(back.profiles)).toBe(Object.prototype);
  });

  it('hashes text by content and length', () => {
    expect(textHash('abc')).toBe(textHash('abc'));
    expect(textHash('abc')).not.toBe(textHash('abd'));
    expect(textHash('')).toMatch(/^[0-9a-f]{16}-0$/);
  });
});
