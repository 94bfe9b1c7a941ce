import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWatsonxAuthenticator } from '../../profiles/watsonx/client/auth.js';
import { bearerAuth } from '../../src/config/secrets.js';
import { createTokenCache } from '../../src/config/token-cache.js';
import type { TokenCache } from '../../src/contract/token-cache.js';
import type { ResolvedAuth, ResolvedProfile } from '../../src/contract/profile.js';
import { AuthError, NetworkError, UsageError } from '../../src/contract/errors.js';
import type { HttpClient, HttpRequestSpec, HttpResponse, SendOptions } from '../../src/contract/http.js';

const IAM_URL = 'http://127.0.0.1:1/identity/token';
const CPD_URL = 'https://cpd.example.com';
const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Records every request and answers from a script; stands in for the real undici client. */
class FakeHttp implements HttpClient {
  readonly requests: Array<{ request: HttpRequestSpec; options: SendOptions | undefined }> = [];
  constructor(private readonly answer: (request: HttpRequestSpec, n: number) => Reply | Error) {}

  async send(request: HttpRequestSpec, options?: SendOptions): Promise<HttpResponse> {
    this.requests.push({ request, options });
    const reply = this.answer(request, this.requests.length);
    if (reply instanceof Error) throw reply;
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    return {
      status: reply.status,
      headers: reply.headers ?? { 'content-type': 'application/json' },
      body: (async function* () {
        yield new TextEncoder().encode(text);
      })(),
      text: async () => text,
      json: async () => JSON.parse(text) as unknown,
    };
  }

  async close(): Promise<void> {}
}

