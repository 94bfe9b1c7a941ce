/**
 * What `profiles add` saves: never a secret that breaks every later use (a newline), never a literal secret in a
 * project file (the loader refuses one there), and for an OpenAI-compatible server the header it takes
 * (`Authorization: Bearer`), which `serve`'s /v1 routes demand as OpenAI does; a failed check is an `error:`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, requireAuth: true });
});
afterAll(() => server.close());

let home: ReturnType<typeof makeHome>;
let proj: string;
beforeEach(() => {
  home = makeHome();
  proj = mkdtempSync(join(tmpdir(), 'textgen-proj-'));
});
afterEach(() => {
  home.cleanup();
  rmSync(proj, { recursive: true, force: true });
});

const userFile = () => join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml');
const cli = (args: string[], env: Record<string, string> = {}) =>
  runBin(args, { cwd: proj, env: { ...home.env, ...env } });

describe('profiles add refuses what it must not save', () => {
  it.each([
    ['--token', 'line-one\nline-two'],
    ['--api-key', 'key\r'],
    ['--token', 'tab\there'],
    ['--api-key', 'esc\u001b[2J'],
  ])('%s with a control character: exit 2, nothing saved', async (flag, value) => {
    const r = await cli(['profiles', 'add', 'p', '--provider', 'openai', '--url', `${server.url}/v1`, flag, value]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: ${flag} must not contain a newline or other control character$`, 'm'));
    expect(r.stderr).not.toContain(value);
    expect(existsSync(userFile())).toBe(false);
  });

  it.each([
    ['.textgenrc.yaml', '--token'],
    ['.textgenrc.json', '--api-key'],
    ['.textgenrc', '--token'],
  ])('a literal secret into a project file (%s, %s) is refused by the rule the loader uses', async (name, flag) => {
    const r = await cli([
      'profiles',
      'add',
      'p',
      '--config',
      name,
      '--provider',
      'openai',
      '--url',
      `${server.url}/v1`,
      flag,
      'sk-literal',
      '--no-check',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --(token|api-key) would write a literal secret into .*, a project config file/m);
    expect(r.stderr).toMatch(/^hint: give --(token|apikey)-env VAR instead/m);
    expect(existsSync(join(proj, name))).toBe(false);
  });

  it('a variable name into a project file is fine, and an ordinary --config file may hold a literal', async () => {
    const project = await cli([
      ...['profiles', 'add', 'p', '--config', '.textgenrc.yaml', '--provider', 'openai'],
      ...['--url', `${server.url}/v1`, '--token-env', 'P_TOKEN', '--no-check'],
    ]);
    expect(project.exitCode, project.stderr).toBe(0);
    expect(readFileSync(join(proj, '.textgenrc.yaml'), 'utf8')).toContain('token_env: P_TOKEN');
    const mine = await cli([
      ...['profiles', 'add', 'p', '--config', 'ci-profiles.yaml', '--provider', 'openai'],
      ...['--url', `${server.url}/v1`, '--token', 'local-apikey'],
    ]);
    expect(mine.exitCode, mine.stderr).toBe(0);
    expect(statSync(join(proj, 'ci-profiles.yaml')).mode & 0o777).toBe(0o600);
  });
});

describe("an OpenAI-compatible profile sends the provider's own header", () => {
  it.each([
    ['--api-key', ['--api-key', 'local-apikey'], {}],
    ['--apikey-env', ['--apikey-env', 'OPENAI_KEY'], { OPENAI_KEY: 'local-apikey' }],
  ])(
    'profiles add --provider openai %s saves bearer auth, and the check against /v1 passes',
    async (_n, flags, env) => {
      const r = await cli(['profiles', 'add', 'o', '--provider', 'openai', '--url', `${server.url}/v1`, ...flags], env);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('connection test: healthy');
      const text = readFileSync(userFile(), 'utf8');
      expect(text).toMatch(/type: bearer/);
      expect(text).not.toMatch(/type: api-key/);
      const used = await cli(
        ['--profile', 'o', 'complete', '-m', 'gpt-3.5-turbo-instruct', '--max-tokens', '2', 'Hi'],
        env,
      );
      expect(used.exitCode, used.stderr).toBe(0);
    },
  );

  it("serve's /v1 routes refuse Azure's api-key header (as OpenAI does); the Azure routes keep taking it", async () => {
    const body = JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Hi', max_tokens: 2 });
    const headers = { 'content-type': 'application/json', 'api-key': 'local-apikey' };
    const openai = await fetch(`${server.url}/v1/completions`, { method: 'POST', headers, body });
    expect(openai.status).toBe(401);
    expect(((await openai.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    const models = await fetch(`${server.url}/v1/models`, { headers });
    expect(models.status).toBe(401);
    const bearer = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer local-apikey' },
      body,
    });
    expect(bearer.status).toBe(200);
    const azure = await fetch(
      `${server.url}/openai/deployments/gpt-35-turbo-instruct/completions?api-version=2024-10-21`,
      { method: 'POST', headers, body: JSON.stringify({ prompt: 'Hi', max_tokens: 2 }) },
    );
    expect(azure.status).toBe(200);
  });

  it('an Azure profile added with --api-key still sends api-key and passes', async () => {
    const r = await cli([
      ...['profiles', 'add', 'az', '--provider', 'azure-openai', '--url', server.url],
      ...['--api-key', 'local-apikey', '--api-version', '2024-10-21'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(userFile(), 'utf8')).toMatch(/type: api-key/);
  });
});

describe('a failed connection test', () => {
  it('is an error: line (not a warning) with its exit code, then the hint', async () => {
    const r = await cli([
      'profiles',
      'add',
      'o',
      '--provider',
      'openai',
      '--url',
      `${server.url}/v1`,
      '--token',
      'wrong',
    ]);
    expect(r.exitCode).toBe(3);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^error: connection test failed: /);
    expect(lines[1]).toMatch(
      /^hint: check the profile's credentials .*; nothing was saved: fix the profile, or pass --no-check/,
    );
    expect(lines).toHaveLength(2);
    expect(r.stderr).not.toContain('warning:');
    expect(existsSync(userFile())).toBe(false);
  });
});
