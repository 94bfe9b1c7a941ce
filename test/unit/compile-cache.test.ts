import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileCacheDir, loadBundle } from '../../src/cli/launch/compile-cache.js';

const root = mkdtempSync(join(tmpdir(), 'textgen-compile-cache-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function bundle(): string {
  const file = join(root, `bundle-${++n}.cjs`);
  writeFileSync(
    file,
    'exports.answer = (x) => x * 2; exports.file = __filename; exports.hasRequire = typeof require("node:path").join;\n',
  );
  return file;
}
const keysOf = (file: string) => JSON.parse(readFileSync(file).toString('utf8').split('\n')[1] as string) as string[];
const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.bin'));

describe('the compile cache of the bundles', () => {
  it('runs the bundle as CommonJS, writes a private cache once per key, and reads it back', () => {
    const dir = join(root, 'cache-a');
    const file = bundle();
    const first = loadBundle<{ answer(x: number): number; file: string; hasRequire: string }>(file, 'id1', dir);
    expect(first.exports.answer(21)).toBe(42);
    expect(first.exports.file).toBe(file);
    expect(first.exports.hasRequire).toBe('function');
    first.persist('help');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [name] = cacheFiles(dir);
    expect(name).toMatch(/^bundle-\d+-id1-v\d+\.\d+\.\d+-\w+-[0-9a-f]{8}\.bin$/);
    const cache = join(dir, name as string);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(keysOf(cache)).toEqual(['help']);

    const written = statSync(cache).mtimeMs;
    const second = loadBundle<{ answer(x: number): number }>(file, 'id1', dir);
    expect(second.exports.answer(2)).toBe(4);
    second.persist('help');
    expect(statSync(cache).mtimeMs).toBe(written);
    second.persist('deployment text-generate');
    expect(keysOf(cache)).toEqual(['help', 'deployment text-generate']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('removes the caches of other builds of the bundle once they are a day old', () => {
    const dir = join(root, 'cache-prune');
    const file = bundle();
    loadBundle(file, 'old1', dir).persist('help');
    loadBundle(file, 'old2', dir).persist('help');
    const [old1, old2] = cacheFiles(dir).sort();
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(join(dir, old1 as string), dayAgo, dayAgo);
    loadBundle(file, 'new', dir).persist('help');
    expect(cacheFiles(dir).sort()).toEqual([old2, cacheFiles(dir).find((f) => f.includes('-new-'))].sort());
  });

  it('keeps one cache per scope, and never prunes another scope of the same build', () => {
    const dir = join(root, 'cache-scopes');
    const file = bundle();
    loadBundle(file, 'b1', dir, 'deployment text-generate').persist('deployment text-generate');
    const chat = loadBundle(file, 'b1', dir, 'chat');
    chat.persist('chat');
    const names = cacheFiles(dir).sort();
    expect(names).toHaveLength(2);
    expect(names.find((f) => f.includes('-b1-deployment_text_generate-'))).toBeDefined();
    expect(names.find((f) => f.includes('-b1-chat-'))).toBeDefined();
    // A cache of a scope holds that scope's runs only: the chat cache never saw the request.
    expect(keysOf(join(dir, names.find((f) => f.includes('-chat-')) as string))).toEqual(['chat']);

    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    for (const f of names) utimesSync(join(dir, f), dayAgo, dayAgo);
    loadBundle(file, 'b1', dir, 'models').persist('models');
    expect(cacheFiles(dir)).toHaveLength(3);
    loadBundle(file, 'b2', dir, 'models').persist('models');
    expect(cacheFiles(dir).filter((f) => f.includes('-b1-'))).toEqual([
      cacheFiles(dir).find((f) => f.includes('-b1-models-')),
    ]);
  });

  it('never uses a directory others may write to, or one reached through a symlink', () => {
    const open = join(root, 'cache-open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const a = loadBundle<{ answer(x: number): number }>(bundle(), 'id1', open);
    a.persist('help');
    expect(a.exports.answer(1)).toBe(2);
    expect(readdirSync(open)).toEqual([]);

    const target = join(root, 'cache-target');
    mkdirSync(target, { mode: 0o700 });
    const link = join(root, 'cache-link');
    symlinkSync(target, link);
    loadBundle(bundle(), 'id1', link).persist('help');
    expect(readdirSync(target)).toEqual([]);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, and per user under the temporary directory otherwise', () => {
    expect(compileCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    const dir = compileCacheDir({});
    expect(dir?.startsWith(tmpdir())).toBe(true);
    if (typeof process.getuid === 'function') expect(dir?.endsWith(`-${process.getuid()}`)).toBe(true);
    const file = bundle();
    const off = loadBundle<{ answer(x: number): number }>(file, 'id1', undefined);
    off.persist('help');
    expect(off.exports.answer(3)).toBe(6);
  });
});
