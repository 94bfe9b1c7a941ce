import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { mapBounded } from '../../src/flows/bounded-map.js';
import { type EmbedFlagOptions, parseEmbedSettings } from '../../src/flows/embed-flags.js';
import { parseEmbedInputs } from '../../src/flows/embed-inputs.js';
import {
  combineAnswers,
  embeddingLines,
  loadEmbedOperation,
  providersWithSetting,
  splitBatches,
} from '../../src/flows/embed.js';
import { UnexpectedAnswer } from '../../src/contract/errors.js';
import type { EmbedRequest } from '../../src/contract/adapter.js';
import { planEmbedRequests } from '../../src/flows/run-embed.js';
import { alephAlphaEmbed } from '../../profiles/aleph-alpha/client/embed.js';
import { azureOpenAiEmbed, openAiEmbed } from '../../profiles/openai/client/embed.js';
import { watsonxEmbed } from '../../profiles/watsonx/client/embed.js';
import { testProfile } from '../helpers/profile.js';

const request = (inputs: string[], settings: EmbedRequest['settings'] = {}, model = 'm'): EmbedRequest => ({
  model,
  inputs,
  settings,
});

describe('splitBatches', () => {
  it.each<[number, number, number[]]>([
    [2500, 1000, [1000, 1000, 500]],
    [250, 100, [100, 100, 50]],
    [1000, 1000, [1000]],
    [1, 100, [1]],
    [3, 1, [1, 1, 1]],
    [0, 5, []],
  ])('%i items by %i → %j, in order', (n, size, sizes) => {
    const items = Array.from({ length: n }, (_, i) => i);
    const batches = splitBatches(items, size);
    expect(batches.map((b) => b.length)).toEqual(sizes);
    expect(batches.flat()).toEqual(items);
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => splitBatches([1], 0)).toThrow(RangeError);
  });
});

describe('combineAnswers', () => {
  it('numbers the embeddings across batches, sums the token counts, and prefers the model the service names', () => {
    const result = combineAnswers('asked', [
      { embeddings: [{ embedding: [1] }, { embedding: [2] }], inputTokenCount: 3 },
      { model: 'served', embeddings: [{ embedding: [3], tokens: ['t'] }], inputTokenCount: 4 },
    ]);
    expect(result).toStrictEqual({
      model: 'served',
      dimensions: 1,
      embeddings: [
        { index: 0, embedding: [1] },
        { index: 1, embedding: [2] },
        { index: 2, embedding: [3], tokens: ['t'] },
      ],
      input_token_count: 7,
    });
    expect(Object.keys(result)).toEqual(['model', 'dimensions', 'embeddings', 'input_token_count']);
    expect(combineAnswers('asked', [{ embeddings: [], inputTokenCount: 0 }]).model).toBe('asked');
  });

  it('states dimensions only when every text has one vector of the same length', () => {
    const answer = (vectors: number[][]) => ({
      embeddings: vectors.map((embedding) => ({ embedding })),
      inputTokenCount: 1,
    });
    expect(combineAnswers('m', [answer([[1, 2, 3]]), answer([[4, 5, 6]])]).dimensions).toBe(3);
    expect(
      combineAnswers('m', [
        answer([
          [1, 2, 3],
          [4, 5],
        ]),
      ]),
    ).not.toHaveProperty('dimensions');
    expect(combineAnswers('m', [answer([])])).not.toHaveProperty('dimensions');
    const layers = {
      embeddings: [{ embedding: { layer_0: { mean: [1, 2] }, layer_1: { mean: [3, 4] } } }],
      inputTokenCount: 1,
    };
    expect(combineAnswers('m', [layers])).not.toHaveProperty('dimensions');
  });
});

describe('embeddingLines', () => {
  it.each<[string, unknown, string]>([
    ['a vector', [0.5, -1], '[0.5,-1]\n'],
    ['one layer and one pooling: the vector', { layer_40: { mean: [1, 2] } }, '[1,2]\n'],
    [
      'several poolings: the object on one line',
      { layer_40: { mean: [1], max: [2] } },
      '{"layer_40":{"mean":[1],"max":[2]}}\n',
    ],
    [
      'several layers: the object on one line',
      { layer_0: { mean: [1] }, layer_40: { mean: [2] } },
      '{"layer_0":{"mean":[1]},"layer_40":{"mean":[2]}}\n',
    ],
  ])('%s', (_name, embedding, line) => {
    expect(
      embeddingLines({
        model: 'm',
        embeddings: [{ index: 0, embedding: embedding as number[] }],
        input_token_count: 1,
      }),
    ).toBe(line);
  });
});

