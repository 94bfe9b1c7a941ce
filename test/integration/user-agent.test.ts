/**
 * Every request textgen sends names itself, as the vendors' SDKs do: `User-Agent: textgen/<version>
 * (node/<version>; <platform>-<arch>)`, on generation, listings and the token exchanges (IBM Cloud IAM, CPD), and
 * `--verbose` shows it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { userAgent, withUserAgent } from '../../src/http/user-agent.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const KEY = 'ua-test-key-0123456789';
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const EXPECTED = `textgen/${VERSION} (node/${process.versions.node}; ${process.platform}-${process.arch})`;

let server: RunningServer;
const home = makeHome();
beforeAll(async () => {
  server = await startServer({
    requestLog: { max: 1000 },
    requireAuth: true,
    apiKeys: [KEY],
    users: { admin: 'pa55word' },
  });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

const agentsOf = (path: string) => server.requests.filter((r) => r.path === path).map((r) => r.headers['user-agent']);

describe('User-Agent', () => {
  it('has the documented form', () => {
    expect(userAgent()).toBe(EXPECTED);
  });

  it('is added unless the request names its own', () => {
    expect(withUserAgent({ headers: { accept: 'x' } }, 'a/1').headers).toEqual({ accept: 'x', 'user-agent': 'a/1' });
    expect(withUserAgent({ headers: { 'User-Agent': 'mine' } }, 'a/1').headers).toEqual({ 'User-Agent': 'mine' });
  });

  it('goes with OpenAI and Azure requests, and --verbose shows it', async () => {
    const env = { ...home.env };
    const openai = await runInProcess(
      [
        '--provider',
        'openai',
        '--url',
        server.url,
        '--token',
        KEY,
        '-v',
        'complete',
        '-m',
        'gpt-3.5-turbo-instruct',
        '--no-stream',
        'Hi',
      ],
      { env },
    );
    expect(openai.exitCode, openai.stderr).toBe(0);
    expect(openai.stderr).toContain(`> user-agent: ${EXPECTED}`);
    const azure = await runInProcess(['--provider', 'azure-openai', '--url', server.url, '--api-key', KEY, 'models'], {
      env,
    });
    expect(azure.exitCode, azure.stderr).toBe(0);
    expect(agentsOf('/v1/completions')).toEqual([EXPECTED]);
    expect(agentsOf('/openai/deployments')).toEqual([EXPECTED]);
  });

  it('goes with the IBM Cloud IAM token exchange and the call that uses the token', async () => {
    const r = await runInProcess(['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'], {
      env: {
        ...home.env,
        TEXTGEN_PROVIDER: 'watsonx',
        TEXTGEN_URL: server.url,
        TEXTGEN_API_KEY: KEY,
        TEXTGEN_IAM_URL: `${server.url}/identity/token`,
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(agentsOf('/identity/token')).toEqual([EXPECTED]);
    expect(agentsOf('/ml/v1/deployments/demo/text/generation')).toEqual([EXPECTED]);
  });

  it('goes with the Cloud Pak for Data token exchange', async () => {
    const cpd = makeHome();
    try {
      writeFileSync(
        join(cpd.dir, '.textgenrc.yaml'),
        `profiles:\n  cpd:\n    provider: watsonx\n    url: ${server.url}\n    auth: { type: cpd, username: admin, password_env: CPD_SECRET }\n`,
      );
      const r = await runInProcess(
        ['--profile', 'cpd', 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'],
        {
          env: { ...cpd.env, CPD_SECRET: 'pa55word' },
          cwd: cpd.dir,
        },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(agentsOf('/icp4d-api/v1/authorize')).toEqual([EXPECTED]);
    } finally {
      cpd.cleanup();
    }
  });
});
