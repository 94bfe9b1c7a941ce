import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/commands.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

/** Words of a simple shell line: double and single quotes, backslash-newline continuations; no expansions. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\\\n\s*)|(\S+)/g;
  let current: string | undefined;
  let last = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[3] !== undefined) continue;
    const adjacent = m.index === last && current !== undefined;
    const piece = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[4] ?? '');
    if (adjacent) current += piece;
    else {
      if (current !== undefined) words.push(current);
      current = piece;
    }
    last = re.lastIndex;
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** `textgen ARGS` or `echo TEXT | textgen ARGS`: what a test can run in-process; anything else needs a shell. */
function runnable(example: string): { args: string[]; input?: string } | undefined {
  if (/[>;&]|\|\|/.test(example.replace(/"[^"]*"|'[^']*'/g, ''))) return undefined;
  const words = shellWords(example);
  if (words[0] === 'echo' && words[2] === '|' && words[3] === 'textgen')
    return { args: words.slice(4), input: `${words[1]}\n` };
  if (words[0] !== 'textgen' || words.includes('|')) return undefined;
  return { args: words.slice(1) };
}

const specs = COMMAND_SPECS;
// serve runs until Ctrl-C, profiles edits the user's config, completion writes into the home directory: run by hand.
// batch merge needs the part files of a sharded run: test/e2e/batch-merge.test.ts runs it on real ones.
const NOT_HERE = new Set(['serve', 'profiles', 'completion', 'batch']);
const cases = specs
  .filter((s) => !NOT_HERE.has(s.path[0] as string))
  .flatMap((s) => s.examples.map((e) => [s.path.join(' '), e] as const));

const home = makeHome();
const cwd = mkdtempSync(join(tmpdir(), 'textgen-examples-'));
// trust's examples name (or search for) a project file here: one that sets only a default an untrusted file may set.
writeFileSync(join(cwd, '.textgenrc.yaml'), 'default_profile: local\n');
// time-series forecast's example reads its history from a file: 512 hourly rows, the least granite-ttm-512 takes.
const hours = Array.from({ length: 512 }, (_, i) => new Date(Date.UTC(2024, 0, 1, i)).toISOString().slice(0, 19));
writeFileSync(
  join(cwd, 'history.json'),
  JSON.stringify({ date: hours, ID1: hours.map(() => 'D1'), TARGET1: hours.map((_, i) => (i % 24) + 0.5) }),
);
afterAll(() => {
  home.cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

describe('every help example runs against the built-in local profiles', () => {
  it.each(cases)(
    '%s: %s',
    async (_path, example) => {
      const run = runnable(example);
      expect(run, 'the example is a plain "textgen …" line (or "echo … | textgen …")').toBeDefined();
      const r = await runInProcess(run!.args, {
        env: home.env,
        cwd,
        ...(run!.input !== undefined ? { input: run!.input } : {}),
      });
      // Warnings are fine (the watsonx engine notes a defaulted max_new_tokens, as the real service does).
      expect({ exitCode: r.exitCode, errors: r.stderr.split('\n').filter((l) => /^error/i.test(l)) }).toEqual({
        exitCode: 0,
        errors: [],
      });
      // trust and trust --revoke report on stderr (a note, not data); everything else answers on stdout.
      if (_path !== 'trust' || example.includes('--list')) expect(r.stdout).not.toBe('');
    },
    30_000,
  );
});
