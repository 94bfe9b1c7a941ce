import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server-fixture.js';
import { runBin } from '../helpers/run-cli.js';

/**
 * The scope options of the wx-ai mirror commands (issue 25): --space-id/--space and --project-id/--project (each
 * pair exclusive, ids 36 characters), a name looked up in serve's /v2/spaces and /v2/projects, --cpd-scope choosing
 * the profile and the scope, and --version after the command words as the API version date while `textgen --version`
 * stays textgen's.
 */
const t = useServer();
const SPACE = '63dc4cf1-252f-424b-b52d-5cdd9814987f';

function bin(args: string[]) {
  return runBin(['--provider', 'watsonx', '--url', t.server.url, '--token', 't', ...args], { env: t.home.env });
}

function generate(...extra: string[]) {
  return bin([
    'deployment',
    'text-generate',
    '--id-or-name',
    'demo',
    '--input',
    'Hi',
    '--parameters-max-new-tokens',
    '2',
    ...extra,
  ]);
}

describe('--version', () => {
  it("alone prints textgen's version; after the command words it is the API version date sent as version=", async () => {
    const own = await runBin(['--version']);
    expect(own.exitCode).toBe(0);
    expect(own.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const r = await generate('--version', '2019-01-01');
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const sent = t.server.requests.filter((q) => q.path === '/ml/v1/deployments/demo/text/generation');
    expect(sent.map((q) => q.query.version)).toEqual(['2019-01-01']);
  });

  it('a --version that is no date is a usage error naming the flag, and nothing is sent', async () => {
    const r = await generate('--version', '2019-02-30');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: --version must be a date written YYYY-MM-DD, got "2019-02-30"');
    expect(r.stdout).toBe('');
    expect(t.server.requests).toHaveLength(0);
  });

  it("after a command without it, or before the command words, --version is still textgen's", async () => {
    for (const args of [
      ['models', '--version'],
      ['--version', 'deployment', 'text-generate'],
    ]) {
      const r = await runBin(args);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    }
  });
});

describe('space and project', () => {
  it("--space NAME is looked up in /v2/spaces with the profile's credentials", async () => {
    const r = await generate('--space', 'examples');
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lookup = t.server.requests.find((q) => q.path === '/v2/spaces');
    expect(lookup?.query.name).toBe('examples');
    expect(lookup?.headers.authorization).toBe('Bearer t');
  });

  it('an unknown name and an ambiguous one are usage errors that say so', async () => {
    const missing = await generate('--space', 'nowhere');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('error: no space named "nowhere"');
    const shared = await generate('--space', 'shared');
    expect(shared.exitCode).toBe(2);
    expect(shared.stderr).toMatch(/error: 2 spaces are named "shared": [0-9a-f-]{36}, [0-9a-f-]{36}/);
    expect(t.server.requests.filter((q) => q.path.includes('/text/'))).toHaveLength(0);
  });

  it.each([
    [['--space-id', SPACE, '--space', 'examples'], '--space-id and --space cannot be used together'],
    [['--space-id', 'short'], '--space-id must be 36 characters long, got 5'],
    [
      ['--cpd-scope', `cpd://x/spaces/${SPACE}`, '--space-id', SPACE],
      '--cpd-scope and --space-id/--space cannot be used together',
    ],
    [['--cpd-scope', 'https://x/spaces/1'], '--cpd-scope must be cpd://PROFILE/spaces/ID or cpd://PROFILE/projects/ID'],
  ])('%j is a usage error (exit 2): %s', async (extra, message) => {
    const r = await generate(...extra);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stdout).toBe('');
  });

  it('--space NAME with --dry-run is refused: the look-up would send a request', async () => {
    const r = await runBin(
      [
        '--profile',
        'local',
        '--dry-run',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
        '--space',
        'examples',
      ],
      { env: t.home.env },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: --space "examples" needs a look-up, and --dry-run sends nothing');
  });
});

describe('--cpd-scope', () => {
  it('cpd://local/spaces/ID runs on the built-in local profile with no --profile', async () => {
    const r = await runBin(
      [
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
        '--parameters-max-new-tokens',
        '2',
        '--cpd-scope',
        `cpd://local/spaces/${SPACE}`,
        '-o',
        'json',
      ],
      { env: t.home.env },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).results[0].generated_token_count).toBe(2);
  });

  it('a profile it names that does not exist is the usual unknown-profile error; another --profile is refused', async () => {
    const other = await runBin(
      [
        '--profile',
        'local',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
        '--cpd-scope',
        `cpd://prod/spaces/${SPACE}`,
      ],
      { env: t.home.env },
    );
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('error: --cpd-scope names profile "prod" but --profile names "local"');
    const unknown = await runBin(
      [
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
        '--cpd-scope',
        `cpd://nosuch/spaces/${SPACE}`,
      ],
      { env: t.home.env },
    );
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('nosuch');
  });
});
