/**
 * The project-config trust model through the built CLI (README, "Trusting a project's config"; docs/reliability.md,
 * "Probe classes: hostile repository / hostile local user"): a hostile repository and a hostile local user plant
 * files where textgen looks, and none of them runs code, redirects a credential, or replaces a profile.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

const ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;

let home: ReturnType<typeof makeHome>;
/** A project directory outside $HOME, as a CI workspace or /tmp/build-1 is. */
let proj: string;
let servers: Server[];

/** The suite's figures (docs/reliability.md): runs, planted files, and what got through (must stay 0). */
const tally = { runs: 0, planted: 0, staged: 0, hostileRequests: 0, codeRan: 0 };
const hostile: Array<{ seen: unknown[] }> = [];
afterAll(() => {
  tally.hostileRequests = hostile.reduce((n, l) => n + l.seen.length, 0);
  console.log(
    `trust: ${tally.runs} CLI runs against ${tally.planted} planted files (${tally.staged} staged as another user or writable by others), ${tally.codeRan} untrusted code configs or $imports run, ${tally.hostileRequests} requests reached a hostile listener`,
  );
});

/** Asserts a planted program's marker is absent, and counts it if not. */
function neverRan(marker: string): void {
  if (existsSync(marker)) tally.codeRan++;
  expect(existsSync(marker)).toBe(false);
}

beforeEach(() => {
  home = makeHome();
  proj = mkdtempSync(join(tmpdir(), 'textgen-proj-'));
  servers = [];
});

afterEach(async () => {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((done) => {
          s.closeAllConnections();
          s.close(() => done());
        }),
    ),
  );
  home.cleanup();
  rmSync(proj, { recursive: true, force: true });
});

/** A listener that records every request's headers and answers 404: what a hostile host would see. */
async function listener(
  kind: 'hostile' | 'own' = 'hostile',
): Promise<{ url: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }> }> {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"not_found","message":"nothing here"}]}');
    });
  });
  servers.push(server);
  if (kind === 'hostile') hostile.push({ seen });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, seen };
}

function userFile(text: string): void {
  const dir = join(home.dir, 'config', 'textgen');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), text, { mode: 0o600 });
}

function plant(dir: string, name: string, text: string, mode = 0o644): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  tally.planted++;
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

const run = (args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) => {
  tally.runs++;
  return runBin(args, { cwd: opts.cwd ?? proj, env: { ...home.env, ...opts.env } });
};

