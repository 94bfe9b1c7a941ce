/**
 * What IBM's watsonx.ai SDK sends and what `textgen` sends for the same logical call, captured on a local socket
 * (`textgen serve` on 127.0.0.1 records every request: method, path, query, headers, body), must agree — apart from
 * the short list of deliberate differences below, each with its reason (docs/watsonx.md says the same).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import {
  CloudPakForDataAuthenticator,
  IamAuthenticator,
  type NoAuthAuthenticator,
} from '@ibm-cloud/watsonx-ai/authentication';
import { startServer, type RecordedRequest, type RunningServer } from '../../src/emulator/core/index.js';
import { WATSONX_DEFAULT_API_VERSION } from '../../profiles/watsonx/client/request.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const KEY = 'request-diff-apikey-01';
const SPACE = 'diff-space';
const MODEL = 'ibm/granite-4-h-small';
const EMBED_MODEL = 'ibm/slate-125m-english-rtrvr-v2';
/** What the SDK sends as `version=` when not told otherwise (its VERSION_DATE, the day of its release). */
const SDK_VERSION_DATE = '2026-08-05';

/**
 * The deliberate differences. Anything else that differs fails the test.
 * - headers the HTTP stacks set for themselves: connection handling, compression, length (the bodies are compared),
 *   and the host (each side has its own server);
 * - `user-agent`: each client names itself (textgen/<version> … vs ibm-cloud-watsonx-ai/<version> …);
 * - `accept` of the token exchanges: the SDK's HTTP library (axios) asks for `application/json, text/plain, *\/*`,
 *   textgen for the JSON the token endpoints answer;
 * - the `version=` date: textgen pins the date its wire mapping was written and tested against (2024-05-01), the
 *   SDK sends its own release day; both are overridable (textgen: `--api-version`, profile `api_version`);
 * - JSON key order in bodies, and form field order: neither protocol gives order a meaning.
 */
const TRANSPORT_HEADERS = new Set(['connection', 'accept-encoding', 'content-length', 'host', 'user-agent']);
const TOKEN_EXCHANGE_PATHS = new Set(['/identity/token', '/icp4d-api/v1/authorize']);

interface Wire {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** One recorded request, reduced to what the two clients must agree on. */
function wire(r: RecordedRequest): Wire {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(r.headers)) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    if (name === 'accept' && TOKEN_EXCHANGE_PATHS.has(r.path)) continue;
    // Tokens differ on every exchange; the scheme is what the clients must agree on.
    headers[name] = name === 'authorization' ? value.replace(/^(\w+) .*/, '$1 <token>') : value;
  }
  const { version: _version, ...query } = r.query;
  let body: unknown = r.body;
  if (r.headers['content-type']?.startsWith('application/json')) body = JSON.parse(r.body);
  else if (r.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
    body = Object.fromEntries(new URLSearchParams(r.body));
  return { method: r.method, path: r.path, query, headers, body };
}

let sdkServer: RunningServer;
let cliServer: RunningServer;
const home = makeHome();

beforeAll(async () => {
  [sdkServer, cliServer] = await Promise.all([
    startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY], users: { admin: 'diff-password' } }),
    startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY], users: { admin: 'diff-password' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([sdkServer.close(), cliServer.close()]);
  home.cleanup();
});
beforeEach(() => {
  sdkServer.requests.length = 0;
  cliServer.requests.length = 0;
});

function sdk(
  authenticator: IamAuthenticator | CloudPakForDataAuthenticator | NoAuthAuthenticator = new IamAuthenticator({
    apikey: KEY,
    url: sdkServer.url,
  }),
): WatsonXAI {
  return WatsonXAI.newInstance({ serviceUrl: sdkServer.url, spaceId: SPACE, authenticator });
}

/** textgen as an IAM user of the capture server, with a cache of its own so every run exchanges its key. */
async function textgen(args: string[], opts: { input?: string; env?: Record<string, string>; cacheDir?: string } = {}) {
  const r = await runInProcess(['--provider', 'watsonx', '--url', cliServer.url, ...args], {
    env: {
      ...home.env,
      XDG_CACHE_HOME: join(home.dir, opts.cacheDir ?? `cache-${Math.random().toString(36).slice(2)}`),
      TEXTGEN_API_KEY: KEY,
      TEXTGEN_IAM_URL: `${cliServer.url}/identity/token`,
      TEXTGEN_SPACE_ID: SPACE,
      ...opts.env,
    },
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    cwd: home.dir,
  });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return r;
}

/** The recorded requests of both sides, token exchanges and operation alike, in order. */
function both(): { sdk: Wire[]; textgen: Wire[] } {
  return { sdk: sdkServer.requests.map(wire), textgen: cliServer.requests.map(wire) };
}

