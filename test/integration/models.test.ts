import { describe, expect, it } from 'vitest';
import { openInferenceProtocol } from '../../profiles/open-inference/server/index.js';
import { kserveModels } from '../../profiles/open-inference/server/repository.js';
import { FOUNDATION_MODEL_SPECS } from '../../profiles/watsonx/server/model-catalog.js';
import { MODEL_ENTRY_KEYS } from '../../src/contract/model-entry.js';
import { startServer, type RecordedRequest } from '../../src/emulator/core/index.js';
import { json, useTinyServers } from '../helpers/tiny-server.js';
import { useAuthedServer, type Kind } from '../helpers/authed-cli.js';
import { runInProcess } from '../helpers/run-cli.js';

/** A server that checks credentials, as real services do; every provider's credential rides on each request. */
const KEY = 'models-test-key-0123';
const { fixture, run } = useAuthedServer(KEY);
const { home } = fixture;
const tiny = useTinyServers();

function models(kind: Kind, args: string[], opts: { url?: string; env?: Record<string, string> } = {}) {
  return run(kind, ['models', ...args], opts);
}

/** The requests of the listing itself (the IAM token exchange left out). */
function listing(): RecordedRequest[] {
  return fixture.server.requests.filter((r) => r.path !== '/identity/token');
}

const WATSONX_IDS = FOUNDATION_MODEL_SPECS.map((s) => s.model_id);