function jwt(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.signature`;
}

/** An IAM endpoint that hands out tok-1, tok-2, … each valid for `lifetimeS` seconds. */
function iamServer(lifetimeS = 3600): FakeHttp {
  return new FakeHttp((_req, n) => ({
    status: 200,
    body: { access_token: `tok-${n}`, refresh_token: 'r', token_type: 'Bearer', expires_in: lifetimeS, expiration: 0 },
  }));
}

function profileWith(auth: ResolvedAuth, url = CPD_URL): ResolvedProfile {
  return {
    name: 'p',
    provider: 'watsonx',
    url,
    auth,
    tls: { insecure: false },
    defaults: {},
    timeoutMs: 300_000,
    retries: 2,
    local: false,
    serverParameters: [],
    settings: {},
    secrets: [],
    source: 'test',
  };
}

const IAM_AUTH: ResolvedAuth = { type: 'iam', apikey: 'my-api-key', iamUrl: IAM_URL };

let root: string;
let cache: TokenCache;
let clock: number;
const now = () => clock;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'textgen-auth-'));
  cache = createTokenCache({ env: { HOME: root, XDG_CACHE_HOME: path.join(root, 'cache') } });
  clock = T0;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function authenticator(auth: ResolvedAuth, http: HttpClient, c: TokenCache = cache) {
  return createWatsonxAuthenticator({ profile: profileWith(auth), http, cache: c, now });
}

describe('IBM Cloud IAM', () => {
  it('exchanges the API key with a form POST and sends the access token as bearer', async () => {
    const http = iamServer();
    const headers = await authenticator(IAM_AUTH, http).headers();
    expect(headers).toEqual({ authorization: 'Bearer tok-1' });
    expect(http.requests).toHaveLength(1);
    const { request, options } = http.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(IAM_URL);
    expect(request.headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      grant_type: 'urn:ibm:params:oauth:grant-type:apikey',
      apikey: 'my-api-key',
      response_type: 'cloud_iam',
    });
    expect(options?.service).toBe('IBM Cloud IAM');
  });

  it('form-encodes a key with reserved characters', async () => {
    const http = iamServer();
    await authenticator({ type: 'iam', apikey: 'a+b&c=d', iamUrl: IAM_URL }, http).headers();
    expect(new URLSearchParams(http.requests[0]!.request.body).get('apikey')).toBe('a+b&c=d');
  });

  it('reuses the token for later requests of the same invocation', async () => {
    const http = iamServer();
    const auth = authenticator(IAM_AUTH, http);
    await auth.headers();
    clock += 10 * 60_000;
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok-1' });
    expect(http.requests).toHaveLength(1);
  });

  it('shares one exchange between concurrent requests', async () => {
    const http = iamServer();
    const auth = authenticator(IAM_AUTH, http);
    const all = await Promise.all([auth.headers(), auth.headers(), auth.headers()]);
    expect(all.map((h) => h.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1']);
    expect(http.requests).toHaveLength(1);
  });

  it('reuses a cached token across two invocations sharing the cache directory', async () => {
    const first = iamServer();
    await authenticator(IAM_AUTH, first).headers();
    const second = iamServer();
    const cacheOfSecondRun = createTokenCache({ env: { HOME: root, XDG_CACHE_HOME: path.join(root, 'cache') } });
    expect(await authenticator(IAM_AUTH, second, cacheOfSecondRun).headers()).toEqual({
      authorization: 'Bearer tok-1',
    });
    expect(second.requests).toHaveLength(0);
  });

  it('does not share a cached token between different API keys or IAM endpoints', async () => {
    await authenticator(IAM_AUTH, iamServer()).headers();
    for (const other of [
      { type: 'iam', apikey: 'other-key', iamUrl: IAM_URL },
      { type: 'iam', apikey: 'my-api-key', iamUrl: 'http://127.0.0.1:2/token' },
    ] as const) {
      const http = iamServer();
      await authenticator(other, http).headers();
      expect(http.requests).toHaveLength(1);
    }
  });

  it('never writes the API key into the cache directory names', async () => {
    await authenticator(IAM_AUTH, iamServer()).headers();
    const names = await readdir(path.join(root, 'cache', 'textgen'));
    expect(names.join()).not.toContain('my-api-key');
  });

  // A 3600 s token: the margin is max(60 s, 360 s) = 360 s.
  it.each([
    ['well before expiry', 3000, 'Bearer tok-1', 1],
    ['just outside the margin', 3600 - 361, 'Bearer tok-1', 1],
    ['inside the 10 % margin', 3600 - 359, 'Bearer tok-2', 2],
    ['after expiry', 3700, 'Bearer tok-2', 2],
  ])('at %s a new invocation %s', async (_when, afterS, expected, exchanges) => {
    const http = iamServer(3600);
    await authenticator(IAM_AUTH, http).headers();
    clock = T0 + afterS * 1000;
    expect((await authenticator(IAM_AUTH, http).headers()).authorization).toBe(expected);
    expect(http.requests).toHaveLength(exchanges);
  });

  // A 300 s token: 10 % is 30 s, so the 60 s floor applies.
  it.each([
    [300 - 61, 'Bearer tok-1'],
    [300 - 59, 'Bearer tok-2'],
  ])('refreshes a short-lived token at least 60 s before expiry (%i s in)', async (afterS, expected) => {
    const http = iamServer(300);
    const auth = authenticator(IAM_AUTH, http);
    await auth.headers();
    clock = T0 + afterS * 1000;
    expect((await auth.headers()).authorization).toBe(expected);
  });

  it('falls back to the expiration timestamp when expires_in is missing', async () => {
    const http = new FakeHttp((_r, n) => ({
      status: 200,
      body: { access_token: `tok-${n}`, expiration: (T0 + 2 * HOUR) / 1000 },
    }));
    const auth = authenticator(IAM_AUTH, http);
    await auth.headers();
    clock = T0 + 2 * HOUR - 30_000;
    expect((await auth.headers()).authorization).toBe('Bearer tok-2');
  });

  it('invalidate drops the cached token so the next request exchanges again', async () => {
    const http = iamServer();
    const auth = authenticator(IAM_AUTH, http);
    await auth.headers();
    expect(await auth.invalidate()).toBe(true);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok-2' });
    // The file is gone too: another invocation would not pick up the rejected token.
    await auth.invalidate();
    const other = iamServer();
    await authenticator(IAM_AUTH, other).headers();
    expect(other.requests).toHaveLength(1);
  });

  it('still works when the cache cannot be written', async () => {
    const broken: TokenCache = {
      get: async () => undefined,
      set: async () => {
        throw new Error('EROFS: read-only file system');
      },
      delete: async () => {
        throw new Error('EROFS: read-only file system');
      },
    };
    const auth = authenticator(IAM_AUTH, iamServer(), broken);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok-1' });
    expect(await auth.invalidate()).toBe(true);
  });
});

describe('Cloud Pak for Data', () => {
  it.each<[string, ResolvedAuth, Record<string, string>]>([
    ['an API key', { type: 'cpd', username: 'admin', apikey: 'cpd-key' }, { username: 'admin', api_key: 'cpd-key' }],
    ['a password', { type: 'cpd', username: 'admin', password: 'pw' }, { username: 'admin', password: 'pw' }],
  ])('authorizes with %s', async (_case, auth, body) => {
    const http = new FakeHttp(() => ({
      status: 200,
      body: { _messageCode_: '200', message: 'Success', token: 'cpd-token' },
    }));
    expect(await authenticator(auth, http).headers()).toEqual({ authorization: 'Bearer cpd-token' });
    const { request, options } = http.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`${CPD_URL}/icp4d-api/v1/authorize`);
    expect(request.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(JSON.parse(request.body!)).toEqual(body);
    expect(options?.service).toBe('Cloud Pak for Data');
  });

  it('reads accessToken from older releases', async () => {
    const http = new FakeHttp(() => ({ status: 200, body: { accessToken: 'old-style' } }));
    expect(await authenticator({ type: 'cpd', username: 'admin', apikey: 'k' }, http).headers()).toEqual({
      authorization: 'Bearer old-style',
    });
  });

  it('takes the expiry from the JWT exp claim', async () => {
    const http = new FakeHttp((_r, n) => ({
      status: 200,
      body: { token: jwt({ sub: 'admin', n, iat: T0 / 1000, exp: (T0 + 2 * HOUR) / 1000 }) },
    }));
    const auth = authenticator({ type: 'cpd', username: 'admin', apikey: 'k' }, http);
    await auth.headers();
    clock = T0 + HOUR;
    await auth.headers();
    expect(http.requests).toHaveLength(1);
    // 12 minutes (10 % of 2 h) before expiry it is refreshed.
    clock = T0 + 2 * HOUR - 11 * 60_000;
    await auth.headers();
    expect(http.requests).toHaveLength(2);
  });

  it('assumes 12 hours for a token that is not a JWT', async () => {
    const http = new FakeHttp((_r, n) => ({ status: 200, body: { token: `opaque-${n}` } }));
    const auth = authenticator({ type: 'cpd', username: 'admin', apikey: 'k' }, http);
    await auth.headers();
    clock = T0 + 10 * HOUR;
    expect((await auth.headers()).authorization).toBe('Bearer opaque-1');
    clock = T0 + 11.5 * HOUR;
    expect((await auth.headers()).authorization).toBe('Bearer opaque-2');
  });

  it('keys the cache by user and secret kind', async () => {
    const http = new FakeHttp((_r, n) => ({ status: 200, body: { token: `t-${n}` } }));
    await authenticator({ type: 'cpd', username: 'admin', apikey: 's' }, http).headers();
    await authenticator({ type: 'cpd', username: 'admin', password: 's' }, http).headers();
    await authenticator({ type: 'cpd', username: 'other', apikey: 's' }, http).headers();
    await authenticator({ type: 'cpd', username: 'admin', apikey: 's' }, http).headers();
    expect(http.requests).toHaveLength(3);
  });
});

describe('static credentials', () => {
  it('sends the Zen API key header: base64 of "username:apikey"', async () => {
    const http = new FakeHttp(() => new Error('no request expected'));
    const auth = authenticator({ type: 'zenapikey', username: 'admin', apikey: 'key123' }, http);
    expect(await auth.headers()).toEqual({ authorization: 'ZenApiKey YWRtaW46a2V5MTIz' });
    expect(await auth.invalidate()).toBe(false);
    expect(http.requests).toHaveLength(0);
  });

  it('sends a bearer token as given', async () => {
    const auth = authenticator({ type: 'bearer', token: 'tok' }, new FakeHttp(() => new Error('none')));
    expect(await auth.headers()).toEqual({ authorization: 'Bearer tok' });
    expect(await auth.invalidate()).toBe(false);
  });

  it('sends nothing for auth none', async () => {
    const auth = authenticator({ type: 'none' }, new FakeHttp(() => new Error('none')));
    expect(await auth.headers()).toEqual({});
    expect(await auth.invalidate()).toBe(false);
  });

  it('refuses an api-key auth, which watsonx does not know', () => {
    expect(() => authenticator({ type: 'api-key', key: 'k' }, new FakeHttp(() => new Error('none')))).toThrow(
      UsageError,
    );
  });
});

describe('dry-run headers', () => {
  it.each<[string, ResolvedAuth, Record<string, string>]>([
    ['iam', IAM_AUTH, { authorization: 'Bearer ${TEXTGEN_TOKEN}' }],
    ['cpd', { type: 'cpd', username: 'admin', password: 'pw' }, { authorization: 'Bearer ${TEXTGEN_TOKEN}' }],
    ['bearer from a known variable', bearerAuth('aa-secret', 'AA_TOKEN'), { authorization: 'Bearer ${AA_TOKEN}' }],
    ['bearer from a flag', { type: 'bearer', token: 'flag-secret' }, { authorization: 'Bearer ${TEXTGEN_TOKEN}' }],
    [
      'zenapikey',
      { type: 'zenapikey', username: 'admin', apikey: 'zen-secret' },
      { authorization: 'ZenApiKey ${TEXTGEN_ZENAPIKEY}' },
    ],
    ['none', { type: 'none' }, {}],
  ])('for %s are placeholders, with no request and no secret', async (_case, auth, expected) => {
    const http = new FakeHttp(() => new Error('no request expected'));
    const headers = authenticator(auth, http).dryRunHeaders();
    expect(headers).toEqual(expected);
    expect(JSON.stringify(headers)).not.toMatch(/secret|my-api-key|pw/);
    expect(http.requests).toHaveLength(0);
  });
});

describe('token exchange failures', () => {
  it('maps an IAM 4xx to an AuthError with the IAM code and message', async () => {
    const http = new FakeHttp(() => ({
      status: 400,
      body: {
        errorCode: 'BXNIM0415E',
        errorMessage: 'Provided API key could not be found.',
        context: { requestId: 'req-9' },
      },
    }));
    const error = await authenticator(IAM_AUTH, http)
      .headers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(3);
    expect((error as AuthError).message).toBe(
      'IBM Cloud IAM rejected the API key: BXNIM0415E Provided API key could not be found. (trace req-9)',
    );
    expect((error as AuthError).status).toBe(400);
    expect((error as AuthError).traceId).toBe('req-9');
  });

  it.each<[string, Reply, string]>([
    [
      'IAM 503 after the retries',
      { status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } },
      'IBM Cloud IAM token exchange failed: HTTP 503 Service Unavailable',
    ],
    [
      'IAM 500 with an empty body',
      { status: 500, body: '' },
      'IBM Cloud IAM token exchange failed: HTTP 500 no details in the reply',
    ],
    [
      'IAM 200 without a token',
      { status: 200, body: { token_type: 'Bearer' } },
      'IBM Cloud IAM token exchange failed: the reply has no access_token',
    ],
    [
      'IAM 200 that is not JSON',
      { status: 200, body: 'plain text' },
      'IBM Cloud IAM token exchange failed: the reply has no access_token',
    ],
    [
      'IAM 200 with a web page',
      { status: 200, body: '<html>' },
      `no token service at ${IAM_URL} (IBM Cloud IAM token exchange: HTTP 200 with a web page)`,
    ],
    [
      'IAM 404',
      { status: 404, body: '{"errors":[{"code":"not_found","message":"Not Found"}]}' },
      `no token service at ${IAM_URL} (IBM Cloud IAM token exchange: HTTP 404)`,
    ],
  ])('%s is an AuthError', async (_case, reply, message) => {
    const error = await authenticator(IAM_AUTH, new FakeHttp(() => reply))
      .headers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toBe(message);
  });

  it.each<[string, ResolvedAuth, Reply, string]>([
    [
      'a wrong password',
      { type: 'cpd', username: 'admin', password: 'pw' },
      { status: 401, body: { _messageCode_: '401', message: 'Invalid user name or password' } },
      'Cloud Pak for Data rejected the password of user "admin": 401 Invalid user name or password',
    ],
    [
      'a wrong API key',
      { type: 'cpd', username: 'admin', apikey: 'cpd-api-key-1' },
      { status: 403, body: { errors: [{ code: 'forbidden', message: 'API key revoked' }] } },
      'Cloud Pak for Data rejected the API key of user "admin": forbidden API key revoked',
    ],
    [
      'a 502',
      { type: 'cpd', username: 'admin', apikey: 'k' },
      { status: 502, body: 'Bad Gateway' },
      'Cloud Pak for Data token exchange failed: HTTP 502 Bad Gateway',
    ],
    [
      'a reply with no token',
      { type: 'cpd', username: 'admin', apikey: 'k' },
      { status: 200, body: { message: 'ok' } },
      'Cloud Pak for Data token exchange failed: the reply has neither token nor accessToken',
    ],
  ])('CPD with %s is an AuthError', async (_case, auth, reply, message) => {
    const error = await authenticator(auth, new FakeHttp(() => reply))
      .headers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toBe(message);
  });

  it('never repeats the secret when the service echoes it', async () => {
    const http = new FakeHttp(() => ({
      status: 400,
      body: { errorCode: 'BXNIM0415E', errorMessage: 'Key my-api-key is unknown' },
    }));
    const error = (await authenticator(IAM_AUTH, http)
      .headers()
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('IBM Cloud IAM rejected the API key: BXNIM0415E Key *** is unknown');
  });

  it('lets a connection failure stay a NetworkError', async () => {
    const http = new FakeHttp(() => new NetworkError('cannot connect to 127.0.0.1:1: connection refused'));
    const error = await authenticator(IAM_AUTH, http)
      .headers()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
  });

  it('does not cache a failure: the next call tries again', async () => {
    const http = new FakeHttp((_r, n) =>
      n === 1 ? { status: 503, body: 'busy' } : { status: 200, body: { access_token: 'late', expires_in: 3600 } },
    );
    const auth = authenticator(IAM_AUTH, http);
    await expect(auth.headers()).rejects.toBeInstanceOf(AuthError);
    expect(await auth.headers()).toEqual({ authorization: 'Bearer late' });
  });

  it('asks the client for at most one retry of an exchange', async () => {
    const http = iamServer();
    await authenticator(IAM_AUTH, http).headers();
    expect(http.requests[0]!.options?.retries).toBe(1);
  });
});
