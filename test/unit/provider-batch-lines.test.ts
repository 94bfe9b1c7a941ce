/**
 * The pieces of a provider batch job that are pure: a provider line read as a `--batch` line, custom_ids, the
 * split into parts within a service's limits, the answers of an output file, the batch objects the three services
 * share, and each adapter's batch calls (paths, versions, scope).
 */
import { describe, expect, it } from 'vitest';
import { endpointOfLineUrl, fromProviderLine, isProviderLine } from '../../src/batch/provider-line.js';
import { customIdOf } from '../../src/batch/provider/convert.js';
import { splitLines } from '../../src/batch/provider/submit.js';
import { readAnswers } from '../../src/batch/provider/results.js';
import { parseBatchObject, parseBatchPage } from '../../profiles/common/batch-objects.js';
import { azureOpenAiBatch, openAiBatch } from '../../profiles/openai/client/batch.js';
import { watsonxBatch } from '../../profiles/watsonx/client/batch.js';
import type { ResolvedProfile } from '../../src/contract/profile.js';

describe('a provider line as a --batch line', () => {
  it('completions: prompt and the sampling fields as canonical parameters; custom_id as the id', () => {
    const line = {
      custom_id: 'a',
      method: 'POST',
      url: '/v1/completions',
      body: { model: 'm', prompt: ['Hi'], max_tokens: 5, stop: '\n', seed: 3 },
    };
    expect(isProviderLine(line)).toBe(true);
    expect(fromProviderLine(line, 'completions')).toEqual({
      id: 'a',
      input: 'Hi',
      parameters: { max_new_tokens: 5, stop_sequences: ['\n'], random_seed: 3 },
    });
  });

  it('watsonx generation: input and parameters as they are', () => {
    const line = {
      custom_id: 'w',
      url: '/ml/v1/text/generation',
      body: { model_id: 'g', space_id: 's', input: 'x', parameters: { max_new_tokens: 9 } },
    };
    expect(fromProviderLine(line, 'completions')).toEqual({ id: 'w', input: 'x', parameters: { max_new_tokens: 9 } });
  });

  it('chat: messages, tools at the top, the rest as chat parameters', () => {
    const line = {
      custom_id: 'c',
      url: '/chat/completions',
      body: { model: 'd', messages: [{ role: 'user', content: 'q' }], temperature: 0.1, tools: [] },
    };
    expect(fromProviderLine(line, 'chat')).toEqual({
      id: 'c',
      messages: [{ role: 'user', content: 'q' }],
      tools: [],
      parameters: { temperature: 0.1 },
    });
  });

  it('refuses, per line: another command’s url, a list of texts, an unknown field, streaming, no custom_id', () => {
    const at =
      (body: Record<string, unknown>, url = '/v1/embeddings') =>
      () =>
        fromProviderLine({ custom_id: 'e', method: 'POST', url, body }, 'embeddings');
    expect(at({ input: 'x' }, '/v1/chat/completions')).toThrow(
      /is a chat completions request, which embed does not run \(use chat\)/,
    );
    expect(at({ input: ['x', 'y'] })).toThrow(/holds 2 texts/);
    expect(at({ input: 'x', dimensions: 3 })).toThrow(/"body.dimensions" has no counterpart/);
    expect(at({ input: 'x', stream: true })).toThrow(/stream/);
    expect(() => fromProviderLine({ url: '/v1/embeddings', body: { input: 'x' } }, 'embeddings')).toThrow(/custom_id/);
    expect(endpointOfLineUrl('/v2/whatever')).toBeUndefined();
  });

  it('custom_ids: the line’s own, its id, else line-N', () => {
    expect(customIdOf({ custom_id: 'x', url: '/v1/completions', body: {} }, 4)).toEqual({
      customId: 'x',
      idJson: '"x"',
    });
    expect(customIdOf({ input: 'a', id: 7 }, 4)).toEqual({ customId: '7', idJson: '7' });
    expect(customIdOf('a bare prompt', 4)).toEqual({ customId: 'line-4' });
  });
});

