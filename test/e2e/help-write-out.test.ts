/**
 * The built CLI writes a stored help page straight to fd 1 (src/cli/launch/write-out.ts), not through
 * process.stdout: the bytes and the exit code must be what the stream gave, whatever stdout is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, baseEnv, makeHome, runInProcess } from '../helpers/run-cli.js';

const home = makeHome();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-help-write-'));
afterAll(() => {
  home.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});
const env = { ...baseEnv(), ...home.env, CI: 'true' };
/** How every shell line here runs: the clean environment, no terminal, bounded. */
const shell = {
  env,
  extendEnv: false,
  reject: false,
  stdin: 'ignore',
  timeout: 20_000,
  stripFinalNewline: false,
} as const;

/** `sh -c "node BIN --help REDIRECT"`: exit code and stderr. */
async function redirected(redirect: string) {
  const r = await execa('sh', ['-c', `node "$0" --help ${redirect}`, BIN], shell);
  return { exitCode: r.exitCode, stderr: String(r.stderr), stdout: String(r.stdout) };
}

describe('a stored help page written to fd 1', () => {
  it('into a pipe and into a file: the page commander renders, exit 0', async () => {
    const page = (await runInProcess(['--help'])).stdout;
    expect(page).toMatch(/^Usage: textgen /);
    const piped = await redirected('| cat');
    expect(piped).toEqual({ exitCode: 0, stderr: '', stdout: page });
    const file = join(tmp, 'help.txt');
    expect(await redirected(`> "${file}"`)).toEqual({ exitCode: 0, stderr: '', stdout: '' });
    expect(readFileSync(file, 'utf8')).toBe(page);
  });

  it.each(['>&-', '| true', '| head -c 10 > /dev/null', '> /dev/full'])(
    'into %s: exit 0, nothing on stderr (as through the stream)',
    async (redirect) => {
      expect(await redirected(redirect)).toEqual({ exitCode: 0, stderr: '', stdout: '' });
    },
  );

  it('into a non-blocking pipe that is full (EAGAIN): the rest waits for a slow reader, nothing lost', async () => {
    // A parent that makes the pipe non-blocking (its own process.stdout does, for the pipe both share) and fills it,
    // then runs textgen on it; the reader starts a second later.
    const parent = `
      const fs = require('node:fs');
      process.stdout;
      const x = Buffer.alloc(4096, 120);
      let filled = 0;
      for (;;) {
        try { filled += fs.writeSync(1, x); } catch (e) { if (e.code === 'EAGAIN') break; throw e; }
      }
      const started = Date.now();
      const r = require('node:child_process').spawnSync(process.execPath, [process.argv[1], '--help'], { stdio: 'inherit' });
      fs.writeSync(2, JSON.stringify({ filled, waited: Date.now() - started, status: r.status }));
    `;
    const r = await execa('sh', ['-c', 'node -e "$1" "$0" | (sleep 1; cat)', BIN, parent], {
      ...shell,
      encoding: 'buffer',
    });
    const seen = JSON.parse(Buffer.from(r.stderr).toString()) as { filled: number; waited: number; status: number };
    expect(seen.status).toBe(0);
    expect(seen.filled).toBeGreaterThan(0);
    // textgen found the pipe full and waited for the reader rather than dropping the page.
    expect(seen.waited).toBeGreaterThan(500);
    const out = Buffer.from(r.stdout);
    expect(out.subarray(0, seen.filled).every((b) => b === 120)).toBe(true);
    expect(out.subarray(seen.filled).toString('utf8')).toBe((await runInProcess(['--help'])).stdout);
  });
});
