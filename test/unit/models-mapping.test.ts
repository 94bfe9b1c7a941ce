import { describe, expect, it } from 'vitest';
import {
  deploymentEntry,
  foundationModelEntry,
  lifecycleStatus,
  parseWatsonxPage,
  watsonxListRequest,
} from '../../profiles/watsonx/client/models.js';
import {
  azureDeploymentEntry,
  azureDeploymentsRequest,
  deploymentListingVersion,
  openAiModelEntry,
  openAiModelsRequest,
} from '../../profiles/openai/client/models.js';
import { alephAlphaModelEntry, alephAlphaModels } from '../../profiles/aleph-alpha/client/models.js';
import {
  modelMetadataRequest,
  parseModelMetadata,
  parseOpenInferencePage,
} from '../../profiles/open-inference/client/models.js';
import { MODEL_ENTRY_KEYS, modelEntry } from '../../src/contract/model-entry.js';
import { resolvePageUrl } from '../../src/flows/models.js';
import { modelDetails, modelsTable } from '../../src/flows/models-text.js';
import { alignColumns, truncate } from '../../src/output/text-table.js';
import { testProfile } from '../helpers/profile.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('the canonical model entry', () => {
  it('keeps its key order whatever order the fields were given in, and drops empty fields', () => {
    const e = modelEntry({
      description: 'd',
      functions: [],
      id: 'm',
      status: '',
      kind: 'model',
      max_tokens: 8,
      name: undefined,
      provider: 'P',
    });
    expect(Object.keys(e)).toEqual(['id', 'kind', 'provider', 'max_tokens', 'description']);
  });

  it('lists every field of the interface once', () => {
    expect(new Set(MODEL_ENTRY_KEYS).size).toBe(MODEL_ENTRY_KEYS.length);
  });
});

describe('watsonx wire mapping', () => {
  const spec = {
    model_id: 'google/flan-ul2',
    label: 'flan-ul2-20b',
    provider: 'Google',
    source: 'Hugging Face',
    functions: [{ id: 'text_generation' }, { id: 'embedding' }],
    short_description: 'An encoder-decoder model.',
    long_description: 'Not shown.',
    model_limits: { max_sequence_length: 4096, max_output_tokens: 1024 },
    lifecycle: [
      { id: 'available', start_date: '2023-07-07' },
      { id: 'deprecated', start_date: '2025-01-06' },
      { id: 'withdrawn', start_date: '2025-09-01' },
    ],
    tier: 'class_3',
  };

  it('maps a foundation model spec onto the canonical fields only', () => {
    expect(foundationModelEntry(spec, NOW)).toStrictEqual({
      id: 'google/flan-ul2',
      kind: 'model',
      name: 'flan-ul2-20b',
      provider: 'Google',
      status: 'deprecated',
      max_tokens: 4096,
      functions: ['text_generation', 'embedding'],
      description: 'An encoder-decoder model.',
    });
  });

  it.each<[string, unknown, string | undefined]>([
    [
      'the phase in force today',
      [
        { id: 'available', start_date: '2023-01-01' },
        { id: 'deprecated', start_date: '2025-05-31' },
      ],
      'deprecated',
    ],
    [
      'a phase that starts today counts',
      [
        { id: 'available', start_date: '2023-01-01' },
        { id: 'withdrawn', start_date: '2025-06-01' },
      ],
      'withdrawn',
    ],
    [
      'a future phase does not',
      [
        { id: 'available', start_date: '2023-01-01' },
        { id: 'withdrawn', start_date: '2025-06-02' },
      ],
      'available',
    ],
    [
      'out of order in the answer',
      [
        { id: 'deprecated', start_date: '2024-02-01' },
        { id: 'available', start_date: '2023-01-01' },
      ],
      'deprecated',
    ],
    ['phases without dates are skipped', [{ id: 'available' }], undefined],
    ['not an array', { id: 'available' }, undefined],
  ])('lifecycle: %s', (_name, lifecycle, status) => {
    expect(lifecycleStatus(lifecycle, NOW)).toBe(status);
  });

  it('a label equal to the id is not repeated as the name; a spec without model_id is no entry', () => {
    expect(foundationModelEntry({ model_id: 'x', label: 'x' }, NOW)).toStrictEqual({ id: 'x', kind: 'model' });
    expect(foundationModelEntry({ label: 'x' }, NOW)).toBeUndefined();
  });

  it.each<[string, unknown, object]>([
    [
      'v4 shape: serving name under online.parameters, state under status',
      {
        metadata: { id: 'd1', name: 'My deployment', description: 'About it' },
        entity: {
          base_model_id: 'ibm/granite-13b-instruct-v2',
          online: { parameters: { serving_name: 'my_dep' } },
          status: { state: 'ready' },
        },
      },
      {
        id: 'd1',
        kind: 'deployment',
        name: 'My deployment',
        model: 'ibm/granite-13b-instruct-v2',
        serving_name: 'my_dep',
        status: 'ready',
        description: 'About it',
      },
    ],
    [
      'flat shape: serving_name and status on the entity, the asset as the model',
      {
        metadata: { id: 'd2', name: 'd2' },
        entity: { serving_name: 'd2s', status: 'failed', asset: { id: 'asset-1' } },
      },
      { id: 'd2', kind: 'deployment', model: 'asset-1', serving_name: 'd2s', status: 'failed' },
    ],
  ])('deployment: %s', (_name, resource, entry) => {
    expect(deploymentEntry(resource)).toStrictEqual(entry);
  });

  it('a page keeps the order of its resources, skips items without an id but keeps them for --raw, and reads next.href', () => {
    const body = {
      total_count: 5,
      limit: 3,
      resources: [{ model_id: 'b' }, { label: 'no id' }, { model_id: 'a' }],
      next: { href: 'https://x.test/ml/v1/foundation_model_specs?start=3&limit=3&version=2024-05-01' },
    };
    const page = parseWatsonxPage(body, { scope: 'models' }, NOW);
    expect(page?.entries.map((e) => e.id)).toEqual(['b', 'a']);
    expect(page?.items).toHaveLength(3);
    expect(page?.next).toBe(body.next.href);
    expect(parseWatsonxPage({ resources: [] }, { scope: 'models' }, NOW)).toStrictEqual({ entries: [], items: [] });
    expect(() => parseWatsonxPage({ results: [] }, { scope: 'models' }, NOW)).toThrow(
      'the answer has no "resources" array',
    );
  });

  it.each<[string, Parameters<typeof testProfile>[0], Parameters<typeof watsonxListRequest>[1], string]>([
    [
      'models, default page size and version',
      {},
      { scope: 'models' },
      '/ml/v1/foundation_model_specs?version=2024-05-01&limit=200',
    ],
    [
      "models, the profile's version and a page size",
      { apiVersion: '2025-02-11' },
      { scope: 'models', pageSize: 7 },
      '/ml/v1/foundation_model_specs?version=2025-02-11&limit=7',
    ],
    [
      'deployments of a space',
      { settings: { spaceId: 's1' } },
      { scope: 'deployments' },
      '/ml/v4/deployments?version=2024-05-01&space_id=s1&limit=200',
    ],
    [
      'deployments of a project (the project wins)',
      { settings: { spaceId: 's1', projectId: 'p1' } },
      { scope: 'deployments' },
      '/ml/v4/deployments?version=2024-05-01&project_id=p1&limit=200',
    ],
  ])('list request: %s', (_name, overrides, query, path) => {
    const req = watsonxListRequest(testProfile(overrides), query);
    expect(req).toStrictEqual({
      method: 'GET',
      url: `https://example.test${path}`,
      headers: { accept: 'application/json' },
    });
  });

  it('deployments without a space or project are a usage error naming the profile', () => {
    expect(() => watsonxListRequest(testProfile(), { scope: 'deployments' })).toThrow(
      /profile "test" has neither space_id nor project_id/,
    );
  });
});

