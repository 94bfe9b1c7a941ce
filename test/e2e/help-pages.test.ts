import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, COMMAND_SPECS } from '../../src/cli/commands.js';
import { helpCommandLines } from '../../src/cli/help-text.js';
import { makeHome, runBin, runInProcess } from '../helpers/run-cli.js';

/*
 * `textgen --help` and the other help pages are rendered at build time (scripts/bundle.mjs) and printed by the
 * launcher without commander (docs/performance.md). What the built CLI prints must be byte for byte what commander
 * prints at run time (the in-process CLI builds the command line as before), for every command line that may be
 * stored, and the stored ones must really skip the parser bundle.
 */
const home = makeHome();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-help-pages-'));
afterAll(() => {
  home.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

const lines = helpCommandLines(
  COMMAND_SPECS.map((s) => s.path),
  Object.keys(COMMAND_GROUPS),
);

describe('help pages rendered at build time', () => {
  it('the built CLI prints, for every help command line, exactly what commander prints at run time', async () => {
    // A few processes at a time: about ninety command lines.
    const queue = [...lines];
    const worker = async (): Promise<void> => {
      for (let argv = queue.shift(); argv !== undefined; argv = queue.shift()) {
        const built = await runBin([...argv], { env: home.env });
        const live = await runInProcess([...argv], { env: home.env });
        expect(built, `textgen ${argv.join(' ')}`).toEqual(live);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  }, 180_000);

  it('textgen --help, help and a command --help load no bundle (no compile cache is written)', async () => {
    for (const argv of [['--help'], ['help'], [], ['deployment', 'text-generate', '--help'], ['help', 'globals']]) {
      const dir = join(tmp, `run-${argv.join('_') || 'bare'}`);
      mkdirSync(dir);
      const r = await runBin(argv, { env: { ...home.env, TMPDIR: dir } });
      expect(r).toMatchObject({ exitCode: 0, stderr: '' });
      expect(r.stdout).toMatch(/^Usage: textgen /);
      expect(readdirSync(dir), `textgen ${argv.join(' ')}`).toEqual([]);
    }
  });

  it('a help request the build did not store still goes through commander', async () => {
    const dir = join(tmp, 'with-profile');
    mkdirSync(dir);
    const r = await runBin(['--profile', 'local', '--help'], { env: { ...home.env, TMPDIR: dir } });
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(r.stdout).toBe((await runInProcess(['--help'], { env: home.env })).stdout);
    expect(readdirSync(join(dir, readdirSync(dir)[0] as string)).some((f) => f.startsWith('cli-'))).toBe(true);
  });

  it('the stored pages are the files the launcher reads', () => {
    const dist = resolve(import.meta.dirname, '../../dist');
    const pages = readdirSync(join(dist, 'help'));
    expect(pages.length).toBeGreaterThan(20);
    expect(readFileSync(join(dist, 'help', '0.txt'), 'utf8')).toMatch(/^Usage: textgen /);
  });
});