describe('splitting and reading answers', () => {
  const lines = Array.from({ length: 10 }, (_, i) => ({ line: i + 1, customId: `c${i}`, text: 'x'.repeat(9) }));
  it('consecutive parts within both the line and the byte limit', () => {
    expect(splitLines(lines, 4, 1000).map((p) => p.length)).toEqual([4, 4, 2]);
    // Each line is 10 bytes with its newline: 25 bytes hold two.
    expect(splitLines(lines, 100, 25).map((p) => p.length)).toEqual([2, 2, 2, 2, 2]);
  });

  it('answers by custom_id; a repeated one keeps the first and is counted', () => {
    const into = new Map();
    const text = [
      JSON.stringify({ id: 'r1', custom_id: 'a', response: { status_code: 200, body: { ok: 1 } }, error: null }),
      JSON.stringify({
        id: 'r2',
        custom_id: 'b',
        response: null,
        error: { code: 'batch_expired', message: 'expired' },
      }),
      JSON.stringify({ id: 'r3', custom_id: 'a', response: { status_code: 200, body: { ok: 2 } }, error: null }),
    ].join('\n');
    expect(readAnswers(text, 'batch_1', into)).toEqual({ duplicates: 1 });
    expect(into.get('a')).toEqual({ batch: 'batch_1', status: 200, body: { ok: 1 } });
    expect(into.get('b')).toEqual({ batch: 'batch_1', error: { code: 'batch_expired', message: 'expired' } });
  });
});

describe('the batch wire of the three adapters', () => {
  const profile = (url: string, extra: Partial<ResolvedProfile> = {}) =>
    ({ name: 'p', url, settings: {}, defaults: {}, ...extra }) as unknown as ResolvedProfile;

  it('batch objects and pages, OpenAI’s errors list and watsonx’s strings alike', () => {
    const b = parseBatchObject({
      id: 'batch_1',
      status: 'failed',
      request_counts: { total: 3, completed: 1, failed: 2 },
      errors: { object: 'list', data: [{ code: 'invalid_json_line', message: 'bad', line: 2 }] },
    });
    expect(b).toMatchObject({
      id: 'batch_1',
      status: 'failed',
      request_counts: { total: 3, completed: 1, failed: 2 },
      errors: ['line 2: bad (invalid_json_line)'],
    });
    expect(parseBatchObject({ id: 'b', status: 'failed', errors: ['line 1: x'] }).errors).toEqual(['line 1: x']);
    expect(parseBatchPage({ data: [{ id: 'b', status: 'completed' }], has_more: true, last_id: 'b' }).next).toBe('b');
    expect(() => parseBatchObject({ status: 'x' })).toThrow(/no "id"/);
  });

  it('OpenAI: /v1 routes whether or not the profile URL ends in /v1', () => {
    expect(openAiBatch.retrieve(profile('http://h/v1'), {}, 'b1').url).toBe('http://h/v1/batches/b1');
    expect(openAiBatch.list(profile('http://h'), {}, { limit: 5, after: 'b9' }).url).toBe(
      'http://h/v1/batches?limit=5&after=b9',
    );
    const up = openAiBatch.upload(profile('http://h'), {}, 'in.jsonl', '{"x":1}\n');
    expect(up.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(up.body).toContain('name="purpose"\r\n\r\nbatch\r\n');
  });

  it('Azure: an api-version with batches, the profile’s when it has them; v1 without one', () => {
    expect(azureOpenAiBatch.retrieve(profile('https://r.openai.azure.com/openai'), {}, 'b').url).toBe(
      'https://r.openai.azure.com/openai/batches/b?api-version=2024-10-21',
    );
    expect(azureOpenAiBatch.cancel(profile('https://r', { apiVersion: '2025-01-01-preview' }), {}, 'b').url).toBe(
      'https://r/openai/batches/b/cancel?api-version=2025-01-01-preview',
    );
    expect(azureOpenAiBatch.content(profile('https://r', { apiVersion: 'v1' }), {}, 'f').url).toBe(
      'https://r/openai/v1/files/f/content',
    );
    expect(azureOpenAiBatch.lineUrl('chat', profile('https://r'))).toBe('/chat/completions');
  });

  it('watsonx: version, and the scope in the header and the query; none is a usage error', () => {
    const spec = watsonxBatch.create(
      profile('https://w'),
      { project_id: 'pr' },
      { inputFileId: 'f', endpoint: 'chat', window: '24h' },
    );
    expect(spec.url).toBe('https://w/ml/v1/batches?version=2024-05-01&project_id=pr');
    expect(spec.headers['x-ibm-project-id']).toBe('pr');
    expect(JSON.parse(spec.body!)).toEqual({
      input_file_id: 'f',
      endpoint: '/ml/v1/text/chat',
      completion_window: '24h',
    });
    expect(() => watsonxBatch.retrieve(profile('https://w'), {}, 'b')).toThrow(/needs space_id or project_id/);
    expect(
      watsonxBatch.retrieve(profile('https://w', { settings: { spaceId: 's' } } as never), {}, 'b').headers[
        'x-ibm-space-id'
      ],
    ).toBe('s');
  });
});