describe('Azure OpenAI and OpenAI-compatible wire mapping', () => {
  it.each<[string | undefined, string]>([
    [undefined, '2022-12-01'],
    ['2022-03-01-preview', '2022-03-01-preview'],
    ['2023-03-15-preview', '2023-03-15-preview'],
    ['2024-10-21', '2022-12-01'],
  ])('profile api-version %s lists deployments with api-version %s', (own, used) => {
    expect(
      deploymentListingVersion(testProfile({ provider: 'azure-openai', ...(own ? { apiVersion: own } : {}) })),
    ).toBe(used);
  });

  it.each([['https://r.openai.azure.com'], ['https://r.openai.azure.com/'], ['https://r.openai.azure.com/openai']])(
    'the deployments URL from %s',
    (url) => {
      expect(azureDeploymentsRequest(testProfile({ provider: 'azure-openai', url })).url).toBe(
        'https://r.openai.azure.com/openai/deployments?api-version=2022-12-01',
      );
    },
  );

  it.each([
    ['http://h:8000', 'http://h:8000/v1/models'],
    ['http://h:8000/v1', 'http://h:8000/v1/models'],
    ['http://h:8000/v1/', 'http://h:8000/v1/models'],
  ])('the models URL from %s', (url, expected) => {
    expect(openAiModelsRequest(testProfile({ provider: 'openai', url })).url).toBe(expected);
  });

  it('maps deployments and models onto canonical entries', () => {
    expect(
      azureDeploymentEntry({
        id: 'gpt',
        model: 'gpt-35-turbo-instruct',
        owner: 'organization-owner',
        status: 'succeeded',
        object: 'deployment',
      }),
    ).toStrictEqual({
      id: 'gpt',
      kind: 'deployment',
      model: 'gpt-35-turbo-instruct',
      status: 'succeeded',
    });
    expect(openAiModelEntry({ id: 'davinci-002', object: 'model', created: 1, owned_by: 'system' })).toStrictEqual({
      id: 'davinci-002',
      kind: 'model',
      provider: 'system',
    });
    expect(openAiModelEntry({ object: 'model' })).toBeUndefined();
  });
});