describe('models: the wire request of each provider', () => {
  it.each<
    [
      Kind,
      string[],
      Record<string, string>,
      {
        method: string;
        path: string;
        query: Record<string, string>;
        headers: Record<string, string | RegExp>;
        body: string;
      },
    ]
  >([
    [
      'watsonx',
      [],
      {},
      {
        method: 'GET',
        path: '/ml/v1/foundation_model_specs',
        query: { version: '2024-05-01', limit: '200' },
        headers: { accept: 'application/json', authorization: /^Bearer \S+$/ },
        body: '',
      },
    ],
    [
      'watsonx',
      ['--deployments'],
      { TEXTGEN_SPACE_ID: 'space-1' },
      {
        method: 'GET',
        path: '/ml/v4/deployments',
        query: { version: '2024-05-01', space_id: 'space-1', limit: '200' },
        headers: { authorization: /^Bearer \S+$/ },
        body: '',
      },
    ],
    [
      'watsonx',
      ['--deployments', '--api-version', '2025-02-11'],
      { TEXTGEN_PROJECT_ID: 'proj-1' },
      {
        method: 'GET',
        path: '/ml/v4/deployments',
        query: { version: '2025-02-11', project_id: 'proj-1', limit: '200' },
        headers: {},
        body: '',
      },
    ],
    [
      'azure-openai',
      [],
      {},
      {
        method: 'GET',
        path: '/openai/deployments',
        query: { 'api-version': '2022-12-01' },
        headers: { accept: 'application/json', 'api-key': KEY },
        body: '',
      },
    ],
    [
      'azure-openai',
      ['--deployments', '--api-version', '2023-03-15-preview'],
      {},
      {
        method: 'GET',
        path: '/openai/deployments',
        query: { 'api-version': '2023-03-15-preview' },
        headers: { 'api-key': KEY },
        body: '',
      },
    ],
    [
      'openai',
      [],
      {},
      {
        method: 'GET',
        path: '/v1/models',
        query: {},
        headers: { accept: 'application/json', authorization: `Bearer ${KEY}` },
        body: '',
      },
    ],
    [
      'aleph-alpha',
      [],
      {},
      {
        method: 'GET',
        path: '/models_available',
        query: {},
        headers: { accept: 'application/json', authorization: `Bearer ${KEY}` },
        body: '',
      },
    ],
    [
      'open-inference',
      [],
      {},
      {
        method: 'POST',
        path: '/v2/repository/index',
        query: {},
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: '{}',
      },
    ],
    [
      'open-inference',
      ['demo'],
      {},
      { method: 'GET', path: '/v2/models/demo', query: {}, headers: { authorization: `Bearer ${KEY}` }, body: '' },
    ],
    [
      'open-inference',
      ['demo', '--model-version', '2'],
      {},
      { method: 'GET', path: '/v2/models/demo/versions/2', query: {}, headers: {}, body: '' },
    ],
  ])('%s %j', async (kind, args, env, expected) => {
    const r = await models(kind, [...args, '-o', 'json'], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const [req, ...more] = listing();
    expect(more).toHaveLength(0);
    expect({ method: req?.method, path: req?.path, query: req?.query, body: req?.body }).toStrictEqual({
      method: expected.method,
      path: expected.path,
      query: expected.query,
      body: expected.body,
    });
    for (const [name, value] of Object.entries(expected.headers)) {
      if (value instanceof RegExp) expect(req?.headers[name], name).toMatch(value);
      else expect(req?.headers[name], name).toBe(value);
    }
  });
});

describe('models: canonical entries and the text table', () => {
  it.each<[Kind, string[], Record<string, string>, string[]]>([
    ['watsonx', [], {}, WATSONX_IDS as string[]],
    ['watsonx', ['--deployments'], { TEXTGEN_SPACE_ID: 's' }, ['demo', 'classification', 'summarize', 'assistant']],
    ['azure-openai', [], {}, ['gpt-35-turbo-instruct', 'davinci-002', 'text-embedding-ada-002']],
    [
      'openai',
      [],
      {},
      ['gpt-3.5-turbo-instruct', 'davinci-002', 'babbage-002', 'text-embedding-ada-002', 'text-embedding-3-small'],
    ],
    [
      'aleph-alpha',
      [],
      {},
      [
        'luminous-base',
        'luminous-extended',
        'luminous-supreme',
        'luminous-base-control',
        'luminous-extended-control',
        'luminous-supreme-control',
      ],
    ],
    ['open-inference', [], {}, ['demo', 'ensemble', 'llama-3-8b-instruct', 'llama-3-8b-instruct']],
  ])('%s %j: -o json is the list of canonical entries in the service order', async (kind, args, env, ids) => {
    const r = await models(kind, [...args, '-o', 'json'], { env });
    expect(r.exitCode).toBe(0);
    const entries = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(entries.map((e) => e.id)).toEqual(ids);
    for (const e of entries) {
      const keys = Object.keys(e);
      expect(
        keys.every((k) => (MODEL_ENTRY_KEYS as readonly string[]).includes(k)),
        keys.join(),
      ).toBe(true);
      expect(keys, 'canonical order').toEqual(
        [...keys].sort((a, b) => MODEL_ENTRY_KEYS.indexOf(a as never) - MODEL_ENTRY_KEYS.indexOf(b as never)),
      );
      expect(e.kind).toBe(args.includes('--deployments') || kind === 'azure-openai' ? 'deployment' : 'model');
    }
  });

  it('watsonx: a spec becomes {id, kind, name, provider, status, max_tokens, functions, description}', async () => {
    const r = await models('watsonx', ['-o', 'json']);
    const entries = JSON.parse(r.stdout) as { id: string }[];
    expect(entries.find((e) => e.id === 'ibm/granite-13b-instruct-v2')).toStrictEqual({
      id: 'ibm/granite-13b-instruct-v2',
      kind: 'model',
      name: 'granite-13b-instruct-v2',
      provider: 'IBM',
      status: 'deprecated',
      max_tokens: 8192,
      functions: ['text_generation'],
      description: 'The Granite model for summarisation, extraction, classification and generation.',
    });
    expect(entries.find((e) => e.id === 'ibm/slate-125m-english-rtrvr-v2')).toMatchObject({
      status: 'available',
      max_tokens: 512,
      functions: ['embedding'],
    });
  });

  it.each<[Kind, string[], Record<string, string>, string]>([
    [
      'watsonx',
      ['--deployments'],
      { TEXTGEN_SPACE_ID: 's' },
      'ID              MODEL                        SERVING NAME            STATUS  DESCRIPTION\n' +
        'demo            textgen/local-demo           demo_serving            ready   The local engine, deployed\n' +
        'classification  ibm/granite-3-3-8b-instruct  classification_serving  ready   A prompt template that classifies questions\n' +
        'summarize       ibm/granite-3-3-8b-instruct  summarize_serving       ready   A prompt template that summarises a {document}\n' +
        'assistant       ibm/granite-3-3-8b-instruct  assistant_serving       ready   A chat prompt template: a cautious assistant\n',
    ],
    [
      'azure-openai',
      [],
      {},
      'ID                      MODEL                   STATUS\n' +
        'gpt-35-turbo-instruct   gpt-35-turbo-instruct   succeeded\n' +
        'davinci-002             davinci-002             succeeded\n' +
        'text-embedding-ada-002  text-embedding-ada-002  succeeded\n',
    ],
    [
      'openai',
      [],
      {},
      'ID                      PROVIDER\ngpt-3.5-turbo-instruct  system\ndavinci-002             system\nbabbage-002             system\n' +
        'text-embedding-ada-002  openai-internal\ntext-embedding-3-small  system\n',
    ],
    [
      'open-inference',
      [],
      {},
      'ID                   STATUS  VERSIONS\ndemo                 READY   1\nensemble             READY   1\nllama-3-8b-instruct  READY   1\nllama-3-8b-instruct  READY   2\n',
    ],
    [
      'open-inference',
      ['demo'],
      {},
      'id        demo\nkind      model\nversions  1\nplatform  textgen-local\ninputs    text_input BYTES [1]\noutputs   text_output BYTES [-1]\n',
    ],
  ])('%s %j: text output is an aligned table', async (kind, args, env, table) => {
    const r = await models(kind, args, { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(table);
  });

  it('watsonx: the table shows the current catalog with status, limits and functions; descriptions cut to 60 characters', async () => {
    const r = await models('watsonx', []);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +PROVIDER +STATUS +MAX TOKENS +FUNCTIONS +DESCRIPTION$/);
    expect(lines).toHaveLength(WATSONX_IDS.length + 1);
    expect(lines.slice(1).map((l) => l.split(' ')[0])).toEqual(WATSONX_IDS);
    expect(lines.find((l) => l.startsWith('ibm/granite-4-h-small '))).toMatch(
      / IBM +available +131072 +text_generation,text_chat +The Granite 4\.0 hybrid Mamba\/transformer mixture of experts…$/,
    );
    expect(lines.find((l) => l.startsWith('ibm/granite-13b-instruct-v2 '))).toMatch(
      / deprecated +8192 +text_generation /,
    );
    expect(lines.find((l) => l.startsWith('intfloat/multilingual-e5-large '))).toMatch(
      / Microsoft +available +512 +embedding /,
    );
  });

  it('-o jsonl writes one entry per line; yaml a sequence; -j with --raw-output bare values', async () => {
    const jsonl = await models('aleph-alpha', ['-o', 'jsonl']);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0]!)).toStrictEqual({
      id: 'luminous-base',
      kind: 'model',
      description: 'luminous-base, served by the textgen local engine',
    });
    const yaml = await models('openai', ['-o', 'yaml']);
    expect(yaml.stdout.startsWith('- id: gpt-3.5-turbo-instruct\n  kind: model\n  provider: system\n')).toBe(true);
    const ids = await models('azure-openai', ['-j', '[].id', '--raw-output', '-o', 'jsonl']);
    expect(ids.stdout).toBe('gpt-35-turbo-instruct\ndavinci-002\ntext-embedding-ada-002\n');
    const query = await models('open-inference', ['-j', "[?id=='llama-3-8b-instruct'].versions[0]"]);
    expect(JSON.parse(query.stdout)).toEqual(['1', '2']);
  });

  it("--raw prints the provider's own items, unknown fields included", async () => {
    const r = await models('azure-openai', ['--raw', '-o', 'json']);
    const items = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(items[0]).toStrictEqual({
      scale_settings: { scale_type: 'standard' },
      model: 'gpt-35-turbo-instruct',
      owner: 'organization-owner',
      id: 'gpt-35-turbo-instruct',
      status: 'succeeded',
      created_at: 1714554000,
      updated_at: 1714554000,
      object: 'deployment',
    });
    const meta = await models('open-inference', ['demo', '--raw']);
    expect(JSON.parse(meta.stdout)).toMatchObject({ name: 'demo', platform: 'textgen-local' });
  });
});

