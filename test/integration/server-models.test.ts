import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOUNDATION_MODEL_SPECS } from '../../profiles/watsonx/server/model-catalog.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';

/** The listing routes of the embedded server, spoken to directly. */
let open: RunningServer;
let guarded: RunningServer;
const KEY = 'server-models-key-01';

beforeAll(async () => {
  [open, guarded] = await Promise.all([startServer(), startServer({ requireAuth: true, apiKeys: [KEY] })]);
});
afterAll(async () => {
  await Promise.all([open.close(), guarded.close()]);
});

interface Answer {
  status: number;
  headers: Headers;
  // any: JSON answers of several shapes, read field by field in the tests.
  body: any;
}

async function call(base: RunningServer, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${base.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const V = 'version=2024-05-01';

describe('watsonx foundation_model_specs', () => {
  it('answers every spec on one page by default (limit 100), sorted by model_id, with a first link and no next', async () => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}`);
    expect(a.status).toBe(200);
    expect(Object.keys(a.body)).toEqual(['total_count', 'limit', 'first', 'resources']);
    expect(a.body.total_count).toBe(12);
    expect(a.body.limit).toBe(100);
    const ids = a.body.resources.map((r: { model_id: string }) => r.model_id);
    expect(ids).toEqual([...ids].sort());
    expect(a.body.first.href).toBe(`${open.url}/ml/v1/foundation_model_specs?version=2024-05-01&start=0&limit=100`);
  });

  it('pages with start and limit; next links carry the other query parameters and walk the whole list', async () => {
    const seen: string[] = [];
    let href: string | undefined = `${open.url}/ml/v1/foundation_model_specs?${V}&limit=5&filters=function_text_generation`;
    let pages = 0;
    while (href !== undefined) {
      const res = await fetch(href);
      const body = (await res.json()) as { resources: { model_id: string }[]; next?: { href: string }; limit: number };
      expect(body.limit).toBe(5);
      seen.push(...body.resources.map((r) => r.model_id));
      href = body.next?.href;
      if (href !== undefined) expect(new URL(href).searchParams.get('filters')).toBe('function_text_generation');
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(FOUNDATION_MODEL_SPECS.map((s) => s.model_id));
  });

  it('gives the same answer every time', async () => {
    const [a, b] = await Promise.all([call(open, `/ml/v1/foundation_model_specs?${V}&limit=3&start=3`), call(open, `/ml/v1/foundation_model_specs?${V}&limit=3&start=3`)]);
    expect(a.body).toStrictEqual(b.body);
  });

  it('a spec has the service\'s fields', () => {
    expect(Object.keys(FOUNDATION_MODEL_SPECS[0]!)).toEqual(['model_id', 'label', 'provider', 'source', 'functions', 'short_description', 'tier', 'number_params', 'model_limits', 'lifecycle']);
  });

  it.each<[string, number, string, RegExp]>([
    ['', 400, 'invalid_request_entity', /Missing query parameter 'version'/],
    ['version=May', 400, 'invalid_request_entity', /expected YYYY-MM-DD/],
    [`${V}&limit=0`, 400, 'invalid_input_argument', /'limit': expected an integer from 1 to 200/],
    [`${V}&limit=201`, 400, 'invalid_input_argument', /'limit'/],
    [`${V}&limit=ten`, 400, 'invalid_input_argument', /'limit'/],
    [`${V}&start=-1`, 400, 'invalid_input_argument', /'start'/],
  ])('?%s → %i %s', async (query, status, code, message) => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${query}`);
    expect(a.status).toBe(status);
    expect(a.body.errors[0].code).toBe(code);
    expect(a.body.errors[0].message).toMatch(message);
    expect(a.body).toMatchObject({ status_code: status, trace: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('a start past the end is an empty last page', async () => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}&start=50`);
    expect(a.body.resources).toEqual([]);
    expect(a.body.next).toBeUndefined();
  });

  it('checks credentials like the generation routes when the server requires them', async () => {
    const refused = await call(guarded, `/ml/v1/foundation_model_specs?${V}`);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].code).toBe('authorization_rejected');
    const token = (await call(guarded, '/identity/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=${KEY}`,
    })).body.access_token as string;
    const allowed = await call(guarded, `/ml/v1/foundation_model_specs?${V}`, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
  });

  it('other methods get 405 in watsonx\'s error shape', async () => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}`, { method: 'DELETE' });
    expect(a.status).toBe(405);
    expect(a.headers.get('allow')).toBe('GET');
    expect(a.body.errors[0].code).toBe('method_not_allowed');
  });
});

describe('watsonx v4 deployments', () => {
  it.each([['space_id', 'sp-1'], ['project_id', 'pr-1']])('lists the deployments of a %s, paged', async (param, value) => {
    const first = await call(open, `/ml/v4/deployments?${V}&${param}=${value}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.total_count).toBe(3);
    expect(first.body.resources.map((r: { metadata: { id: string } }) => r.metadata.id)).toEqual(['demo', 'classification']);
    expect(first.body.resources[0].metadata[param]).toBe(value);
    expect(first.body.resources[0].entity).toStrictEqual({
      base_model_id: 'textgen/local-demo',
      deployment_type: 'foundation_model',
      online: { parameters: { serving_name: 'demo_serving' } },
      status: { state: 'ready' },
    });
    const next = await fetch(first.body.next.href).then((r) => r.json() as Promise<{ resources: { metadata: { id: string } }[]; next?: unknown }>);
    expect(next.resources.map((r) => r.metadata.id)).toEqual(['summarize']);
    expect(next.next).toBeUndefined();
  });

  it('needs a space or a project', async () => {
    const a = await call(open, `/ml/v4/deployments?${V}`);
    expect(a.status).toBe(400);
    expect(a.body.errors[0]).toMatchObject({ code: 'invalid_input_argument', message: 'Either space_id or project_id has to be provided' });
  });
});