describe('mapBounded', () => {
  it("keeps the items' order whatever order the calls finish in, with at most `limit` in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const run = mapBounded([0, 1, 2, 3, 4, 5, 6], 3, async (n) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => releases.push(resolve));
      inFlight -= 1;
      return n * 10;
    });
    // Release the calls newest first, each time the queue has some, until all seven are done.
    while (releases.length > 0 || inFlight > 0) {
      await new Promise((r) => setImmediate(r));
      releases.pop()?.();
    }
    expect(await run).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(most).toBe(3);
  });

  it('starts nothing after the first failure, waits for the calls running, then throws that failure', async () => {
    const started: number[] = [];
    let finished = 0;
    const failure = new Error('batch 2 failed');
    await expect(
      mapBounded([0, 1, 2, 3, 4, 5], 2, async (n) => {
        started.push(n);
        if (n === 1) throw failure;
        // Item 0 is still running when item 1 fails.
        await new Promise((r) => setImmediate(r));
        finished += 1;
        return n;
      }),
    ).rejects.toBe(failure);
    expect(started).toEqual([0, 1]);
    expect(finished).toBe(1);
  });

  it('with a limit of 1 runs one call after the other', async () => {
    const order: string[] = [];
    await mapBounded(['a', 'b'], 1, async (x) => {
      order.push(`start ${x}`);
      await new Promise((r) => setImmediate(r));
      order.push(`end ${x}`);
    });
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});

describe('parseEmbedInputs', () => {
  it.each<[string, string, string[]]>([
    ['lines, blank ones skipped, spaces kept', 'a\n\n  b \r\n\t\nc', ['a', '  b ', 'c']],
    ['a JSON array', '["a", "b c"]', ['a', 'b c']],
    ['a JSON array after white space', '\n  ["x"]\n', ['x']],
    ['a line that merely contains a bracket', 'f(x) = [1, 2]\n', ['f(x) = [1, 2]']],
  ])('%s', (_name, text, texts) => {
    expect(parseEmbedInputs(text, '--input-file', 'f.txt')).toEqual(texts);
  });

  it.each<[string, string, RegExp]>([
    ['a JSON object', '[1] trailing', /invalid JSON in f.txt at line 1/],
    ['null in the array', '[null]', /item 0 of the JSON array in f.txt is null, not a string/],
    ['only blank lines', '\n\n', /f.txt holds no text to embed/],
  ])('%s is a usage error', (_name, text, message) => {
    expect(() => parseEmbedInputs(text, '--input-file', 'f.txt')).toThrow(message);
  });
});

describe('parseEmbedSettings', () => {
  it.each<[EmbedFlagOptions, unknown]>([
    [{}, {}],
    [{ truncateInputTokens: '0' }, { truncate_input_tokens: 0 }],
    [{ layers: ['-1,0', ' 3 '] }, { layers: [-1, 0, 3] }],
    [{ pooling: ['Mean', 'abs_max,last_token'] }, { pooling: ['mean', 'abs_max', 'last_token'] }],
    [
      { tokens: true, normalize: 'false' },
      { tokens: true, normalize: false },
    ],
    [
      { representation: 'Query', compressToSize: '128' },
      { representation: 'query', compress_to_size: 128 },
    ],
    [{ nice: true }, { nice: true }],
  ])('%j → %j', (options, settings) => {
    expect(parseEmbedSettings(options)).toStrictEqual(settings);
  });

  it.each<[EmbedFlagOptions, RegExp]>([
    [{ layers: [','] }, /--layers needs at least one layer index/],
    [{ layers: ['1.5'] }, /--layers takes integers/],
    [{ pooling: ['sum'] }, /--pooling must be one of/],
    [{ normalize: 'maybe' }, /--normalize must be true or false/],
    [{ compressToSize: '256' }, /--compress-to-size must be 128/],
    [{ truncateInputTokens: '1e3' }, /--truncate-input-tokens must be an integer/],
  ])('%j is a usage error', (options, message) => {
    expect(() => parseEmbedSettings(options)).toThrow(UsageError);
    expect(() => parseEmbedSettings(options)).toThrow(message);
  });
});

