/**
 * Hostile paths (issue 16, item 1): files and directories that are not textgen's to replace or chmod. Each case
 * builds its own directory (which is also its HOME), runs the built CLI, and then checks that what was there before
 * is still there, as it was: a device is still a device, a link still a link, a directory keeps its mode.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { HandPickedCase } from './hand-picked.js';

/** A batch against an address nothing listens on: every line fails fast (exit 5 records), and the batch ends. */
const BATCH = [
  '--provider',
  'watsonx',
  '--url',
  'http://127.0.0.1:9',
  '--token',
  't',
  '--retries',
  '0',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--batch',
  'in.jsonl',
];
const RECORD = '{"line":1,"result":{"kept":true}}\n';

const mode = (path: string) => statSync(path).mode & 0o7777;
const octal = (m: number) => m.toString(8).padStart(4, '0');

function expectMode(path: string, wanted: number, what: string): string[] {
  const m = mode(path);
  return m === wanted ? [] : [`${what} changed mode from ${octal(wanted)} to ${octal(m)}`];
}

function expectLink(path: string, target: string): string[] {
  const s = lstatSync(path, { throwIfNoEntry: false });
  if (!s) return [`${path} was removed`];
  if (!s.isSymbolicLink())
    return [`the symbolic link ${path} was replaced by a ${s.isFile() ? 'regular file' : 'something else'}`];
  return readlinkSync(path) === target ? [] : [`the symbolic link ${path} now points elsewhere`];
}

const writeInput = (dir: string) => writeFileSync(join(dir, 'in.jsonl'), '"Hi"\n');

