import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome, runInProcess } from '../helpers/run-cli.js';
import { lineAfterTab, type Shell } from '../helpers/shell-tab.js';

/**
 * Completion as a user's TAB produces it, in real interactive bash and zsh (test/helpers/shell-tab.ts): the shell
 * splits the line itself (bash breaks words at "@" and "="), calls the script, and inserts what it returns.
 */
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const home = makeHome();
const work = join(home.dir, 'work');
const bin = join(home.dir, 'bin');
const scripts: Partial<Record<Shell, string>> = {};

beforeAll(async () => {
  mkdirSync(join(home.env.XDG_CONFIG_HOME, 'textgen'), { recursive: true });
  writeFileSync(
    join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml'),
    'profiles:\n  aa-team: { provider: aleph-alpha, url: https://api.aleph-alpha.com }\n',
  );
  // Files whose names would match if a value fell back to file names.
  mkdirSync(work);
  for (const f of ['params.json', 'aa-notes.txt', 'grain.txt', 'jam.txt']) writeFileSync(join(work, f), '{}');
  mkdirSync(bin);
  writeFileSync(join(bin, 'textgen'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'textgen'), 0o755);
  for (const shell of ['bash', 'zsh'] as const) {
    const r = await runInProcess(['completion', shell], { env: home.env });
    scripts[shell] = r.stdout;
  }
}, 60_000);
afterAll(() => home.cleanup());

const cases: Array<[string, string, string]> = [
  [
    '@file after a JSON option',
    'textgen deployment text-generate --parameters @pa',
    'textgen deployment text-generate --parameters @params.json ',
  ],
  [
    '@ alone, the only file starting with p',
    'textgen complete --parameters @p',
    'textgen complete --parameters @params.json ',
  ],
  [
    '@ alone with several files: nothing quoted (no \\@)',
    'textgen complete --parameters @',
    'textgen complete --parameters @',
  ],
  ['profile names for --profile, not files', 'textgen --profile aa', 'textgen --profile aa-team '],
  [
    'enum values for --parameters-decoding-method',
    'textgen deployment text-generate --parameters-decoding-method gr',
    'textgen deployment text-generate --parameters-decoding-method greedy ',
  ],
  ['--output values, not files', 'textgen models -o js', 'textgen models -o json'],
  ['a command word', 'textgen deploy', 'textgen deployment '],
  ['a flag of the command', 'textgen tokenize --cou', 'textgen tokenize --count '],
];

describe.each(['bash', 'zsh'] as const)('TAB in %s', (shell) => {
  it.skipIf(!has(shell)).each(cases)(
    '%s',
    async (_what, typed, expected) => {
      const line = await lineAfterTab(shell, typed, {
        script: scripts[shell]!,
        cwd: work,
        env: { ...baseEnv(), ...home.env, PATH: `${bin}:${process.env.PATH}` },
      });
      expect(line).toBe(expected);
    },
    30_000,
  );
});