describe('models: watsonx paging', () => {
  const pageStarts = (size: number) =>
    Array.from({ length: Math.ceil(WATSONX_IDS.length / size) }, (_, i) => String(i * size));
  it.each([
    [5, pageStarts(5)],
    [1, pageStarts(1)],
    [WATSONX_IDS.length, ['0']],
    [200, ['0']],
  ])('--page-size %i reads every page (starts %j) and keeps the order', async (size, starts) => {
    const r = await models('watsonx', ['--page-size', String(size), '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((e) => e.id)).toEqual(WATSONX_IDS);
    const pages = listing();
    expect(pages.map((p) => p.query.start ?? '0')).toEqual(starts);
    for (const p of pages) expect(p.query).toMatchObject({ version: '2024-05-01', limit: String(size) });
    // The token is exchanged at most once (it may be cached from an earlier test) and every page carries it.
    expect(fixture.server.requests.filter((q) => q.path === '/identity/token').length).toBeLessThanOrEqual(1);
    for (const p of pages) expect(p.headers.authorization).toMatch(/^Bearer /);
  });

  it('deployments page too, keeping the space on every page', async () => {
    const r = await models('watsonx', ['--deployments', '--page-size', '2', '-o', 'json'], {
      env: { TEXTGEN_SPACE_ID: 'sp' },
    });
    expect((JSON.parse(r.stdout) as { id: string }[]).map((e) => e.id)).toEqual([
      'demo',
      'classification',
      'summarize',
      'assistant',
    ]);
    expect(listing().map((p) => [p.query.start ?? '0', p.query.space_id])).toEqual([
      ['0', 'sp'],
      ['2', 'sp'],
    ]);
  });

  it('--raw with pages: the items of every page, in order', async () => {
    const r = await models('watsonx', ['--page-size', '5', '--raw', '-o', 'json']);
    const items = JSON.parse(r.stdout) as { model_id: string; model_limits: unknown }[];
    expect(items.map((i) => i.model_id)).toEqual(WATSONX_IDS);
    expect(items[0]?.model_limits).toBeDefined();
  });

  it('a next link that points back to a page already read ends the listing with a warning', async () => {
    const t = await tiny((_req, res, origin) =>
      json(res, 200, {
        resources: [{ model_id: 'a' }],
        next: { href: `${origin}/ml/v1/foundation_model_specs?version=2024-05-01&limit=200` },
      }),
    );
    const r = await runInProcess(['--provider', 'watsonx', '--url', t.url, 'models', '-o', 'json'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id: 'a', kind: 'model' }]);
    expect(r.stderr).toMatch(/warning: watsonx links back to a page already read .*the list may be incomplete/);
    expect(t.seen).toHaveLength(1);
  });

  it("a next link to another host is followed on the profile's own origin, with version and space carried", async () => {
    const t = await tiny((req, res) => {
      const start = new URL(req.url ?? '/', 'http://x').searchParams.get('start');
      if (start === null)
        json(res, 200, {
          resources: [{ metadata: { id: 'one' } }],
          next: { href: 'https://internal.example:9443/ml/v4/deployments?start=tok2&limit=1' },
        });
      else json(res, 200, { resources: [{ metadata: { id: 'two' } }] });
    });
    const r = await runInProcess(
      ['--provider', 'watsonx', '--url', t.url, 'models', '--deployments', '--page-size', '1', '-o', 'json'],
      {
        env: { ...home.env, TEXTGEN_SPACE_ID: 'sp' },
      },
    );
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((e) => e.id)).toEqual(['one', 'two']);
    expect(t.seen).toEqual([
      'GET /ml/v4/deployments?version=2024-05-01&space_id=sp&limit=1',
      'GET /ml/v4/deployments?start=tok2&limit=1&version=2024-05-01&space_id=sp',
    ]);
  });
});