describe('Aleph Alpha wire mapping', () => {
  it('maps /models_available items, newer fields included', () => {
    expect(
      alephAlphaModelEntry({
        name: 'luminous-base',
        description: 'Base',
        hostings: ['aleph-alpha'],
        max_context_size: 2048,
      }),
    ).toStrictEqual({
      id: 'luminous-base',
      kind: 'model',
      max_tokens: 2048,
      description: 'Base',
    });
    expect(() => alephAlphaModels.parsePage({ models: [] }, { scope: 'models' }, NOW)).toThrow(
      'the answer is not a JSON array of models',
    );
  });
});

describe('Open Inference wire mapping', () => {
  it('reads a Triton repository index: one entry per row, the reason as the description', () => {
    const page = parseOpenInferencePage([
      { name: 'gpt2', version: '1', state: 'READY' },
      { name: 'gpt2', version: '2', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'bare' },
    ]);
    expect(page?.entries).toStrictEqual([
      { id: 'gpt2', kind: 'model', status: 'READY', versions: ['1'] },
      { id: 'gpt2', kind: 'model', status: 'UNAVAILABLE', versions: ['2'], description: 'unloaded' },
      { id: 'bare', kind: 'model' },
    ]);
  });

  it('reads a KServe model list of names or of objects', () => {
    expect(parseOpenInferencePage({ models: ['a', { name: 'b' }, 7, {}] })?.entries).toStrictEqual([
      { id: 'a', kind: 'model' },
      { id: 'b', kind: 'model' },
      { id: '7', kind: 'model' },
    ]);
    expect(() => parseOpenInferencePage({ name: 'x' })).toThrow(
      'the answer is neither a repository index (a JSON array) nor has a "models" array',
    );
  });

  it('reads model metadata, tensors included', () => {
    expect(
      parseModelMetadata({
        name: 'm',
        versions: ['1', 2],
        platform: 'tensorrt_llm',
        inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [-1, 1] }],
        outputs: [{ name: 'o', datatype: 'FP32' }],
      }),
    ).toStrictEqual({
      id: 'm',
      kind: 'model',
      versions: ['1', '2'],
      platform: 'tensorrt_llm',
      inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [-1, 1] }],
      outputs: [{ name: 'o', datatype: 'FP32', shape: [] }],
    });
    expect(parseModelMetadata({ platform: 'x' })).toBeUndefined();
  });

  it.each<[string, string | undefined, string]>([
    ['demo', undefined, '/v2/models/demo'],
    ['demo', '3', '/v2/models/demo/versions/3'],
    ['demo:2', undefined, '/v2/models/demo/versions/2'],
    ['a/b c', undefined, '/v2/models/a%2Fb%20c'],
  ])('metadata request for %s (version %s)', (name, version, path) => {
    expect(
      modelMetadataRequest(testProfile({ provider: 'open-inference', url: 'http://t:8000' }), name, version).url,
    ).toBe(`http://t:8000${path}`);
  });
});

describe('next links', () => {
  it.each([
    ['an absolute link on the same origin', 'https://wx.test/ml/v1/x?start=2', 'https://wx.test/ml/v1/x?start=2'],
    ['a relative path', '/ml/v1/x?start=2', 'https://wx.test/ml/v1/x?start=2'],
    ['a bare query', '?start=2', 'https://wx.test/ml/v1/x?start=2'],
    [
      'another origin is moved onto the profile origin',
      'http://internal-host:9080/ml/v1/x?start=2',
      'https://wx.test/ml/v1/x?start=2',
    ],
  ])('%s', (_name, href, expected) => {
    expect(resolvePageUrl(href, 'https://wx.test/ml/v1/x?start=0', 'https://wx.test')).toBe(expected);
  });
});

describe('text output', () => {
  it('aligns columns with two spaces and no trailing spaces', () => {
    expect(
      alignColumns([
        ['ID', 'STATUS'],
        ['a-long-id', ''],
        ['b', 'ready'],
      ]),
    ).toBe('ID         STATUS\na-long-id\nb          ready\n');
  });

  it('cuts long text with an ellipsis, counting characters rather than code units', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('ab😀', 3)).toBe('ab😀');
  });

  it('shows only the columns some entry fills, in a fixed order', () => {
    const table = modelsTable([
      { id: 'x', kind: 'deployment', status: 'ready' },
      { id: 'yy', kind: 'deployment', model: 'm', status: 'failed' },
    ]);
    expect(table).toBe('ID  MODEL  STATUS\nx          ready\nyy  m      failed\n');
  });

  it('describes one model as key and value lines', () => {
    expect(
      modelDetails({
        id: 'm',
        kind: 'model',
        versions: ['1', '2'],
        inputs: [{ name: 'i', datatype: 'BYTES', shape: [1] }],
      }),
    ).toBe('id        m\nkind      model\nversions  1, 2\ninputs    i BYTES [1]\n');
  });
});