describe('provider mappings', () => {
  it('each provider kind with an endpoint has an operation; open-inference has none', async () => {
    expect(await loadEmbedOperation('watsonx')).toBe(watsonxEmbed);
    expect(await loadEmbedOperation('azure-openai')).toBe(azureOpenAiEmbed);
    expect(await loadEmbedOperation('openai')).toBe(openAiEmbed);
    expect(await loadEmbedOperation('aleph-alpha')).toBe(alephAlphaEmbed);
    expect(await loadEmbedOperation('open-inference')).toBeUndefined();
    expect(await providersWithSetting('normalize')).toEqual(['aleph-alpha']);
    expect(await providersWithSetting('truncate_input_tokens')).toEqual(['watsonx']);
  });

  it.each<[string, string, string]>([
    [
      'https://res.openai.azure.com',
      '2024-02-01',
      'https://res.openai.azure.com/openai/deployments/my%20ada/embeddings?api-version=2024-02-01',
    ],
    [
      'https://res.openai.azure.com/openai/',
      '2024-02-01',
      'https://res.openai.azure.com/openai/deployments/my%20ada/embeddings?api-version=2024-02-01',
    ],
  ])('Azure: %s → the deployment path once', (url, apiVersion, expected) => {
    const spec = azureOpenAiEmbed.buildRequest(
      ['a'],
      request(['a'], {}, 'my ada'),
      testProfile({ provider: 'azure-openai', url, apiVersion }),
    );
    expect(spec.url).toBe(expected);
  });

  it.each<[string, string]>([
    ['http://localhost:11434', 'http://localhost:11434/v1/embeddings'],
    ['http://localhost:11434/v1/', 'http://localhost:11434/v1/embeddings'],
  ])('OpenAI-compatible: %s → %s', (url, expected) => {
    expect(openAiEmbed.buildRequest(['a'], request(['a']), testProfile({ provider: 'openai', url })).url).toBe(
      expected,
    );
  });

  it("Aleph Alpha sends the profile's hosting, and picks the endpoint by representation and count", () => {
    const profile = testProfile({ provider: 'aleph-alpha', defaults: { hosting: 'aleph-alpha' } });
    const one = alephAlphaEmbed.buildRequest(['a'], request(['a'], { representation: 'query' }), profile);
    expect(one.url).toBe('https://example.test/semantic_embed');
    expect(JSON.parse(one.body!)).toStrictEqual({
      model: 'm',
      hosting: 'aleph-alpha',
      prompt: 'a',
      representation: 'query',
    });
    const plan = planEmbedRequests(alephAlphaEmbed, request(['a', 'b', 'c'], { representation: 'query' }), profile);
    expect(plan.map((p) => p.spec.url)).toEqual(['https://example.test/batch_semantic_embed']);
    const embed = planEmbedRequests(alephAlphaEmbed, request(['a', 'b']), profile);
    expect(embed.map((p) => JSON.parse(p.spec.body!).prompt)).toEqual(['a', 'b']);
    expect(() =>
      alephAlphaEmbed.buildRequest(
        ['a'],
        request(['a']),
        testProfile({ provider: 'aleph-alpha', defaults: { hosting: 'elsewhere' } }),
      ),
    ).toThrow(/accepts hosting "aleph-alpha" or none/);
  });

  it('Azure answers are put in index order, whatever order data comes in', () => {
    const answer = openAiEmbed.parseResponse(
      {
        object: 'list',
        model: 'ada',
        data: [
          { index: 1, embedding: [2] },
          { index: 0, embedding: [1] },
        ],
        usage: { prompt_tokens: 5, total_tokens: 5 },
      },
      ['a', 'b'],
      request(['a', 'b']),
    );
    expect(answer).toStrictEqual({
      model: 'ada',
      embeddings: [{ embedding: [1] }, { embedding: [2] }],
      inputTokenCount: 5,
    });
  });

  it.each<[string, () => unknown, RegExp]>([
    [
      'watsonx without results',
      () => watsonxEmbed.parseResponse({ model_id: 'm' }, ['a'], request(['a'])),
      /the answer has no "results" array/,
    ],
    [
      'watsonx with a result lacking its vector',
      () => watsonxEmbed.parseResponse({ results: [{}] }, ['a'], request(['a'])),
      /results\[0\] has no "embedding"/,
    ],
    [
      'Azure with an index twice',
      () =>
        openAiEmbed.parseResponse(
          {
            data: [
              { index: 0, embedding: [1] },
              { index: 0, embedding: [1] },
            ],
          },
          ['a', 'b'],
          request(['a', 'b']),
        ),
      /index 0 appears twice/,
    ],
    [
      'Azure with an index out of range',
      () => openAiEmbed.parseResponse({ data: [{ index: 3, embedding: [1] }] }, ['a'], request(['a'])),
      /data\[0\] has index 3 for 1 inputs/,
    ],
    [
      'Azure with too few vectors',
      () => openAiEmbed.parseResponse({ data: [{ index: 0, embedding: [1] }] }, ['a', 'b'], request(['a', 'b'])),
      /data holds 1 embeddings for 2 inputs/,
    ],
    [
      'Aleph Alpha /embed with null embeddings',
      () => alephAlphaEmbed.parseResponse({ embeddings: null }, ['a'], request(['a'])),
      /no "embeddings" object/,
    ],
    [
      'Aleph Alpha /embed with a pooling that is not a vector',
      () => alephAlphaEmbed.parseResponse({ embeddings: { layer_1: { mean: 'x' } } }, ['a'], request(['a'])),
      /embeddings.layer_1.mean is not an array of numbers/,
    ],
    [
      'Aleph Alpha batch with too few vectors',
      () =>
        alephAlphaEmbed.parseResponse(
          { embeddings: [[1]] },
          ['a', 'b'],
          request(['a', 'b'], { representation: 'query' }),
        ),
      /embeddings holds 1 vectors for 2 prompts/,
    ],
  ])('%s: an unexpected answer', (_name, parse, message) => {
    expect(parse).toThrow(UnexpectedAnswer);
    expect(parse).toThrow(message);
  });
});