export function notOursCases(): HandPickedCase[] {
  const root = process.getuid?.() === 0;
  const cases: HandPickedCase[] = [];

  cases.push({
    name: '--resume naming a named pipe is refused, and the pipe stays',
    args: [...BATCH, '--resume', 'out.fifo'],
    setup: (dir) => {
      writeInput(dir);
      execFileSync('mkfifo', [join(dir, 'out.fifo')]);
    },
    after: (dir) => (lstatSync(join(dir, 'out.fifo')).isFIFO() ? [] : ['the named pipe was replaced']),
    code: 2,
    message: /--resume: out\.fifo is a named pipe, not a regular file/,
  });

  // As root, --resume /dev/null turned the real /dev/null into a file; a private copy of the device shows it safely.
  cases.push({
    name: '--resume naming a character device (a copy of /dev/null) is refused, and the device stays',
    args: [...BATCH, '--resume', 'null-device'],
    setup: (dir) => {
      writeInput(dir);
      execFileSync('mknod', [join(dir, 'null-device'), 'c', '1', '3']);
    },
    after: (dir) =>
      lstatSync(join(dir, 'null-device')).isCharacterDevice() ? [] : ['the character device was replaced by a file'],
    code: 2,
    message: /--resume: null-device is a character device, not a regular file/,
    ...(root ? {} : { skip: 'only root can create a device node' }),
  });

  cases.push({
    name: '--resume naming a symbolic link is refused; the link and the file it points to stay as they were',
    args: [...BATCH, '--resume', 'out-link.jsonl'],
    setup: (dir) => {
      writeInput(dir);
      writeFileSync(join(dir, 'real.jsonl'), RECORD);
      symlinkSync('real.jsonl', join(dir, 'out-link.jsonl'));
    },
    after: (dir) => [
      ...expectLink(join(dir, 'out-link.jsonl'), 'real.jsonl'),
      ...(readFileSync(join(dir, 'real.jsonl'), 'utf8') === RECORD ? [] : ['the file behind the link was rewritten']),
    ],
    code: 2,
    message: /--resume: out-link\.jsonl is a symbolic link, not a regular file/,
  });

  cases.push({
    name: 'profiles add --config DIR/file.yaml leaves the mode of DIR alone',
    args: [
      'profiles',
      'add',
      'p',
      '--provider',
      'open-inference',
      '--url',
      'http://127.0.0.1:9',
      '--no-check',
      '--config',
      'project/textgen.yaml',
    ],
    setup: (dir) => {
      mkdirSync(join(dir, 'project'));
      chmodSync(join(dir, 'project'), 0o755);
    },
    after: (dir) => [
      ...expectMode(join(dir, 'project'), 0o755, "the --config file's directory"),
      ...expectMode(join(dir, 'project', 'textgen.yaml'), 0o600, 'the written config'),
    ],
    code: 0,
  });

  cases.push({
    name: 'profiles use on a user config that is a symbolic link updates the file it points to, and the link stays',
    args: ['profiles', 'use', 'local-aa'],
    setup: (dir, env) => {
      mkdirSync(join(dir, 'dotfiles'));
      chmodSync(join(dir, 'dotfiles'), 0o755);
      writeFileSync(join(dir, 'dotfiles', 'textgen.yaml'), '# mine\nprofiles: {}\n');
      mkdirSync(join(env.XDG_CONFIG_HOME!, 'textgen'), { recursive: true });
      symlinkSync(join(dir, 'dotfiles', 'textgen.yaml'), join(env.XDG_CONFIG_HOME!, 'textgen', 'config.yaml'));
    },
    after: (dir, env) => {
      const problems = expectLink(
        join(env.XDG_CONFIG_HOME!, 'textgen', 'config.yaml'),
        join(dir, 'dotfiles', 'textgen.yaml'),
      );
      const text = readFileSync(join(dir, 'dotfiles', 'textgen.yaml'), 'utf8');
      if (!/^default_profile: local-aa$/m.test(text) || !text.includes('# mine'))
        problems.push(`the file behind the link was not updated in place: ${JSON.stringify(text)}`);
      return [...problems, ...expectMode(join(dir, 'dotfiles'), 0o755, 'the directory of the linked file')];
    },
    code: 0,
  });

  cases.push({
    name: 'profiles remove leaves a user config directory it did not create alone',
    args: ['profiles', 'remove', 'p', '--yes'],
    setup: (_dir, env) => {
      const d = join(env.XDG_CONFIG_HOME!, 'textgen');
      mkdirSync(d, { recursive: true });
      chmodSync(d, 0o750);
      writeFileSync(
        join(d, 'config.yaml'),
        'profiles:\n  p: { provider: open-inference, url: "http://127.0.0.1:9" }\n',
      );
    },
    after: (_dir, env) => expectMode(join(env.XDG_CONFIG_HOME!, 'textgen'), 0o750, 'the user config directory'),
    code: 0,
  });

  // --config naming a file that is no config (a link to a system file of `name: value` lines) must not echo it.
  cases.push({
    name: '--config symlinked to a file of colon-separated lines names the first key, shortened, not the content',
    args: ['--config', 'linked.yaml', 'profiles', 'list'],
    setup: (dir) => {
      writeFileSync(
        join(dir, 'system-file'),
        'MemTotal:       16318064 kB\nMemFree:        1234 kB\nsecretuser: S3CRET-token-value-that-must-not-be-echoed\n',
      );
      symlinkSync('system-file', join(dir, 'linked.yaml'));
    },
    after: (_dir) => [],
    code: 2,
    message:
      /^[^\n]*linked\.yaml: MemTotal: unknown field \(and 2 more unknown fields\); is this a textgen config file\? it takes default_profile and profiles$/m,
  });
  cases.push({
    name: '--config with one very long unknown key shows it shortened',
    args: ['--config', 'long-key.yaml', 'profiles', 'list'],
    setup: (dir) => writeFileSync(join(dir, 'long-key.yaml'), `${'k'.repeat(40)}S3CRET: 1\n`),
    code: 2,
    message: /long-key\.yaml: \[?"?k{23}…"?\]?: unknown field$/m,
  });

  // A repository's code must not run because someone pressed Tab in it, or listed profiles there.
  const marker =
    "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./code-ran.txt', import.meta.url), 'ran');\nexport default { profiles: { fromcode: { provider: 'watsonx', url: 'http://127.0.0.1:9' } } };\n";
  for (const [what, args] of [
    ['TAB completion of profile names', ['completion', '--profiles']],
    ['profiles list', ['profiles', 'list']],
    ['profiles list -o json', ['profiles', 'list', '-o', 'json']],
  ] as const) {
    cases.push({
      name: `${what} does not run a textgen.config.js`,
      args: [...args],
      config: { 'textgen.config.mjs': marker },
      after: (dir) => (existsSync(join(dir, 'code-ran.txt')) ? ["the project's textgen.config.mjs was run"] : []),
      code: 0,
    });
  }

  return cases;
}