describe("the same call, the same request: textgen against IBM's SDK", () => {
  it('the version dates differ only as documented', async () => {
    await sdk().tokenizeText({ modelId: MODEL, input: 'Hi' });
    await textgen(['tokenize', '-m', MODEL, 'Hi']);
    const [sdkCall] = sdkServer.requests.filter((r) => r.path.startsWith('/ml/'));
    const [cliCall] = cliServer.requests.filter((r) => r.path.startsWith('/ml/'));
    expect(sdkCall!.query.version).toBe(SDK_VERSION_DATE);
    expect(cliCall!.query.version).toBe(WATSONX_DEFAULT_API_VERSION);
    await textgen(['tokenize', '-m', MODEL, 'Hi', '--api-version', SDK_VERSION_DATE]);
    expect(cliServer.requests.filter((r) => r.path.startsWith('/ml/')).at(-1)!.query.version).toBe(SDK_VERSION_DATE);
  });

  it('user-agent: each client names itself (textgen sends none until its User-Agent lands; then textgen/<version>)', async () => {
    await sdk().tokenizeText({ modelId: MODEL, input: 'Hi' });
    await textgen(['tokenize', '-m', MODEL, 'Hi']);
    for (const r of sdkServer.requests) {
      expect(r.headers['user-agent']).toMatch(
        r.path.startsWith('/ml/') ? /^ibm-cloud-watsonx-ai\/1\.7\.16 / : /^ibm-node-sdk-core\/iam-authenticator-/,
      );
    }
    for (const r of cliServer.requests) expect(r.headers['user-agent'] ?? 'textgen/').toMatch(/^textgen\//);
  });

  it('generate (foundation model), with the IAM token exchange before it', async () => {
    await sdk().generateText({
      input: 'Hello there',
      modelId: MODEL,
      parameters: { decoding_method: 'greedy', max_new_tokens: 5, stop_sequences: ['.'] },
    });
    await textgen([
      'complete',
      '-m',
      MODEL,
      '--greedy',
      '--max-tokens',
      '5',
      '--stop',
      '.',
      '--no-stream',
      'Hello there',
    ]);
    const { sdk: s, textgen: t } = both();
    expect(t).toEqual(s);
    expect(t.map((w) => w.path)).toEqual(['/identity/token', '/ml/v1/text/generation']);
  });

  it('generate, streamed', async () => {
    const stream = await sdk().generateTextStream({
      input: 'Hello there',
      modelId: MODEL,
      parameters: { max_new_tokens: 5, random_seed: 7 },
    });
    for await (const _ of stream) void _;
    await textgen(['complete', '-m', MODEL, '--max-tokens', '5', '--seed', '7', '--stream', 'Hello there']);
    const { sdk: s, textgen: t } = both();
    expect(t).toEqual(s);
    expect(t.at(-1)).toMatchObject({ path: '/ml/v1/text/generation_stream', headers: { accept: 'text/event-stream' } });
  });

  it.each([[false], [true]])('deployment generate (stream %s)', async (stream) => {
    const parameters = { max_new_tokens: 5, temperature: 0.5 };
    if (stream)
      for await (const _ of await sdk().deploymentGenerateTextStream({
        idOrName: 'demo',
        input: 'Hello there',
        parameters,
      }))
        void _;
    else await sdk().deploymentGenerateText({ idOrName: 'demo', input: 'Hello there', parameters });
    await textgen([
      'deployment',
      stream ? 'text-generate-stream' : 'text-generate',
      '--id-or-name',
      'demo',
      '--input',
      'Hello there',
      '--parameters-max-new-tokens',
      '5',
      '--parameters-temperature',
      '0.5',
    ]);
    const { sdk: s, textgen: t } = both();
    expect(t).toEqual(s);
    expect(t.at(-1)!.path).toBe(`/ml/v1/deployments/demo/text/${stream ? 'generation_stream' : 'generation'}`);
  });

  it('tokenize', async () => {
    await sdk().tokenizeText({ modelId: MODEL, input: 'Hello world', parameters: { return_tokens: true } });
    await textgen(['tokenize', '-m', MODEL, '--tokens', 'Hello world']);
    const { sdk: s, textgen: t } = both();
    expect(t).toEqual(s);
  });

  it('embeddings', async () => {
    await sdk().embedText({
      modelId: EMBED_MODEL,
      inputs: ['a river', 'a lake'],
      parameters: { truncate_input_tokens: 64 },
    });
    await textgen(['embed', '-m', EMBED_MODEL, '--truncate-input-tokens', '64', '--input-file', '-'], {
      input: 'a river\na lake\n',
    });
    const { sdk: s, textgen: t } = both();
    expect(t).toEqual(s);
  });

  it.each([
    ['password', 'password_env: DIFF_SECRET', { password: 'diff-password' }, 'diff-password'],
    ['API key', 'apikey_env: DIFF_SECRET', { apikey: KEY }, KEY],
  ])(
    'the Cloud Pak for Data token exchange (%s), and the call it authorises',
    async (_what, field, credential, secret) => {
      await sdk(
        new CloudPakForDataAuthenticator({ username: 'admin', url: `${sdkServer.url}/icp4d-api`, ...credential }),
      ).tokenizeText({ modelId: MODEL, input: 'Hi' });
      writeFileSync(
        join(home.dir, '.textgenrc.yaml'),
        `profiles:\n  cpd:\n    provider: watsonx\n    url: ${cliServer.url}\n    space_id: ${SPACE}\n    auth: { type: cpd, username: admin, ${field} }\n`,
      );
      const r = await runInProcess(['--profile', 'cpd', 'tokenize', '-m', MODEL, 'Hi'], {
        env: { ...home.env, XDG_CACHE_HOME: join(home.dir, `cache-cpd-${secret.length}`), DIFF_SECRET: secret },
        cwd: home.dir,
      });
      expect(r.exitCode).toBe(0);
      const { sdk: s, textgen: t } = both();
      expect(t).toEqual(s);
      expect(t.map((w) => w.path)).toEqual(['/icp4d-api/v1/authorize', '/ml/v1/text/tokenization']);
    },
  );
});
