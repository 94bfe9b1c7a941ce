import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0 });
});
afterAll(() => server.close());

let home: ReturnType<typeof makeHome>;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

const userFile = () => join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml');
const cli = (args: string[], env: Record<string, string> = {}) => runBin(args, { env: { ...home.env, ...env } });

describe('profiles', () => {
  it('round trip: add via flags, list, show redacted, use, remove; the file stays 0600', async () => {
    const add = await cli([
      'profiles',
      'add',
      'wx',
      '--provider',
      'watsonx',
      '--url',
      server.url,
      '--auth-type',
      'bearer',
      '--token',
      'lit-secret-1',
    ]);
    expect(add.exitCode).toBe(0);
    expect(add.stderr).toContain('connection test: healthy');
    expect(add.stdout + add.stderr).not.toContain('lit-secret-1');
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
    expect(readFileSync(userFile(), 'utf8')).toContain('token: lit-secret-1');

    const add2 = await cli([
      'profiles',
      'add',
      'oip',
      '--provider',
      'open-inference',
      '--url',
      'http://127.0.0.1:9',
      '--token-env',
      'OIP_TOKEN',
      '--no-check',
    ]);
    expect(add2.exitCode).toBe(0);

    const list = await cli(['profiles', 'list']);
    expect(list.stdout).toMatch(/^\* wx\s+watsonx/m);
    expect(list.stdout).toMatch(/^ {2}oip\s+open-inference/m);
    expect(list.stdout).toMatch(/built-in:\n(.*\n)*\s+local\s+watsonx/);
    const listJson = JSON.parse((await cli(['profiles', 'list', '-o', 'json'])).stdout);
    expect(listJson.default_profile).toBe('wx');
    expect(listJson.profiles.map((p: { name: string }) => p.name)).toEqual(['oip', 'wx']);

    const show = await cli(['profiles', 'show', 'wx', '-o', 'json']);
    expect(JSON.parse(show.stdout)).toMatchObject({
      name: 'wx',
      default: true,
      auth: { type: 'bearer', token: '***' },
    });
    const showEnv = await cli(['profiles', 'show', 'oip']);
    expect(showEnv.stdout).toContain('token_env: OIP_TOKEN');
    expect(showEnv.stdout).not.toContain('lit-secret-1');

    expect((await cli(['profiles', 'use', 'oip'])).exitCode).toBe(0);
    expect(readFileSync(userFile(), 'utf8')).toMatch(/^default_profile: oip$/m);

    const refused = await cli(['profiles', 'remove', 'oip']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const removed = await cli(['profiles', 'remove', 'oip', '--yes']);
    expect(removed.exitCode).toBe(0);
    const after = readFileSync(userFile(), 'utf8');
    expect(after).not.toContain('oip');
    expect(after).not.toContain('default_profile');
    expect(statSync(userFile()).mode & 0o777).toBe(0o600);
  });

  it('keeps comments and other profiles when adding', async () => {
    mkdirSync(join(home.env.XDG_CONFIG_HOME, 'textgen'), { recursive: true });
    writeFileSync(
      userFile(),
      '# my profiles\ndefault_profile: old\nprofiles:\n  old: # keep me\n    provider: open-inference\n    url: http://127.0.0.1:9\n',
    );
    const r = await cli([
      'profiles',
      'add',
      'new',
      '--provider',
      'aleph-alpha',
      '--url',
      'http://127.0.0.1:9',
      '--apikey-env',
      'AA',
      '--no-check',
    ]);
    expect(r.exitCode).toBe(0);
    const text = readFileSync(userFile(), 'utf8');
    expect(text).toContain('# my profiles');
    expect(text).toContain('# keep me');
    expect(text).toMatch(/default_profile: old/);
    expect(text).toMatch(/new:\n\s+provider: aleph-alpha/);
  });

  it.each([
    ['unreachable', ['--url', 'http://127.0.0.1:9', '--token', 't'], {}, 5],
    ['credential variable not set', ['--url', 'http://127.0.0.1:9', '--token-env', 'UNSET_TOKEN_VAR'], {}, 3],
  ])('add with a failing check (%s) saves nothing and exits with the health code', async (_name, flags, env, code) => {
    const r = await cli(['profiles', 'add', 'bad', '--provider', 'open-inference', '--timeout', '2000', ...flags], env);
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toContain('connection test failed');
    expect(r.stderr).toContain('--no-check');
    expect(() => statSync(userFile())).toThrow();
  });

  it.each([
    [['profiles', 'add', 'x', '--provider', 'nope', '--url', 'http://h'], /--provider must be one of/],
    [['profiles', 'add', 'x', '--provider', 'watsonx', '--url', 'ftp://h'], /--url must be an http/],
    [
      ['profiles', 'add', 'x', '--provider', 'watsonx', '--url', 'http://h', '--auth-type', 'cpd', '--apikey-env', 'K'],
      /--username/,
    ],
    [
      ['profiles', 'add', 'x', '--provider', 'watsonx', '--url', 'http://h', '--apikey-env', 'K', '--token', 'T'],
      /cannot be used together/,
    ],
    [
      ['profiles', 'add', 'x', '--provider', 'azure-openai', '--url', 'http://h', '--auth-type', 'iam'],
      /must be one of api-key, bearer, none/,
    ],
    [['profiles', 'show', 'missing'], /unknown profile "missing"/],
    [['profiles', 'use', 'missing'], /unknown profile "missing"/],
    [['profiles', 'remove', 'missing', '--yes'], /no profile "missing"/],
  ])('%j is a usage error', async (args, message) => {
    const r = await cli(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
