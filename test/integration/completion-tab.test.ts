import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome, runInProcess } from '../helpers/run-cli.js';
import { fishCandidates, lineAfterTab, type Shell } from '../helpers/shell-tab.js';

/**
 * Completion as a user's TAB produces it, in real interactive bash and zsh (test/helpers/shell-tab.ts): the shell
 * splits the line itself (bash breaks words at "@" and "="), calls the script, and inserts what it returns. fish
 * is asked through its own completion engine (`complete -C LINE`), which lists what its pager would offer.
 */
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const home = makeHome();
const work = join(home.dir, 'work');
const bin = join(home.dir, 'bin');
const scripts: Partial<Record<Shell | 'fish', string>> = {};

beforeAll(async () => {
  mkdirSync(join(home.env.XDG_CONFIG_HOME, 'textgen'), { recursive: true });
  writeFileSync(
    join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml'),
    'profiles:\n  aa-team: { provider: aleph-alpha, url: https://api.aleph-alpha.com }\n',
  );
  // Files whose names would match if a value fell back to file names.
  mkdirSync(work);
  for (const f of ['params.json', 'aa-notes.txt', 'grain.txt', 'jam.txt']) writeFileSync(join(work, f), '{}');
  writeFileSync(
    join(work, 'other.yaml'),
    'profiles:\n  other-team: { provider: open-inference, url: http://127.0.0.1:9 }\n',
  );
  mkdirSync(bin);
  writeFileSync(join(bin, 'textgen'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'textgen'), 0o755);
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
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
    'profile names of the --config given on the line',
    'textgen --config other.yaml --profile ot',
    'textgen --config other.yaml --profile other-team ',
  ],
  [
    'enum values for --parameters-decoding-method',
    'textgen deployment text-generate --parameters-decoding-method gr',
    'textgen deployment text-generate --parameters-decoding-method greedy ',
  ],
  ['--output values, not files', 'textgen models -o js', 'textgen models -o json'],
  ['a command word', 'textgen deploy', 'textgen deployment '],
  ['a flag of the command', 'textgen tokenize --cou', 'textgen tokenize --count '],
  // Closed sets whose placeholder does not list them (<mode>, <kind>, <type>): the words come from the flag tables.
  ['--gpu <mode>: auto, not aa-notes.txt', 'textgen serve --gpu a', 'textgen serve --gpu auto '],
  ['--engine <kind>', 'textgen serve --engine ll', 'textgen serve --engine llama '],
  ['--granularity <kind>', 'textgen explain --granularity se', 'textgen explain --granularity sentence '],
  [
    '--auth-type <type>',
    'textgen profiles add team --auth-type ze',
    'textgen profiles add team --auth-type zenapikey ',
  ],
  ['--representation <kind>', 'textgen embed --representation do', 'textgen embed --representation document '],
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

/** What fish offers: every candidate, so a list that falls back to files shows here as file names. */
const fishCases: Array<[string, string, string[]]> = [
  [
    'profile names for --profile, not files',
    'textgen --profile ',
    ['aa-team', 'local', 'local-aa', 'local-azure', 'local-oip', 'local-openai'],
  ],
  ['profile names matching what is typed', 'textgen --profile aa', ['aa-team']],
  ['profile names of the --config given on the line', 'textgen --config other.yaml --profile ot', ['other-team']],
  ['@file after a JSON option', 'textgen deployment text-generate --parameters @pa', ['@params.json']],
  [
    '@ alone: every file, each with its @',
    'textgen complete --parameters @',
    ['@aa-notes.txt', '@grain.txt', '@jam.txt', '@other.yaml', '@params.json'],
  ],
  ['files after --parameters-file-like flags keep working', 'textgen complete --input-file pa', ['params.json']],
  ['a JSON option without @ offers nothing (it wants JSON)', 'textgen complete --parameters ', []],
  [
    'enum values for --parameters-decoding-method',
    'textgen deployment text-generate --parameters-decoding-method ',
    ['greedy', 'sample'],
  ],
  [
    'an enum value matching what is typed',
    'textgen deployment text-generate --parameters-decoding-method gr',
    ['greedy'],
  ],
  ['--output values, not files', 'textgen models -o js', ['json', 'jsonl']],
  ['subcommands of the root', 'textgen deploy', ['deployment']],
  [
    'subcommands of a group',
    'textgen deployment ',
    ['chat', 'chat-stream', 'get', 'list', 'text-generate', 'text-generate-stream'],
  ],
  ['a flag of the command', 'textgen tokenize --cou', ['--count']],
  ['--gpu <mode>', 'textgen serve --gpu ', ['auto', 'off']],
  ['--engine <kind>', 'textgen serve --engine ', ['deterministic', 'llama']],
  ['--granularity <kind>', 'textgen explain --granularity ', ['custom', 'paragraph', 'sentence', 'token', 'word']],
  ['--target-granularity <kind>', 'textgen explain --target-granularity ', ['complete', 'token']],
  [
    '--auth-type <type>',
    'textgen profiles add team --auth-type ',
    ['api-key', 'bearer', 'cpd', 'iam', 'none', 'zenapikey'],
  ],
  ['--representation <kind>', 'textgen embed --representation ', ['document', 'query', 'symmetric']],
  ['--resume <output.jsonl> is a file', 'textgen embed --resume pa', ['params.json']],
  ["the completion command's shells", 'textgen completion ', ['bash', 'fish', 'zsh']],
];

describe('TAB in fish', () => {
  it.skipIf(!has('fish')).each(fishCases)(
    '%s',
    async (_what, typed, expected) => {
      const offered = await fishCandidates(typed, {
        script: scripts.fish!,
        cwd: work,
        env: { ...baseEnv(), ...home.env, PATH: `${bin}:${process.env.PATH}` },
      });
      expect([...offered].sort()).toEqual([...expected].sort());
    },
    30_000,
  );
});
