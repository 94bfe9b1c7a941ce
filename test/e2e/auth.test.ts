import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { expectValidWatsonxWire, generationRequests } from '../helpers/wire.js';

const KEY = 'test-apikey-0123456789';
let server: RunningServer;
let home: ReturnType<typeof makeHome>;

beforeEach(async () => {
  server = await startServer({
    requestLog: { max: 1000 },
    requireAuth: true,
    apiKeys: [KEY],
    users: { admin: 'pa55word' },
  });
  home = makeHome();
});
afterEach(async () => {
  expectValidWatsonxWire(server.requests);
  await server.close();
  home.cleanup();
});

const count = (path: string) => server.requests.filter((r) => r.path === path).length;
const generate = (extraEnv: Record<string, string> = {}, args: string[] = []) =>
  runBin([...args, 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'], {
    env: { ...home.env, ...extraEnv },
    cwd: home.dir,
  });

function writeConfig(yaml: string): void {
  writeFileSync(join(home.dir, '.textgenrc.yaml'), yaml);
}

describe('IBM Cloud IAM', () => {
  const iamEnv = () => ({
    TEXTGEN_URL: server.url,
    TEXTGEN_API_KEY: KEY,
    TEXTGEN_IAM_URL: `${server.url}/identity/token`,
  });

  it('exchanges the API key once and reuses the cached token in the next invocation', async () => {
    const first = await generate(iamEnv());
    expect(first.stderr).not.toMatch(/error/);
    expect(first.exitCode).toBe(0);
    const second = await generate(iamEnv());
    expect(second.exitCode).toBe(0);
    expect(count('/identity/token')).toBe(1);
    expect(generationRequests(server.requests)).toHaveLength(2);
    for (const r of generationRequests(server.requests)) expect(r.headers.authorization).toMatch(/^Bearer \S+$/);
    const dir = join(home.dir, 'cache', 'textgen');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, files[0] as string)).mode & 0o777).toBe(0o600);
  });

  it('an expired token is refreshed once on 401 and the call succeeds', async () => {
    expect((await generate(iamEnv())).exitCode).toBe(0);
    server.expireTokens();
    const r = await generate(iamEnv());
    expect(r.exitCode).toBe(0);
    expect(count('/identity/token')).toBe(2);
    const statuses = generationRequests(server.requests).length;
    expect(statuses).toBe(3); // ok, 401 expired, ok after refresh
  });

  it('a token close to expiry is renewed before use', async () => {
    await server.close();
    server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY], tokenTtlSeconds: 30 });
    expect((await generate(iamEnv())).exitCode).toBe(0);
    expect((await generate(iamEnv())).exitCode).toBe(0);
    // 30 s tokens are inside the 60 s refresh margin: each run exchanges, none gets a 401.
    expect(count('/identity/token')).toBe(2);
    expect(generationRequests(server.requests)).toHaveLength(2);
  });

  it("a wrong API key → exit 3 with IAM's code and message, and no generation request", async () => {
    const r = await generate({ ...iamEnv(), TEXTGEN_API_KEY: 'wrong-key-xyz' });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/BXNIM0415E/);
    expect(r.stderr).not.toContain('wrong-key-xyz');
    expect(generationRequests(server.requests)).toHaveLength(0);
  });

  it('an IAM profile in a config file works the same way', async () => {
    writeConfig(
      `default_profile: wx\nprofiles:\n  wx:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: iam, apikey_env: MY_WX_KEY, iam_url: ${server.url}/identity/token }\n`,
    );
    const r = await generate({ MY_WX_KEY: KEY });
    expect(r.exitCode).toBe(0);
    expect(count('/identity/token')).toBe(1);
  });
});

describe('Cloud Pak for Data', () => {
  it.each([
    ['username + api key', 'apikey_env: CPD_SECRET', KEY],
    ['username + password', 'password_env: CPD_SECRET', 'pa55word'],
  ])('authorizes with %s and reuses the token', async (_name, field, secret) => {
    writeConfig(
      `profiles:\n  cpd:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: cpd, username: admin, ${field} }\n`,
    );
    expect((await generate({ CPD_SECRET: secret }, ['--profile', 'cpd'])).exitCode).toBe(0);
    expect((await generate({ CPD_SECRET: secret }, ['--profile', 'cpd'])).exitCode).toBe(0);
    expect(count('/icp4d-api/v1/authorize')).toBe(1);
  });

  it('a wrong password → exit 3', async () => {
    writeConfig(
      `profiles:\n  cpd:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: cpd, username: admin, password_env: CPD_SECRET }\n`,
    );
    const r = await generate({ CPD_SECRET: 'nope' }, ['--profile', 'cpd']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).not.toContain('nope');
  });

  it('ZenApiKey needs no exchange', async () => {
    writeConfig(
      `profiles:\n  zen:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: zenapikey, username: admin, apikey_env: ZEN_KEY }\n`,
    );
    const r = await generate({ ZEN_KEY: KEY }, ['--profile', 'zen']);
    expect(r.exitCode).toBe(0);
    expect(generationRequests(server.requests)[0]?.headers.authorization).toBe(
      `ZenApiKey ${Buffer.from(`admin:${KEY}`).toString('base64')}`,
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe('bearer tokens and failures', () => {
  it('a rejected bearer token → exit 3, one request (a static token is not retried)', async () => {
    const r = await generate({ TEXTGEN_URL: server.url, TEXTGEN_TOKEN: 'not-a-real-token' });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/^error: watsonx returned HTTP 401 authorization_rejected/m);
    expect(r.stderr).toMatch(/trace [0-9a-f]+/);
    expect(server.requests).toHaveLength(1);
  });

  it('no credentials at all against a server that needs them → exit 3', async () => {
    const r = await generate({ TEXTGEN_URL: server.url });
    expect(r.exitCode).toBe(3);
  });

  it('a profile naming an unset variable → exit 3 naming the variable, nothing sent', async () => {
    writeConfig(
      `profiles:\n  wx:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: iam, apikey_env: UNSET_VAR_FOR_TEST }\n`,
    );
    const r = await generate({}, ['--profile', 'wx']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/UNSET_VAR_FOR_TEST/);
    expect(server.requests).toHaveLength(0);
  });

  it('a bad config file is a usage error naming the file and the field', async () => {
    writeConfig(`profiles:\n  wx:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: magic }\n`);
    const r = await generate({}, ['--profile', 'wx']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\.textgenrc\.yaml.*profiles\.wx\.auth/);
  });
});