describe('Azure OpenAI deployments and OpenAI-compatible models', () => {
  it('lists deployments in the 2022-12-01 shape, with an apim-request-id', async () => {
    const a = await call(open, '/openai/deployments?api-version=2022-12-01');
    expect(a.status).toBe(200);
    expect(a.headers.get('apim-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(a.body)).toEqual(['data', 'object']);
    expect(a.body.object).toBe('list');
    expect(a.body.data.map((d: { id: string }) => d.id)).toEqual(['gpt-35-turbo-instruct', 'davinci-002', 'text-embedding-ada-002']);
    expect(Object.keys(a.body.data[0])).toEqual(['scale_settings', 'model', 'owner', 'id', 'status', 'created_at', 'updated_at', 'object']);
  });

  it.each([['', /api-version query parameter .* is required/], ['?api-version=latest', /Unsupported api-version 'latest'/]])('deployments%s → 400', async (query, message) => {
    const a = await call(open, `/openai/deployments${query}`);
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'BadRequest', param: 'api-version' });
    expect(a.body.error.message).toMatch(message);
  });

  it('lists models in OpenAI\'s shape, with an x-request-id', async () => {
    const a = await call(open, '/v1/models');
    expect(a.status).toBe(200);
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.body.object).toBe('list');
    expect(a.body.data[0]).toStrictEqual({ id: 'gpt-3.5-turbo-instruct', object: 'model', created: 1714554000, owned_by: 'system' });
  });

  it.each<[string, Record<string, string>, number, object]>([
    ['/openai/deployments?api-version=2022-12-01', {}, 401, { error: { code: '401', message: expect.stringMatching(/^Access denied/) } }],
    ['/openai/deployments?api-version=2022-12-01', { 'api-key': KEY }, 200, { object: 'list' }],
    ['/v1/models', {}, 401, { error: { code: 'invalid_api_key', type: 'invalid_request_error', param: null } }],
    ['/v1/models', { authorization: `Bearer ${KEY}` }, 200, { object: 'list' }],
  ])('%s with %j when credentials are required → %i', async (path, headers, status, body) => {
    const a = await call(guarded, path, { headers });
    expect(a.status).toBe(status);
    expect(a.body).toMatchObject(body);
  });
});

describe('Open Inference repository index and model list', () => {
  it.each<[string, RequestInit]>([
    ['no body', { method: 'POST' }],
    ['an empty object', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }],
    ['ready: true', { method: 'POST', body: '{"ready":true}', headers: { 'content-type': 'application/json' } }],
  ])('the repository index with %s: one row per version, all ready', async (_name, init) => {
    const a = await call(open, '/v2/repository/index', init);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.body).toStrictEqual([
      { name: 'demo', version: '1', state: 'READY' },
      { name: 'ensemble', version: '1', state: 'READY' },
      { name: 'llama-3-8b-instruct', version: '1', state: 'READY' },
      { name: 'llama-3-8b-instruct', version: '2', state: 'READY' },
    ]);
  });

  it.each([['{"ready":"yes"}', /'ready': expected a boolean/], ['[1]', /must be a JSON object/], ['not json', /must be a JSON object/]])('the repository index rejects %s with 400', async (body, message) => {
    const a = await call(open, '/v2/repository/index', { method: 'POST', body });
    expect(a.status).toBe(400);
    expect(a.body.error).toMatch(message);
  });

  it('KServe\'s model list names each model once', async () => {
    const a = await call(open, '/v2/models');
    expect(a.body).toStrictEqual({ models: ['demo', 'ensemble', 'llama-3-8b-instruct'] });
  });

  it.each(['/v2/models', '/v2/repository/index'])('%s checks credentials when the server requires them', async (path) => {
    const method = path.endsWith('index') ? 'POST' : 'GET';
    const refused = await call(guarded, path, { method });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call(guarded, path, { method, headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it('model metadata routes are unchanged beside the list', async () => {
    const a = await call(open, '/v2/models/demo');
    expect(a.body).toMatchObject({ name: 'demo', platform: 'textgen-local' });
  });
});

describe('Aleph Alpha /models_available, as the seed document declares it', () => {
  it('items carry only name, description and hostings, as strings', async () => {
    const a = await call(open, '/models_available');
    expect(a.status).toBe(200);
    for (const item of a.body as Record<string, unknown>[]) {
      expect(Object.keys(item).every((k) => ['name', 'description', 'hostings'].includes(k))).toBe(true);
      expect(typeof item.name).toBe('string');
      expect(typeof item.description).toBe('string');
      expect((item.hostings as unknown[]).every((h) => typeof h === 'string')).toBe(true);
    }
  });
});
