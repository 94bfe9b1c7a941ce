import { afterEach, describe, expect, test } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/emulator/core/index.js';
import { TokenStore } from '../../src/emulator/core/token-store.js';
import {
  cpdAuthorizeResponseSchema,
  cpdErrorSchema,
  iamErrorSchema,
  iamTokenResponseSchema,
  watsonxErrorSchema,
  watsonxTextGenResponseSchema,
} from '../contract/watsonx-schemas.js';

const GENERATE = '/ml/v1/deployments/demo/text/generation?version=2024-05-01';
const APIKEY_GRANT = 'urn:ibm:params:oauth:grant-type:apikey';

let server: RunningServer;
afterEach(async () => {
  await server.close();
});

async function start(options: ServerOptions = {}): Promise<void> {
  server = await startServer(options);
}

function iam(form: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/identity/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
}

function cpd(body: unknown): Promise<Response> {
  return fetch(`${server.url}/icp4d-api/v1/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function generate(authorization?: string): Promise<Response> {
  return fetch(server.url + GENERATE, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ input: 'Hi', parameters: { max_new_tokens: 2 } }),
  });
}

async function iamToken(apikey = 'local-apikey'): Promise<string> {
  return iamTokenResponseSchema.parse(await (await iam({ grant_type: APIKEY_GRANT, apikey })).json()).access_token;
}

async function cpdToken(): Promise<string> {
  return cpdAuthorizeResponseSchema.parse(await (await cpd({ username: 'admin', password: 'password' })).json()).token!;
}

const zen = (user: string, key: string) => `ZenApiKey ${Buffer.from(`${user}:${key}`).toString('base64')}`;

function jwtPayload(token: string): { exp: number; iat: number } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number; iat: number };
}

async function expectWatsonx401(res: Response, code: string): Promise<void> {
  expect(res.status).toBe(401);
  expect(watsonxErrorSchema.parse(await res.json()).errors[0]!.code).toBe(code);
}

describe('IAM token endpoint', () => {
  test('an accepted API key gets a JWT-shaped bearer token with its lifetime', async () => {
    await start({ tokenTtlSeconds: 600 });
    const before = Math.floor(Date.now() / 1000);
    const res = await iam({ grant_type: APIKEY_GRANT, apikey: 'local-apikey' });
    expect(res.status).toBe(200);
    const body = iamTokenResponseSchema.parse(await res.json());
    expect(body.expires_in).toBe(600);
    expect(body.expiration).toBeGreaterThanOrEqual(before + 600);
    expect(jwtPayload(body.access_token).exp).toBe(body.expiration);
  });

  test.each<[string, Record<string, string>, string]>([
    ['a wrong API key', { grant_type: APIKEY_GRANT, apikey: 'nope' }, 'BXNIM0415E'],
    ['no API key', { grant_type: APIKEY_GRANT }, 'BXNIM0109E'],
    ['no grant type', { apikey: 'local-apikey' }, 'BXNIM0109E'],
    ['another grant type', { grant_type: 'password', apikey: 'local-apikey' }, 'BXNIM0104E'],
  ])('%s → 400 in the IAM error shape', async (_, form, code) => {
    await start();
    const res = await iam(form);
    expect(res.status).toBe(400);
    const body = iamErrorSchema.parse(await res.json());
    expect(body.errorCode).toBe(code);
    if (code === 'BXNIM0415E') expect(body.errorMessage).toBe('Provided API key could not be found.');
  });

  test('the accepted keys are configurable', async () => {
    await start({ apiKeys: ['k1', 'k2'] });
    expect((await iam({ grant_type: APIKEY_GRANT, apikey: 'k2' })).status).toBe(200);
    expect((await iam({ grant_type: APIKEY_GRANT, apikey: 'local-apikey' })).status).toBe(400);
  });
});

describe('CPD authorize endpoint', () => {
  test.each([
    ['username and api_key', { username: 'anyone', api_key: 'local-apikey' }],
    ['username and password', { username: 'admin', password: 'password' }],
  ])('%s → 200 with a token', async (_, body) => {
    await start();
    const res = await cpd(body);
    expect(res.status).toBe(200);
    const reply = cpdAuthorizeResponseSchema.parse(await res.json());
    expect(reply).toMatchObject({ _messageCode_: '200', message: 'Success' });
    expect(jwtPayload(reply.token!).exp).toBeGreaterThan(Date.now() / 1000);
  });

  test.each<[string, unknown, number]>([
    ['a wrong password', { username: 'admin', password: 'wrong' }, 401],
    ['an unknown user', { username: 'ghost', password: 'password' }, 401],
    ['a wrong api key', { username: 'admin', api_key: 'wrong' }, 401],
    ['both api_key and password', { username: 'admin', password: 'password', api_key: 'local-apikey' }, 400],
    ['neither api_key nor password', { username: 'admin' }, 400],
    ['no username', { password: 'password' }, 400],
    ['a body that is not JSON', 'username=admin', 400],
  ])('%s → %i in the CPD error shape', async (_, body, status) => {
    await start();
    const res = await cpd(body);
    expect(res.status).toBe(status);
    cpdErrorSchema.parse(await res.json());
  });

  test('users are configurable', async () => {
    await start({ users: { alice: 's3cret' } });
    expect((await cpd({ username: 'alice', password: 's3cret' })).status).toBe(200);
    expect((await cpd({ username: 'admin', password: 'password' })).status).toBe(401);
  });
});

describe('generation with requireAuth', () => {
  test('no credentials → 401 authorization_rejected', async () => {
    await start({ requireAuth: true });
    await expectWatsonx401(await generate(), 'authorization_rejected');
  });

  test.each([
    ['a token this server never issued', 'Bearer abc.def.ghi'],
    ['a token that is not a JWT', 'Bearer plain'],
    ['a ZenApiKey with an unknown key', zen('admin', 'wrong')],
    ['a ZenApiKey without a user', zen('', 'local-apikey')],
    ['Basic auth', `Basic ${Buffer.from('admin:password').toString('base64')}`],
  ])('%s → 401 authorization_rejected', async (_, authorization) => {
    await start({ requireAuth: true });
    await expectWatsonx401(await generate(authorization), 'authorization_rejected');
  });

  test.each([
    ['an IAM token', async () => `Bearer ${await iamToken()}`],
    ['a CPD token', async () => `Bearer ${await cpdToken()}`],
    ['a ZenApiKey', async () => zen('admin', 'local-apikey')],
  ])('%s is accepted', async (_, authorization) => {
    await start({ requireAuth: true });
    const res = await generate(await authorization());
    expect(res.status).toBe(200);
    watsonxTextGenResponseSchema.parse(await res.json());
  });

  test('expireTokens() expires every issued token; a fresh one works again', async () => {
    await start({ requireAuth: true });
    const iamOld = await iamToken();
    const cpdOld = await cpdToken();
    server.expireTokens();
    await expectWatsonx401(await generate(`Bearer ${iamOld}`), 'authentication_token_expired');
    await expectWatsonx401(await generate(`Bearer ${cpdOld}`), 'authentication_token_expired');
    expect((await generate(`Bearer ${await iamToken()}`)).status).toBe(200);
    expect((await generate(zen('admin', 'local-apikey'))).status).toBe(200);
  });
});

describe('generation without requireAuth', () => {
  test.each([
    ['no credentials', undefined],
    ['a foreign bearer token', 'Bearer some-static-token'],
    ['a ZenApiKey with an unknown key', zen('admin', 'wrong')],
  ])('%s is served', async (_, authorization) => {
    await start();
    expect((await generate(authorization)).status).toBe(200);
  });

  test('an expired token this server issued still gets 401, so clients can practise refreshing', async () => {
    await start();
    const token = await iamToken();
    server.expireTokens();
    await expectWatsonx401(await generate(`Bearer ${token}`), 'authentication_token_expired');
  });
});

describe('token store', () => {
  test('a token is valid until its lifetime is over', () => {
    let now = 1_000_000;
    const store = new TokenStore(60, () => now);
    const { token, expiration } = store.issue('me', 'test');
    expect(expiration).toBe(1000 + 60);
    expect(store.check(token)).toBe('valid');
    now += 59_000;
    expect(store.check(token)).toBe('valid');
    now += 1_000;
    expect(store.check(token)).toBe('expired');
  });

  test('a tampered token is unknown', () => {
    const store = new TokenStore(60);
    const { token } = store.issue('me', 'test');
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ exp: 9_999_999_999, jti: '1' })).toString('base64url')}.${s}`;
    expect(store.check(forged)).toBe('unknown');
    expect(new TokenStore(60).check(token)).toBe('unknown');
  });

  test('expireAll() spares tokens issued afterwards', () => {
    const store = new TokenStore(60);
    const before = store.issue('a', 'test').token;
    store.expireAll();
    const after = store.issue('b', 'test').token;
    expect([store.check(before), store.check(after)]).toEqual(['expired', 'valid']);
  });
});
