import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { UsageError } from '../../src/contract/errors.js';
import { openInferenceGenerate } from '../../profiles/open-inference/client/generate.js';
import type { GenerateTarget } from '../../src/contract/adapter.js';
import { assertValid, oipValidators } from '../contract/oip-openapi.js';
import { testProfile } from '../helpers/profile.js';

const profile = testProfile({ provider: 'open-inference', url: 'http://triton.test:8000' });
const build = (request: CanonicalRequest, target: GenerateTarget, extra?: Record<string, unknown>, p = profile) =>
  openInferenceGenerate.build(request, target, p, extra);
/** The body, after checking it against the document's request schema. */
const wireBody = (spec: { body?: string }) =>
  assertValid(oipValidators().generateRequest, JSON.parse(spec.body!), 'request body');
/** The versioned path template of the document, with its parameters as one segment each. */
const SPEC_PATH = /^\/v2\/models\/[^/]+\/versions\/[^/]+\/generate(_stream)?$/;

describe('the wire request', () => {
  test('a representative flag set: exact path, headers and body', () => {
    const spec = build(
      {
        input: 'Tell me a story',
        parameters: {
          max_new_tokens: 40,
          stop_sequences: ['\n\n', 'END'],
          temperature: 0.7,
          top_p: 0.9,
          return_options: { generated_tokens: true, token_logprobs: true },
        },
      },
      { deployment: 'llama', stream: false },
    );
    expect(spec).toEqual({
      method: 'POST',
      url: 'http://triton.test:8000/v2/models/llama/generate',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        text_input: 'Tell me a story',
        parameters: { max_tokens: 40, stop: ['\n\n', 'END'], temperature: 0.7, top_p: 0.9, details: true },
      }),
    });
    wireBody(spec);
  });

  test('a stream goes to generate_stream and accepts an event stream', () => {
    const spec = build({ input: 'Hi', parameters: { max_new_tokens: 3 } }, { model: 'llama', stream: true });
    expect(spec.url).toBe('http://triton.test:8000/v2/models/llama/generate_stream');
    expect(spec.headers).toEqual({ 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(wireBody(spec)).toEqual({ text_input: 'Hi', parameters: { max_tokens: 3, details: true } });
  });

  test.each<[string, GenerateTarget, Partial<Parameters<typeof testProfile>[0]>, string]>([
    [
      '--id-or-name, no version: the unversioned path',
      { deployment: 'llama', stream: false },
      {},
      '/v2/models/llama/generate',
    ],
    [
      '--model wins over --id-or-name',
      { model: 'mistral', deployment: 'llama', stream: false },
      {},
      '/v2/models/mistral/generate',
    ],
    ['the profile default model', { stream: true }, { defaults: { model: 'gpt2' } }, '/v2/models/gpt2/generate_stream'],
    [
      '--model-version: the versioned path',
      { deployment: 'llama', modelVersion: '3', stream: false },
      {},
      '/v2/models/llama/versions/3/generate',
    ],
    [
      'a model:version suffix: the versioned path',
      { deployment: 'llama:2', stream: true },
      {},
      '/v2/models/llama/versions/2/generate_stream',
    ],
    [
      '--model-version takes the name whole, colon and all',
      { model: 'org:llama', modelVersion: '1', stream: false },
      {},
      '/v2/models/org%3Allama/versions/1/generate',
    ],
    [
      'a trailing colon is part of the name, not an empty version',
      { model: 'llama:', stream: false },
      {},
      '/v2/models/llama%3A/generate',
    ],
    [
      'names and versions are escaped as one path segment',
      { model: 'my model/x', modelVersion: 'v 1', stream: false },
      {},
      '/v2/models/my%20model%2Fx/versions/v%201/generate',
    ],
  ])('%s', (_name, target, overrides, path) => {
    const spec = build({ input: 'Hi' }, target, undefined, testProfile({ ...profile, ...overrides }));
    expect(spec.url).toBe(`http://triton.test:8000${path}`);
    if (path.includes('/versions/')) expect(new URL(spec.url).pathname).toMatch(SPEC_PATH);
    wireBody(spec);
  });

  test('without any model name it is a usage error', () => {
    expect(() => build({ input: 'Hi' }, { stream: false })).toThrow(UsageError);
    expect(() => build({ input: 'Hi' }, { stream: false })).toThrow(/open-inference needs a model name/);
  });

  test('greedy decoding is temperature 0, whatever temperature was given', () => {
    const body = wireBody(
      build(
        { input: 'Hi', parameters: { decoding_method: 'greedy', temperature: 0.9 } },
        { model: 'm', stream: false },
      ),
    );
    expect(body.parameters).toEqual({ temperature: 0, details: true });
  });

  test('sampling adds nothing of its own', () => {
    const body = wireBody(
      build({ input: 'Hi', parameters: { decoding_method: 'sample' } }, { model: 'm', stream: false }),
    );
    expect(body.parameters).toEqual({ details: true });
  });

  test('details is always asked for: the finish reason comes only with it', () => {
    const body = wireBody(build({ input: 'Hi' }, { model: 'm', stream: false }));
    expect(body).toEqual({ text_input: 'Hi', parameters: { details: true } });
  });

  test('an empty stop list is left out', () => {
    const body = wireBody(build({ input: 'Hi', parameters: { stop_sequences: [] } }, { model: 'm', stream: false }));
    expect(body.parameters).toEqual({ details: true });
  });

  test('extra parameters the profile allows go into parameters under their wire names', () => {
    const body = wireBody(
      build(
        {
          input: 'Hi',
          parameters: {
            min_new_tokens: 2,
            top_k: 50,
            random_seed: 7,
            repetition_penalty: 1.2,
            typical_p: 0.5,
            truncate_input_tokens: 100,
            length_penalty: { decay_factor: 1.5, start_index: 4 },
            include_stop_sequence: false,
            return_options: { token_ranks: true, top_n_tokens: 2 },
          },
          moderations: { hap: { input: { enabled: true } } },
        },
        { model: 'm', stream: false },
      ),
    );
    expect(body.parameters).toEqual({
      min_new_tokens: 2,
      top_k: 50,
      seed: 7,
      repetition_penalty: 1.2,
      typical_p: 0.5,
      truncate_input_tokens: 100,
      length_penalty: { decay_factor: 1.5, start_index: 4 },
      include_stop_sequence: false,
      token_ranks: true,
      moderations: { hap: { input: { enabled: true } } },
      details: true,
    });
  });

  test('--extra is merged last, key by key inside parameters', () => {
    const spec = build(
      { input: 'Hi', parameters: { max_new_tokens: 5, temperature: 0.5 } },
      { model: 'm', stream: false },
      {
        parameters: { beam_width: 2, temperature: 0.1 },
        request_id: 'abc',
      },
    );
    expect(wireBody(spec)).toEqual({
      text_input: 'Hi',
      parameters: { max_tokens: 5, temperature: 0.1, details: true, beam_width: 2 },
      request_id: 'abc',
    });
  });

  test('max_new_tokens 0 is below the protocol minimum: a usage error naming the limit and the provider', () => {
    expect(() => build({ input: 'Hi', parameters: { max_new_tokens: 0 } }, { model: 'm', stream: false })).toThrow(
      new UsageError('open-inference needs max_new_tokens of at least 1 (its max_tokens minimum), got 0'),
    );
  });

  test('any number of stop sequences is fine: the protocol sets no limit', () => {
    const stops = Array.from({ length: 12 }, (_, i) => `s${i}`);
    expect(
      wireBody(build({ input: 'Hi', parameters: { stop_sequences: stops } }, { model: 'm', stream: false })).parameters,
    ).toMatchObject({ stop: stops });
    expect(openInferenceGenerate.capabilities.maxStopSequences).toBeUndefined();
  });
});

