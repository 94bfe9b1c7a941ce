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
    expect(a.body.total_count).toBe(FOUNDATION_MODEL_SPECS.length);
    expect(a.body.limit).toBe(100);
    const ids = a.body.resources.map((r: { model_id: string }) => r.model_id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(
      expect.arrayContaining([
        'ibm/granite-4-h-small',
        'ibm/slate-125m-english-rtrvr-v2',
        'ibm/granite-13b-instruct-v2',
      ]),
    );
    expect(a.body.first.href).toBe(`${open.url}/ml/v1/foundation_model_specs?version=2024-05-01&start=0&limit=100`);
  });

  it('pages with start and limit; next links carry the other query parameters (filters too) and walk the whole list', async () => {
    const seen: string[] = [];
    let href: string | undefined =
      `${open.url}/ml/v1/foundation_model_specs?${V}&limit=5&filters=function_text_generation`;
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
    const generating = FOUNDATION_MODEL_SPECS.filter((s) =>
      (s.functions as { id: string }[]).some((f) => f.id === 'text_generation'),
    ).map((s) => s.model_id);
    expect(pages).toBe(Math.ceil(generating.length / 5));
    expect(seen).toEqual(generating);
  });

  it.each<[string, string[]]>([
    [
      'function_embedding',
      [
        'ibm/granite-embedding-107m-multilingual',
        'ibm/granite-embedding-278m-multilingual',
        'ibm/slate-125m-english-rtrvr',
        'ibm/slate-125m-english-rtrvr-v2',
        'ibm/slate-30m-english-rtrvr',
        'ibm/slate-30m-english-rtrvr-v2',
        'intfloat/multilingual-e5-large',
        'sentence-transformers/all-minilm-l6-v2',
      ],
    ],
    ['modelid_ibm/granite-4-h-small', ['ibm/granite-4-h-small']],
    ['function_embedding,provider_Microsoft', ['intfloat/multilingual-e5-large']],
    ['modelid_ibm/granite-4-h-small,modelid_openai/gpt-oss-120b:or', ['ibm/granite-4-h-small', 'openai/gpt-oss-120b']],
    ['function_text_chat,!provider_IBM,!provider_Meta,!provider_Mistral AI', ['openai/gpt-oss-120b']],
    ['function_rerank', ['cross-encoder/ms-marco-minilm-l-12-v2']],
    [
      'function_time_series_forecast,input_tier_class_1',
      ['ibm/granite-ttm-1024-96-r2', 'ibm/granite-ttm-1536-96-r2', 'ibm/granite-ttm-512-96-r2'],
    ],
    [
      'lifecycle_deprecated',
      [
        'ibm/granite-13b-instruct-v2',
        'ibm/granite-3-2b-instruct',
        'ibm/granite-3-8b-instruct',
        'ibm/granite-vision-3-2-2b',
      ],
    ],
    [
      'task_code,provider_IBM',
      ['ibm/granite-3-2b-instruct', 'ibm/granite-3-8b-instruct', 'ibm/granite-8b-code-instruct'],
    ],
    ['modelid_nobody/nothing', []],
  ])('filters=%s lists only the models it selects', async (filters, ids) => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}&filters=${encodeURIComponent(filters)}`);
    expect(a.status).toBe(200);
    expect(a.body.resources.map((r: { model_id: string }) => r.model_id)).toEqual(ids);
    expect(a.body.total_count).toBe(ids.length);
  });

  it.each([['tier_class_2'], ['function_text_generation:nand'], ['kind_llm'], ['!']])(
    'filters=%s that are not filters are a 400 naming the part',
    async (filters) => {
      const a = await call(open, `/ml/v1/foundation_model_specs?${V}&filters=${encodeURIComponent(filters)}`);
      if (filters === 'tier_class_2') {
        expect(a.status).toBe(200);
        expect(a.body.resources).toEqual([]);
        return;
      }
      expect(a.status).toBe(400);
      expect(a.body.errors[0]).toMatchObject({
        code: 'invalid_input_argument',
        message: expect.stringContaining("query parameter 'filters'"),
      });
    },
  );

  it('tech_preview=true|false is taken; anything else is a 400', async () => {
    expect((await call(open, `/ml/v1/foundation_model_specs?${V}&tech_preview=true`)).status).toBe(200);
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}&tech_preview=maybe`);
    expect(a.status).toBe(400);
    expect(a.body.errors[0].message).toMatch(/'tech_preview'/);
  });

  it('gives the same answer every time', async () => {
    const [a, b] = await Promise.all([
      call(open, `/ml/v1/foundation_model_specs?${V}&limit=3&start=3`),
      call(open, `/ml/v1/foundation_model_specs?${V}&limit=3&start=3`),
    ]);
    expect(a.body).toStrictEqual(b.body);
  });

  it("a spec has the fields of the SDK's FoundationModel: input_tier and output_tier, not tier", () => {
    const spec = FOUNDATION_MODEL_SPECS.find((s) => s.model_id === 'ibm/granite-4-h-small')!;
    expect(Object.keys(spec)).toEqual([
      'model_id',
      'label',
      'provider',
      'source',
      'functions',
      'short_description',
      'input_tier',
      'output_tier',
      'number_params',
      'model_limits',
      'lifecycle',
      'tasks',
    ]);
    expect(spec).toMatchObject({
      functions: [{ id: 'text_generation' }, { id: 'text_chat' }],
      model_limits: { max_sequence_length: 131072 },
      number_params: '32b',
    });
    for (const s of FOUNDATION_MODEL_SPECS) expect(s).not.toHaveProperty('tier');
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
    const token = (
      await call(guarded, '/identity/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=${KEY}`,
      })
    ).body.access_token as string;
    const allowed = await call(guarded, `/ml/v1/foundation_model_specs?${V}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(allowed.status).toBe(200);
  });

  it("other methods get 405 in watsonx's error shape", async () => {
    const a = await call(open, `/ml/v1/foundation_model_specs?${V}`, { method: 'DELETE' });
    expect(a.status).toBe(405);
    expect(a.headers.get('allow')).toBe('GET');
    expect(a.body.errors[0].code).toBe('method_not_allowed');
  });
});

describe('watsonx foundation_model_tasks', () => {
  it("lists the tasks in rank order, with the fields of the SDK's FoundationModelTask", async () => {
    const a = await call(open, `/ml/v1/foundation_model_tasks?${V}`);
    expect(a.status).toBe(200);
    expect(a.body.total_count).toBe(8);
    expect(a.body.resources[0]).toStrictEqual({
      task_id: 'question_answering',
      label: 'Question answering',
      description: expect.any(String),
      rank: 1,
    });
    expect(a.body.resources.map((t: { rank: number }) => t.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('pages with limit and start; next.href walks to the end', async () => {
    const ids: string[] = [];
    let href: string | undefined = `${open.url}/ml/v1/foundation_model_tasks?${V}&limit=3`;
    while (href !== undefined) {
      const body = (await (await fetch(href)).json()) as { resources: { task_id: string }[]; next?: { href: string } };
      ids.push(...body.resources.map((t) => t.task_id));
      href = body.next?.href;
    }
    expect(ids).toEqual([
      'question_answering',
      'summarization',
      'retrieval_augmented_generation',
      'classification',
      'generation',
      'code',
      'extraction',
      'translation',
    ]);
  });

  it('checks version and limit like the other listings', async () => {
    expect((await call(open, '/ml/v1/foundation_model_tasks')).status).toBe(400);
    expect((await call(open, `/ml/v1/foundation_model_tasks?${V}&limit=0`)).body.errors[0].code).toBe(
      'invalid_input_argument',
    );
  });
});

describe('watsonx v4 deployments', () => {
  it.each([
    ['space_id', 'sp-1'],
    ['project_id', 'pr-1'],
  ])('lists the deployments of a %s, paged', async (param, value) => {
    const first = await call(open, `/ml/v4/deployments?${V}&${param}=${value}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.total_count).toBe(4);
    expect(first.body.resources.map((r: { metadata: { id: string } }) => r.metadata.id)).toEqual([
      'demo',
      'classification',
    ]);
    expect(first.body.resources[0].metadata[param]).toBe(value);
    const next = await fetch(first.body.next.href).then(
      (r) => r.json() as Promise<{ resources: { metadata: { id: string } }[]; next?: unknown }>,
    );
    expect(next.resources.map((r) => r.metadata.id)).toEqual(['summarize', 'assistant']);
    expect(next.next).toBeUndefined();
  });

  it("a deployment carries the fields of the SDK's DeploymentResource (online, deployed_asset_type, status.inference)", async () => {
    const a = await call(open, `/ml/v4/deployments?${V}&space_id=sp-1&serving_name=classification_serving`);
    expect(a.body.resources).toHaveLength(1);
    expect(a.body.resources[0]).toStrictEqual({
      metadata: {
        id: 'classification',
        name: 'classification',
        description: 'A prompt template that classifies questions',
        created_at: '2024-05-01T09:00:00.000Z',
        modified_at: '2024-05-01T09:00:00.000Z',
        owner: 'IBMid-local',
        space_id: 'sp-1',
      },
      entity: {
        online: { parameters: { serving_name: 'classification_serving' } },
        prompt_template: { id: 'prompt-template-classification' },
        base_model_id: 'ibm/granite-3-3-8b-instruct',
        deployed_asset_type: 'foundation_model',
        status: {
          state: 'ready',
          inference: [
            { url: `${open.url}/ml/v1/deployments/classification/text/generation` },
            { url: `${open.url}/ml/v1/deployments/classification/text/generation_stream`, sse: true },
            { url: `${open.url}/ml/v1/deployments/classification_serving/text/generation`, uses_serving_name: true },
            {
              url: `${open.url}/ml/v1/deployments/classification_serving/text/generation_stream`,
              sse: true,
              uses_serving_name: true,
            },
          ],
        },
      },
    });
    expect(
      (await call(open, `/ml/v4/deployments?${V}&space_id=sp-1&name=summarize`)).body.resources.map(
        (r: { metadata: { id: string } }) => r.metadata.id,
      ),
    ).toEqual(['summarize']);
  });

  it('GET /ml/v4/deployments/{id} answers one deployment', async () => {
    const a = await call(open, `/ml/v4/deployments/demo?${V}&project_id=pr-9`);
    expect(a.status).toBe(200);
    expect(a.body.metadata).toMatchObject({ id: 'demo', project_id: 'pr-9' });
    expect(a.body.entity).toMatchObject({
      base_model_id: 'textgen/local-demo',
      deployed_asset_type: 'custom_foundation_model',
      status: { state: 'ready' },
    });
  });

  it.each(['no-such-deployment', 'demo_serving'])(
    "GET /ml/v4/deployments/%s: an unknown id is the service's 404, in the /ml/v4 error shape",
    async (id) => {
      const a = await call(open, `/ml/v4/deployments/${id}?${V}&space_id=s`);
      expect(a.status).toBe(404);
      expect(a.body).toStrictEqual({
        trace: expect.stringMatching(/^[0-9a-f]{32}$/),
        errors: [
          {
            code: 'deployment_does_not_exist',
            message: `Deployment with id '${id}' does not exist. Re-try with a valid deployment id.`,
          },
        ],
      });
    },
  );

  it.each(['/ml/v4/deployments', '/ml/v4/deployments/demo'])('%s needs a space or a project', async (path) => {
    const a = await call(open, `${path}?${V}`);
    expect(a.status).toBe(400);
    expect(a.body.errors[0]).toStrictEqual({
      code: 'invalid_input_argument',
      message: 'Either space_id or project_id has to be provided',
    });
  });
});

