import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-tmpdir-'));
afterAll(() => {
  home.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

describe('bin/textgen.js and its compile cache', () => {
  it('gives the same output with a cold cache, a warm one and none, and keeps the cache private', async () => {
    const env = { ...home.env, TMPDIR: tmp };
    const args = ['--profile', 'local', 'tokenize', '--encoding', 'cl100k_base', '--count', 'hello world'];
    const cold = await runBin(args, { env });
    const warm = await runBin(args, { env });
    const none = await runBin(args, { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' } });
    expect(cold).toEqual({ exitCode: 0, stdout: '2\n', stderr: '' });
    expect(warm).toEqual(cold);
    expect(none).toEqual(cold);
    const [dir] = readdirSync(tmp);
    expect(dir).toMatch(/^textgen-compile-cache/);
    const cacheDir = join(tmp, dir as string);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const files = readdirSync(cacheDir);
    // The parser bundle is not read: the runner parses a command line it can (src/cli/quick-parse.ts).
    expect(files.map((f) => f.replace(/-.*/, '')).sort()).toEqual(['run']);
    for (const f of files) expect(statSync(join(cacheDir, f)).mode & 0o777).toBe(0o600);

    // A damaged cache is V8's to refuse: the command runs from source and writes a good cache in its place.
    for (const f of files)
      writeFileSync(
        join(cacheDir, f),
        `${readFileSync(join(cacheDir, f), 'latin1').split('\n').slice(0, 2).join('\n')}\nnot V8 data`,
        'latin1',
      );
    expect(await runBin(args, { env })).toEqual(cold);
    for (const f of files) expect(statSync(join(cacheDir, f)).size).toBeGreaterThan(10_000);
  });

  it('--version reads package.json and nothing else, and writes no cache', async () => {
    const env = { ...home.env, TMPDIR: join(tmp, 'none') };
    const r = await runBin(['--version'], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('--version into a closed stdout or a pipe nobody reads exits 0 without a word on stderr', async () => {
    for (const script of ['node "$0" --version >&-', 'node "$0" --version | true']) {
      const r = await execa('sh', ['-c', script, BIN], { env: home.env, reject: false, stdin: 'ignore' });
      expect(r.exitCode, script).toBe(0);
      expect(r.stderr, script).toBe('');
    }
  });
});