describe('capabilities (docs/design.md §3, open-inference column)', () => {
  const caps = openInferenceGenerate.capabilities;
  test.each([
    ['max_new_tokens', 'native'],
    ['stop_sequences', 'native'],
    ['temperature', 'native'],
    ['top_p', 'native'],
    ['decoding_method', 'native'],
    ['return_options', 'native'],
    ['min_new_tokens', 'extra'],
    ['top_k', 'extra'],
    ['random_seed', 'extra'],
    ['repetition_penalty', 'extra'],
    ['typical_p', 'extra'],
    ['truncate_input_tokens', 'extra'],
    ['length_penalty', 'extra'],
    ['include_stop_sequence', 'extra'],
    ['time_limit', 'client'],
    ['prompt_variables', 'client'],
  ] as const)('parameter %s is %s', (key, support) => {
    expect(caps.parameters[key]).toBe(support);
  });

  test.each([
    ['generated_tokens', 'native'],
    ['token_logprobs', 'native'],
    ['top_n_tokens', 'native'],
    ['token_ranks', 'extra'],
    ['input_text', 'unsupported'],
    ['input_tokens', 'unsupported'],
  ] as const)('return option %s is %s', (key, support) => {
    expect(caps.returnOptions[key]).toBe(support);
  });

  test('moderations are extra, several choices unsupported, streaming native', () => {
    expect(caps.moderations).toBe('extra');
    expect(caps.choices).toBe('unsupported');
    expect(caps.streaming).toBe('native');
  });

  test('the profile names itself', () => {
    expect(openInferenceGenerate.kind).toBe('open-inference');
    expect(openInferenceGenerate.displayName).toBe('Open Inference');
  });
});