describe('models: Open Inference servers without a list call of their own', () => {
  it('a KServe-style server: the repository index answers 404, GET /v2/models lists', async () => {
    const kserve = await startServer({
      requestLog: { max: 1000 },
      protocols: [
        openInferenceProtocol,
        {
          ...openInferenceProtocol,
          name: 'kserve',
          routes: [{ method: 'GET', pattern: '/v2/models', handler: kserveModels }],
        },
      ],
    });
    try {
      const r = await runInProcess(['--provider', 'open-inference', '--url', kserve.url, 'models', '-v'], {
        env: home.env,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('ID\ndemo\nensemble\nllama-3-8b-instruct\n');
      expect(kserve.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
        'POST /v2/repository/index',
        'GET /v2/models',
      ]);
      expect(r.stderr).toMatch(/POST \/v2\/repository\/index answered 404; trying GET \/v2\/models/);
    } finally {
      await kserve.close();
    }
  });

  it('a server with neither: exit 4 naming both routes, with a hint', async () => {
    const bare = await startServer({ requestLog: { max: 1000 }, protocols: [openInferenceProtocol] });
    try {
      const r = await runInProcess(['--provider', 'open-inference', '--url', bare.url, 'models'], { env: home.env });
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^error: open-inference returned HTTP 404: this server has no way to list its models \(POST \/v2\/repository\/index answered 404; GET \/v2\/models answered 404\)/m,
      );
      expect(r.stderr).toMatch(/hint: ask for one model by name: textgen models NAME/);
    } finally {
      await bare.close();
    }
  });

  it("a model the server does not know: exit 4 with the server's words", async () => {
    const t = await tiny((_req, res) => json(res, 404, { error: "Request for unknown model: 'nope' is not found" }));
    const r = await runInProcess(['--provider', 'open-inference', '--url', t.url, 'models', 'nope'], { env: home.env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/open-inference returned HTTP 404.*unknown model: 'nope'/);
  });
});

describe('models: failures', () => {
  it.each<[Kind, string[], RegExp]>([
    [
      'aleph-alpha',
      ['luminous-base'],
      /models NAME \(one model's metadata\) is not supported by aleph-alpha; it works with open-inference/,
    ],
    ['watsonx', ['ibm/granite-13b-instruct-v2'], /not supported by watsonx; it works with open-inference/],
    ['azure-openai', ['gpt'], /not supported by azure-openai/],
    ['openai', ['gpt'], /not supported by openai/],
    [
      'aleph-alpha',
      ['--deployments'],
      /models --deployments is not supported by aleph-alpha; it works with watsonx, azure-openai/,
    ],
    ['openai', ['--deployments'], /--deployments is not supported by openai/],
    ['open-inference', ['--deployments'], /--deployments is not supported by open-inference/],
    ['aleph-alpha', ['--page-size', '3'], /--page-size is not supported by aleph-alpha/],
    ['azure-openai', ['--page-size', '3'], /--page-size is not supported by azure-openai/],
    ['open-inference', ['--page-size', '3'], /--page-size is not supported by open-inference/],
    ['watsonx', ['--page-size', '201'], /--page-size must be an integer from 1 to 200 for watsonx, got 201/],
    ['watsonx', ['--page-size', '0'], /--page-size must be a positive integer, got "0"/],
    ['watsonx', ['--page-size', '2.5'], /--page-size must be a positive integer, got "2.5"/],
    [
      'watsonx',
      ['--deployments'],
      /watsonx lists deployments of a space or project: profile "\(ad hoc\)" has neither space_id nor project_id/,
    ],
    ['open-inference', ['--model-version', '2'], /--model-version needs a model NAME/],
    ['open-inference', ['demo', '--deployments'], /give a model NAME or --deployments, not both/],
    ['open-inference', ['--raw=maybe'], /--raw must be true or false/],
    ['open-inference', ['-o', 'csv'], /--output must be one of/],
  ])('%s %j is a usage error (exit 2) and nothing is sent', async (kind, args, message) => {
    const r = await models(kind, args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it.each<[Kind, string[]]>([
    ['watsonx', ['--token', 'not-a-token']],
    ['azure-openai', ['--api-key', 'wrong-key']],
    ['openai', ['--token', 'wrong-key']],
    ['aleph-alpha', ['--token', 'wrong-key']],
    ['open-inference', ['--token', 'wrong-key']],
  ])('%s: refused credentials exit 3', async (kind, credential) => {
    const r = await runInProcess(['--provider', kind, '--url', fixture.server.url, ...credential, 'models'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`^error: ${kind} returned HTTP 401`, 'm'));
  });

  it('an answer that is not a listing exits 4 and quotes it', async () => {
    const t = await tiny((_req, res) => json(res, 200, { models_are: 'elsewhere' }));
    const r = await runInProcess(['--provider', 'aleph-alpha', '--url', t.url, 'models'], { env: home.env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /aleph-alpha returned HTTP 200: unexpected answer: the answer is not a JSON array of models — got: \{"models_are":"elsewhere"\}/,
    );
  });

  it('an empty list prints nothing on stdout and says so on stderr', async () => {
    const t = await tiny((_req, res) => json(res, 200, { resources: [] }));
    const r = await runInProcess(['--provider', 'watsonx', '--url', t.url, 'models'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('watsonx lists no models\n');
    const asJson = await runInProcess(['--provider', 'watsonx', '--url', t.url, 'models', '-o', 'json'], {
      env: home.env,
    });
    expect(asJson.stdout).toBe('[]\n');
  });
});

describe('models --dry-run', () => {
  it.each<[Kind, string[], Record<string, string>, string]>([
    [
      'watsonx',
      ['--page-size', '5'],
      {},
      "curl -sS -N -X GET 'URL/ml/v1/foundation_model_specs?version=2024-05-01&limit=5' -H 'accept: application/json' -H \"authorization: Bearer ${TEXTGEN_TOKEN}\"",
    ],
    [
      'azure-openai',
      [],
      {},
      "curl -sS -N -X GET 'URL/openai/deployments?api-version=2022-12-01' -H 'accept: application/json' -H \"api-key: ${TEXTGEN_API_KEY}\"",
    ],
    [
      'open-inference',
      [],
      {},
      "curl -sS -N -X POST 'URL/v2/repository/index' -H 'content-type: application/json' -H 'accept: application/json' -H \"authorization: Bearer ${TEXTGEN_TOKEN}\" --data-raw '{}'",
    ],
    [
      'open-inference',
      ['demo:3'],
      {},
      "curl -sS -N -X GET 'URL/v2/models/demo/versions/3' -H 'accept: application/json' -H \"authorization: Bearer ${TEXTGEN_TOKEN}\"",
    ],
  ])(
    '%s %j prints the first request as curl, credentials as variables, and sends nothing',
    async (kind, args, env, curl) => {
      const variable = kind === 'azure-openai' ? 'TEXTGEN_API_KEY' : 'TEXTGEN_TOKEN';
      const r = await runInProcess(['--provider', kind, '--url', fixture.server.url, 'models', ...args, '--dry-run'], {
        env: { ...home.env, [variable]: KEY, ...env },
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(`${curl.replace('URL', fixture.server.url)}\n`);
      expect(r.stdout).not.toContain(KEY);
      expect(fixture.server.requests).toHaveLength(0);
    },
  );
});