/** The profiles a command sees, by name → the file each came from. */
async function profilesSeen(
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Record<string, string>> {
  const r = await run(['profiles', 'list', '-o', 'json'], opts);
  expect(r.exitCode, r.stderr).toBe(0);
  const list = JSON.parse(r.stdout) as { profiles: Array<{ name: string; source: string }> };
  return Object.fromEntries(list.profiles.map((p) => [p.name, p.source]));
}

/** A hostile project file: its own profile, the default, the user's profile and `local`, all at its listener. */
function hostileYaml(url: string): string {
  return [
    'default_profile: evil',
    'profiles:',
    `  evil: { provider: watsonx, url: "${url}", auth: { type: iam, apikey_env: TEXTGEN_API_KEY, iam_url: "${url}/token" } }`,
    `  mine: { provider: watsonx, url: "${url}", auth: { type: bearer, token_env: GITHUB_TOKEN } }`,
    `  local: { provider: watsonx, url: "${url}", tls: { insecure: true } }`,
    '',
  ].join('\n');
}

const USER = 'default_profile: mine\nprofiles:\n  mine: { provider: watsonx, engine: deterministic }\n';
const GENERATE = [
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--input',
  'Hi',
  '--parameters-max-new-tokens',
  '3',
];

describe('the search never reads above where it should', () => {
  it('outside $HOME a file in a parent directory is not read (no repository: the working directory only)', async () => {
    const marker = join(proj, 'code-ran');
    plant(proj, 'textgen.config.js', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');\n`);
    plant(proj, '.textgenrc.yaml', 'default_profile: nope\n');
    const sub = join(proj, 'build', 'sub');
    mkdirSync(sub, { recursive: true });
    const r = await run(['--profile', 'local', ...GENERATE], { cwd: sub });
    expect(r.exitCode, r.stderr).toBe(0);
    neverRan(marker);
    expect(r.stderr).toBe('');
  });

  it('in a git repository outside $HOME it reads up to the repository root, not above', async () => {
    const repo = join(proj, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    plant(proj, '.textgenrc.yaml', 'profiles:\n  above: { provider: watsonx }\n');
    plant(repo, '.textgenrc.yaml', 'profiles:\n  top: { provider: watsonx }\n');
    const deep = join(repo, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    expect(Object.keys(await profilesSeen({ cwd: deep }))).toEqual(['top']);
  });
});

describe('an untrusted project file', () => {
  it('cannot send TEXTGEN_API_KEY, apikey_env or token_env to its own URL, nor replace your profile, the default or local', async () => {
    const evil = await listener();
    userFile(USER);
    const file = plant(proj, '.textgenrc.yaml', hostileYaml(evil.url));
    const env = { GITHUB_TOKEN: 'ghp_secret' };
    // The default (the project's "evil" is ignored; the user's "mine" stays the default), the user's name, local.
    for (const args of [GENERATE, ['--profile', 'mine', ...GENERATE], ['--profile', 'local', ...GENERATE]]) {
      const r = await run(args, { env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).not.toBe('');
      expect(r.stderr).toContain(`${file} is not trusted: ignored profile "evil" (url, auth)`);
      expect(r.stderr).toContain('profile "mine" (url, auth; the name of your profile)');
      expect(r.stderr).toContain('profile "local" (url, tls; the name of a built-in profile)');
      expect(r.stderr).toContain('default_profile: evil');
      expect(r.stderr).toContain(`run textgen trust ${file} to use it`);
      expect(r.stderr.split('\n').filter((l) => l.includes('not trusted'))).toHaveLength(1);
    }
    const named = await run(['--profile', 'evil', ...GENERATE], { env });
    expect(named.exitCode).toBe(2);
    expect(named.stderr).toContain('unknown profile "evil"');
    expect(evil.seen).toEqual([]);
  });

  it('cannot take TEXTGEN_API_KEY to its own URL through its default_profile', async () => {
    const evil = await listener();
    plant(proj, '.textgenrc.yaml', hostileYaml(evil.url));
    const r = await run(GENERATE, { env: { TEXTGEN_API_KEY: 'root-key-123' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no profile selected');
    expect(r.stderr).not.toContain('root-key-123');
    expect(evil.seen).toEqual([]);
  });

  it('the line naming what was ignored survives -q when it concerns credentials or TLS', async () => {
    const evil = await listener();
    const file = plant(proj, '.textgenrc.yaml', hostileYaml(evil.url));
    const r = await run(['-q', '--profile', 'local', ...GENERATE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file} is not trusted: ignored`);
    expect(evil.seen).toEqual([]);
  });

  it('may set defaults: a default_profile of yours or built in, a new profile without URL or credentials', async () => {
    userFile(USER);
    plant(
      proj,
      '.textgenrc.yaml',
      'default_profile: local-openai\nprofiles:\n  quick: { provider: openai, defaults: { model: gpt-4o, parameters: { max_new_tokens: 2 } } }\n',
    );
    const r = await run(['-o', 'json', 'complete', 'Hi', '--max-tokens', '2']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ model_id: expect.any(String) });
    expect(r.stderr).toBe('');
    expect(await profilesSeen()).toMatchObject({
      quick: expect.stringContaining('.textgenrc.yaml'),
      mine: '~/config/textgen/config.yaml',
    });
  });

  it('never runs a code config: not with a command that uses a profile, not with profiles list', async () => {
    const marker = join(proj, 'code-ran');
    const file = plant(
      proj,
      'textgen.config.js',
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');\nmodule.exports = {};\n`,
    );
    const r = await run(['--profile', 'local', ...GENERATE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file} is not trusted: it is code and was not run; run textgen trust ${file}`);
    expect((await run(['profiles', 'list'])).exitCode).toBe(0);
    neverRan(marker);
  });

  it("never follows $import to a .cjs, and never runs cosmiconfig's .config/config.js", async () => {
    const imported = join(proj, 'import-ran');
    const meta = join(proj, 'meta-ran');
    plant(
      proj,
      'evil.cjs',
      `require('node:fs').writeFileSync(${JSON.stringify(imported)}, 'x');\nmodule.exports = {};\n`,
    );
    plant(
      join(proj, '.config'),
      'config.js',
      `require('node:fs').writeFileSync(${JSON.stringify(meta)}, 'x');\nmodule.exports = {};\n`,
    );
    const file = plant(proj, '.textgenrc.yaml', '$import: ./evil.cjs\n');
    const r = await run(['--profile', 'local', ...GENERATE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${file} is not trusted: ignored $import`);
    neverRan(imported);
    neverRan(meta);
    // Trusted or named with --config, $import is still never run.
    await run(['trust']);
    expect((await run(['--profile', 'local', ...GENERATE])).exitCode).toBe(0);
    expect((await run(['--config', file, '--profile', 'local', ...GENERATE])).exitCode).toBe(0);
    neverRan(imported);
  });
});

describe('a planted FIFO', () => {
  it('at a search place does not block the command: skipped with a line', async () => {
    const { spawnSync } = await import('node:child_process');
    const fifo = join(proj, '.textgenrc.yaml');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return expect.fail('mkfifo is not available');
    tally.planted++;
    const r = await run(['--profile', 'local', ...GENERATE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`skipped ${fifo}: it is not a regular file`);
  });
});

describe('textgen trust', () => {
  it('makes the file load; an edit un-trusts it; --list and --revoke', async () => {
    const evil = await listener();
    userFile(
      '# my settings\ndefault_profile: mine  # keep\nprofiles:\n  mine: { provider: watsonx, engine: deterministic }\n',
    );
    const file = plant(proj, '.textgenrc.yaml', hostileYaml(evil.url));
    expect(Object.keys(await profilesSeen())).toEqual(['mine']);

    const t = await run(['trust']);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stderr).toContain(`trusted ${file} (sha256 `);
    expect(t.stderr).toContain(`evil → ${evil.url}`);
    const { readFileSync } = await import('node:fs');
    const saved = readFileSync(join(home.dir, 'config', 'textgen', 'config.yaml'), 'utf8');
    // Edited in place: the user's comments stay.
    expect(saved).toContain('# my settings');
    expect(saved).toContain('default_profile: mine # keep');
    expect(saved).toContain(`path: ${file}`);
    expect(await profilesSeen()).toEqual({ evil: file, mine: file, local: file });

    const listed = await run(['trust', '--list', '-o', 'json']);
    expect(listed.exitCode).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ path: file, state: 'trusted' })]);

    appendFileSync(file, '# harmless-looking edit\n');
    const edited = await run(['--profile', 'local', ...GENERATE]);
    expect(edited.exitCode, edited.stderr).toBe(0);
    expect(edited.stderr).toContain(`${file} is not trusted (changed since you trusted it): ignored`);
    expect(Object.keys(await profilesSeen())).toEqual(['mine']);
    expect((await run(['trust', '--list'])).stdout).toMatch(new RegExp(`^changed +${file}`, 'm'));

    const revoked = await run(['trust', '--revoke']);
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`revoked the trust of ${file}`);
    expect(JSON.parse((await run(['trust', '--list', '-o', 'json'])).stdout)).toEqual([]);
    expect(readFileSync(join(home.dir, 'config', 'textgen', 'config.yaml'), 'utf8')).not.toContain('trusted_files');
    expect(evil.seen).toEqual([]);
  });

  it('runs a trusted code config', async () => {
    const marker = join(proj, 'code-ran');
    plant(
      proj,
      'textgen.config.mjs',
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\nexport default {};\n`,
    );
    expect((await run(['trust', 'textgen.config.mjs'])).exitCode).toBe(0);
    neverRan(marker);
    const r = await run(['--profile', 'local', ...GENERATE]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('refuses a file that is not a project config, and says when there is none', async () => {
    plant(proj, 'notes.yaml', 'a: 1\n');
    const wrong = await run(['trust', 'notes.yaml']);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(/^error: notes\.yaml is not a project config file/m);
    const none = await run(['trust']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^error: no project config file found from /m);
  });

  it('is listed in help and shell completion', async () => {
    expect((await run(['--help'])).stdout).toMatch(/^ {2}trust \[options\] \[path\] /m);
    expect((await run(['completion', 'bash'])).stdout).toMatch(/\btrust\b/);
  });
});

describe('TEXTGEN_TRUST (CI)', () => {
  it('trusts the files it names, relative to the working directory or absolute, path-delimiter separated', async () => {
    const evil = await listener();
    const file = plant(proj, '.textgenrc.yaml', hostileYaml(evil.url));
    expect(Object.keys(await profilesSeen())).toEqual([]);
    expect(Object.keys(await profilesSeen({ env: { TEXTGEN_TRUST: '.textgenrc.yaml' } })).sort()).toEqual([
      'evil',
      'local',
      'mine',
    ]);
    expect(Object.keys(await profilesSeen({ env: { TEXTGEN_TRUST: `/nonexistent/x.yaml:${file}` } }))).toContain(
      'evil',
    );
    const listed = await run(['trust', '--list', '-o', 'json'], { env: { TEXTGEN_TRUST: file } });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ path: file, by: 'TEXTGEN_TRUST' })]);
  });
});

describe('a trusted project profile', () => {
  it('sends its credentials only to its own URL: with --url elsewhere they are held back, and that is said', async () => {
    const own = await listener('own');
    const other = await listener('own');
    plant(
      proj,
      '.textgenrc.yaml',
      `profiles:\n  p: { provider: openai, url: "${own.url}/v1", auth: { type: bearer, token_env: PROJ_TOKEN } }\n`,
    );
    const env = { TEXTGEN_TRUST: '.textgenrc.yaml', PROJ_TOKEN: 'proj-token-1' };
    const r = await run(
      ['-q', '--profile', 'p', '--url', `${other.url}/v1`, '--retries', '0', 'complete', '-m', 'x', 'Hi'],
      { env },
    );
    expect(r.stderr).toContain('its credentials (auth.token_env) are for its url');
    expect(r.stderr).toContain('not sent to the url from --url');
    expect(other.seen.length).toBeGreaterThan(0);
    for (const req of other.seen) expect(req.headers.authorization).toBeUndefined();
    expect(own.seen).toEqual([]);
    const mine = await run(['--profile', 'p', '--retries', '0', 'complete', '-m', 'x', 'Hi'], { env });
    expect(mine.stderr).not.toContain('not sent');
    expect(own.seen[0]?.headers.authorization).toBe('Bearer proj-token-1');
  });

  it('tls.insecure warns naming the file, not a --insecure flag nobody gave, even with -q', async () => {
    const file = plant(
      proj,
      '.textgenrc.yaml',
      'profiles:\n  p: { provider: watsonx, url: "https://127.0.0.1:9", tls: { insecure: true } }\n',
    );
    const r = await run(['-q', '--profile', 'p', '--dry-run', ...GENERATE], { env: { TEXTGEN_TRUST: file } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`TLS certificate verification is disabled by tls.insecure in profile "p" of ${file}`);
    expect(r.stderr).not.toContain('(--insecure)');
  });
});

describe.skipIf(!ROOT)('files another local user could have written (staged as root with uid 65534)', () => {
  const cases: Array<[string, (dir: string) => string, RegExp]> = [
    [
      'owned by another user',
      (dir) => {
        const f = plant(dir, '.textgenrc.yaml', 'default_profile: local-aa\n');
        chownSync(f, NOBODY, NOBODY);
        return f;
      },
      /is owned by uid 65534, not by you \(uid 0\)/,
    ],
    [
      'writable by others',
      (dir) => plant(dir, '.textgenrc.yaml', 'default_profile: local-aa\n', 0o666),
      /is writable by others/,
    ],
    [
      'writable by a group not yours alone',
      (dir) => {
        const f = plant(dir, '.textgenrc.yaml', 'default_profile: local-aa\n', 0o664);
        chownSync(f, 0, NOBODY);
        chmodSync(f, 0o664);
        return f;
      },
      /is writable by group 65534/,
    ],
    [
      'in a directory others can write to (no sticky bit)',
      (dir) => {
        const open = join(dir, 'open');
        mkdirSync(open);
        chmodSync(open, 0o777);
        return plant(open, '.textgenrc.yaml', 'default_profile: local-aa\n');
      },
      /which others can write to/,
    ],
    [
      "another user's file in a sticky shared directory (/tmp-like)",
      (dir) => {
        const shared = join(dir, 'shared');
        mkdirSync(shared);
        chmodSync(shared, 0o1777);
        const f = plant(shared, '.textgenrc.yaml', 'default_profile: local-aa\n');
        chownSync(f, NOBODY, NOBODY);
        return f;
      },
      /owned by uid 65534/,
    ],
  ];

  it.each(cases)('a file %s is skipped with one line naming it and why, -q or not', async (_case, stage, why) => {
    const file = stage(proj);
    tally.staged++;
    const cwd = join(file, '..');
    for (const quiet of [[], ['-q']]) {
      const r = await run([...quiet, '-o', 'json', 'complete', 'Hi', '--max-tokens', '2'], { cwd });
      // The file's default_profile (local-aa) is not taken: no profile is selected at all.
      expect(r.exitCode).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.includes(file));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^warning: skipped ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it .*${why.source}`),
      );
    }
    const t = await run(['trust'], { cwd });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toMatch(/^error: cannot trust /m);
  });

  it('a group-writable file of your own private group (Debian/Fedora umask 002) is read', async () => {
    const file = plant(proj, '.textgenrc.yaml', 'default_profile: local-aa\n', 0o664);
    chownSync(file, 0, 0);
    chmodSync(file, 0o664);
    const r = await run(['-o', 'json', 'complete', 'Hi', '--max-tokens', '2']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('your own file in a sticky shared directory is read', async () => {
    const shared = join(proj, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    plant(shared, '.textgenrc.yaml', 'default_profile: local-aa\n');
    const r = await run(['-o', 'json', 'complete', 'Hi', '--max-tokens', '2'], { cwd: shared });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it("another user's .git does not widen the search to its directory", async () => {
    mkdirSync(join(proj, '.git'));
    chownSync(join(proj, '.git'), NOBODY, NOBODY);
    plant(proj, '.textgenrc.yaml', 'default_profile: local-aa\n');
    const sub = join(proj, 'sub');
    mkdirSync(sub);
    const r = await run(['-o', 'json', 'complete', 'Hi', '--max-tokens', '2'], { cwd: sub });
    expect(r.exitCode).toBe(2);
  });
});

describe.skipIf(ROOT)('ownership cases', () => {
  it('are skipped: staging another uid needs root (chown 65534), and this run is not root', () => {
    expect(ROOT).toBe(false);
  });
});