describe('fault switches on every watsonx route', () => {
  const routes: Array<[string, string, RequestInit]> = [
    ['model specs', `/ml/v1/foundation_model_specs?${V}`, {}],
    ['tasks', `/ml/v1/foundation_model_tasks?${V}`, {}],
    ['deployments', `/ml/v4/deployments?${V}&space_id=s`, {}],
    ['one deployment', `/ml/v4/deployments/demo?${V}&space_id=s`, {}],
    [
      'tokenization',
      `/ml/v1/text/tokenization?${V}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model_id: 'ibm/granite-4-h-small', input: 'Hi', space_id: 's' }),
      },
    ],
    [
      'IAM token',
      '/identity/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=local-apikey',
      },
    ],
    [
      'CPD token',
      '/icp4d-api/v1/authorize',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'password' }),
      },
    ],
  ];

  it.each(routes)('%s: its own X-Textgen-Fault applies (status:code=503)', async (_name, path, init) => {
    const a = await call(open, path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-textgen-fault': 'status:code=503,retry-after=1' },
    });
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('1');
  });

  it.each(routes)('%s: a queued latency fault aimed at its path slows it', async (_name, path, init) => {
    const logged: string[] = [];
    const server = await startServer({ log: (line) => logged.push(line) });
    try {
      server.faults.push({ kind: 'delay', ms: 150, path: path.split('?')[0]! });
      const started = Date.now();
      const a = await call(server, path, init);
      expect(a.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(logged.some((l) => l.startsWith('fault latency:ms=150,path='))).toBe(true);
      expect(server.faults).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a queued fault without a path waits for the generation: listings and tokens pass it by', async () => {
    const server = await startServer();
    try {
      server.faults.push({ kind: 'status', status: 429 });
      for (const [, path, init] of routes) expect((await call(server, path, init)).status, path).toBe(200);
      const gen = await call(server, `/ml/v1/deployments/demo/text/generation?${V}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input":"Hi"}',
      });
      expect(gen.status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe('Azure OpenAI deployments and OpenAI-compatible models', () => {
  it('lists deployments in the 2022-12-01 shape, with an apim-request-id', async () => {
    const a = await call(open, '/openai/deployments?api-version=2022-12-01');
    expect(a.status).toBe(200);
    expect(a.headers.get('apim-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(a.body)).toEqual(['data', 'object']);
    expect(a.body.object).toBe('list');
    expect(a.body.data.map((d: { id: string }) => d.id)).toEqual([
      'gpt-35-turbo-instruct',
      'davinci-002',
      'text-embedding-ada-002',
    ]);
    expect(Object.keys(a.body.data[0])).toEqual([
      'scale_settings',
      'model',
      'owner',
      'id',
      'status',
      'created_at',
      'updated_at',
      'object',
    ]);
  });

  it.each([
    ['', /api-version query parameter .* is required/],
    ['?api-version=latest', /Unsupported api-version 'latest'/],
  ])('deployments%s → 400', async (query, message) => {
    const a = await call(open, `/openai/deployments${query}`);
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({ code: 'BadRequest', param: 'api-version' });
    expect(a.body.error.message).toMatch(message);
  });

  it("lists models in OpenAI's shape, with an x-request-id", async () => {
    const a = await call(open, '/v1/models');
    expect(a.status).toBe(200);
    expect(a.headers.get('x-request-id')).toBeTruthy();
    expect(a.body.object).toBe('list');
    expect(a.body.data[0]).toStrictEqual({
      id: 'gpt-3.5-turbo-instruct',
      object: 'model',
      created: 1714554000,
      owned_by: 'system',
    });
  });

  it.each<[string, Record<string, string>, number, object]>([
    [
      '/openai/deployments?api-version=2022-12-01',
      {},
      401,
      { error: { code: '401', message: expect.stringMatching(/^Access denied/) } },
    ],
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

  it.each([
    ['{"ready":"yes"}', /'ready': expected a boolean/],
    ['[1]', /must be a JSON object/],
    ['not json', /must be a JSON object/],
  ])('the repository index rejects %s with 400', async (body, message) => {
    const a = await call(open, '/v2/repository/index', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(a.status).toBe(400);
    expect(a.body.error).toMatch(message);
  });

  it("KServe's model list names each model once", async () => {
    const a = await call(open, '/v2/models');
    expect(a.body).toStrictEqual({ models: ['demo', 'ensemble', 'llama-3-8b-instruct'] });
  });

  it.each(['/v2/models', '/v2/repository/index'])(
    '%s checks credentials when the server requires them',
    async (path) => {
      const method = path.endsWith('index') ? 'POST' : 'GET';
      const refused = await call(guarded, path, { method });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect((await call(guarded, path, { method, headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    },
  );

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
