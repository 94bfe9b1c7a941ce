import { describe, expect, test } from 'vitest';
import type { CanonicalRequest } from '../../src/contract/canonical.js';
import { UsageError } from '../../src/contract/errors.js';
import { azureOpenAiGenerate, openAiGenerate } from '../../profiles/openai/client/generate.js';
import type { GenerateTarget } from '../../src/contract/adapter.js';
import { testProfile } from '../helpers/profile.js';
import { completionsRequestSchema, schemaErrors } from '../contract/azure-openapi.js';

const azure = testProfile({ provider: 'azure-openai', url: 'https://myres.openai.azure.com' });
const openai = testProfile({ provider: 'openai', url: 'http://localhost:8000' });
const plain: GenerateTarget = { deployment: 'davinci-prod', stream: false };

/** A representative flag set: every native parameter and return option at once. */
const representative: CanonicalRequest = {
  input: 'Write a haiku about rivers',
  parameters: {
    decoding_method: 'sample',
    max_new_tokens: 40,
    temperature: 0.7,
    top_p: 0.9,
    stop_sequences: ['\n\n', 'END'],
    return_options: { input_text: true, generated_tokens: true, token_logprobs: true, top_n_tokens: 3 },
  },
  n: 2,
};

function bodyOf(spec: { body?: string }): Record<string, unknown> {
  return JSON.parse(spec.body ?? 'null') as Record<string, unknown>;
}

describe('azure-openai request mapping', () => {
  test('a representative flag set becomes exactly this wire request, valid against the OpenAPI document', () => {
    const spec = azureOpenAiGenerate.build(representative, plain, azure);
    expect(spec).toEqual({
      method: 'POST',
      url: 'https://myres.openai.azure.com/openai/deployments/davinci-prod/completions?api-version=2022-03-01-preview',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        prompt: 'Write a haiku about rivers',
        max_tokens: 40,
        temperature: 0.7,
        top_p: 0.9,
        n: 2,
        logprobs: 3,
        echo: true,
        stop: ['\n\n', 'END'],
      }),
    });
    expect(schemaErrors(completionsRequestSchema(), bodyOf(spec))).toBe('');
  });

  test('streaming adds stream: true and asks for an event stream', () => {
    const spec = azureOpenAiGenerate.build(
      { input: 'Hi', parameters: { max_new_tokens: 5 } },
      { ...plain, stream: true },
      azure,
    );
    expect(spec.headers).toEqual({ 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(bodyOf(spec)).toEqual({ prompt: 'Hi', max_tokens: 5, stream: true });
    expect(schemaErrors(completionsRequestSchema(), bodyOf(spec))).toBe('');
  });

  test('greedy decoding is temperature 0 and drops top_p', () => {
    const spec = azureOpenAiGenerate.build(
      { input: 'Hi', parameters: { decoding_method: 'greedy', temperature: 0.9, top_p: 0.5 } },
      plain,
      azure,
    );
    expect(bodyOf(spec)).toEqual({ prompt: 'Hi', temperature: 0 });
  });

  test.each([
    { options: { generated_tokens: true }, logprobs: 0, echo: undefined },
    { options: { token_logprobs: true }, logprobs: 0, echo: undefined },
    { options: { generated_tokens: true, top_n_tokens: 5 }, logprobs: 5, echo: undefined },
    { options: { top_n_tokens: 2 }, logprobs: 2, echo: undefined },
    { options: { generated_tokens: false, top_n_tokens: 0 }, logprobs: undefined, echo: undefined },
    { options: { input_text: true }, logprobs: undefined, echo: true },
  ])('return options $options → logprobs $logprobs, echo $echo', ({ options, logprobs, echo }) => {
    const body = bodyOf(
      azureOpenAiGenerate.build({ input: 'Hi', parameters: { return_options: options } }, plain, azure),
    );
    expect(body.logprobs).toBe(logprobs);
    expect(body.echo).toBe(echo);
    expect(schemaErrors(completionsRequestSchema(), body)).toBe('');
  });

  test('the api version comes from the profile, and a URL ending in /openai is not doubled', () => {
    const profile = testProfile({
      provider: 'azure-openai',
      url: 'https://myres.openai.azure.com/openai/',
      apiVersion: '2024-10-21',
    });
    const spec = azureOpenAiGenerate.build({ input: 'Hi' }, { deployment: 'my dep', stream: false }, profile);
    expect(spec.url).toBe(
      'https://myres.openai.azure.com/openai/deployments/my%20dep/completions?api-version=2024-10-21',
    );
  });

  test('the deployment falls back to --model, then to the profile default model; none is a usage error', () => {
    const byModel = azureOpenAiGenerate.build({ input: 'Hi' }, { model: 'gpt-35-instruct', stream: false }, azure);
    expect(byModel.url).toContain('/openai/deployments/gpt-35-instruct/completions');
    expect(bodyOf(byModel).model).toBeUndefined();
    const byDefault = azureOpenAiGenerate.build(
      { input: 'Hi' },
      { stream: false },
      testProfile({ ...azure, defaults: { model: 'dflt' } }),
    );
    expect(byDefault.url).toContain('/openai/deployments/dflt/completions');
    expect(() => azureOpenAiGenerate.build({ input: 'Hi' }, { stream: false }, azure)).toThrow(
      /azure-openai needs a deployment/,
    );
  });

  test("random_seed (--seed, --parameters-random-seed) is the body's seed, on both kinds", () => {
    const request = { input: 'Hi', parameters: { random_seed: 42 } };
    expect(bodyOf(azureOpenAiGenerate.build(request, { deployment: 'd', stream: false }, azure)).seed).toBe(42);
    expect(
      bodyOf(
        openAiGenerate.build(
          request,
          { model: 'm', stream: true },
          testProfile({ provider: 'openai', url: 'http://h' }),
        ),
      ).seed,
    ).toBe(42);
    expect(
      bodyOf(azureOpenAiGenerate.build({ input: 'Hi' }, { deployment: 'd', stream: false }, azure)),
    ).not.toHaveProperty('seed');
  });

  test('--extra fields are merged into the body last', () => {
    const spec = azureOpenAiGenerate.build({ input: 'Hi', parameters: { temperature: 0.5 } }, plain, azure, {
      temperature: 1.2,
      presence_penalty: 0.5,
      user: 'me',
    });
    expect(bodyOf(spec)).toEqual({ prompt: 'Hi', temperature: 1.2, presence_penalty: 0.5, user: 'me' });
    expect(schemaErrors(completionsRequestSchema(), bodyOf(spec))).toBe('');
  });

  test('no auth headers are set by the mapping (the authenticator adds them)', () => {
    const spec = azureOpenAiGenerate.build(
      representative,
      plain,
      testProfile({ ...azure, auth: { type: 'api-key', key: 'secret' } }),
    );
    expect(Object.keys(spec.headers).sort()).toEqual(['accept', 'content-type']);
    expect(JSON.stringify(spec)).not.toContain('secret');
  });
});

describe('provider limits are usage errors before anything is sent', () => {
  test.each([
    {
      what: 'five stop sequences',
      request: { input: 'Hi', parameters: { stop_sequences: ['a', 'b', 'c', 'd', 'e'] } },
      target: plain,
      extra: undefined,
      message: 'azure-openai accepts at most 4 stop sequences, got 5',
    },
    {
      what: 'five stop sequences through --extra',
      request: { input: 'Hi' },
      target: plain,
      extra: { stop: ['a', 'b', 'c', 'd', 'e'] },
      message: 'azure-openai accepts at most 4 stop sequences, got 5',
    },
    {
      what: 'best_of with streaming',
      request: { input: 'Hi' },
      target: { ...plain, stream: true },
      extra: { best_of: 3 },
      message:
        'azure-openai cannot stream with best_of 3: it picks the best completion only after generating all of them',
    },
    {
      what: 'best_of below n',
      request: { input: 'Hi', n: 4 },
      target: plain,
      extra: { best_of: 2 },
      message: 'azure-openai needs best_of to be at least n: best_of is 2, n is 4',
    },
  ])('$what', ({ request, target, extra, message }) => {
    const build = () => azureOpenAiGenerate.build(request, target, azure, extra);
    expect(build).toThrow(UsageError);
    expect(build).toThrow(message);
  });

  test('four stop sequences, and best_of 1 with streaming, are fine', () => {
    const four = azureOpenAiGenerate.build(
      { input: 'Hi', parameters: { stop_sequences: ['a', 'b', 'c', 'd'] } },
      plain,
      azure,
    );
    expect(bodyOf(four).stop).toEqual(['a', 'b', 'c', 'd']);
    const bestOfOne = azureOpenAiGenerate.build({ input: 'Hi' }, { ...plain, stream: true }, azure, {
      best_of: 1,
    });
    expect(bodyOf(bestOfOne)).toMatchObject({ stream: true, best_of: 1 });
  });

  test('the openai kind names itself in its limits', () => {
    expect(() =>
      openAiGenerate.build(
        { input: 'Hi', parameters: { stop_sequences: ['a', 'b', 'c', 'd', 'e'] } },
        { model: 'm', stream: false },
        openai,
      ),
    ).toThrow('openai accepts at most 4 stop sequences, got 5');
  });
});

describe('openai request mapping', () => {
  test('the same body on {url}/v1/completions with the model first, no api-version', () => {
    const spec = openAiGenerate.build(representative, { model: 'gpt-3.5-turbo-instruct', stream: false }, openai);
    expect(spec.url).toBe('http://localhost:8000/v1/completions');
    expect(spec.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    const azureBody = bodyOf(azureOpenAiGenerate.build(representative, plain, azure));
    expect(spec.body).toBe(JSON.stringify({ model: 'gpt-3.5-turbo-instruct', ...azureBody }));
    expect(schemaErrors(completionsRequestSchema(), bodyOf(spec))).toBe('');
  });

  test.each([
    ['http://localhost:8000/v1', 'http://localhost:8000/v1/completions'],
    ['http://localhost:8000/v1/', 'http://localhost:8000/v1/completions'],
    ['https://api.openai.com', 'https://api.openai.com/v1/completions'],
    ['http://localhost:11434/ollama', 'http://localhost:11434/ollama/v1/completions'],
  ])('base URL %s → %s', (url, expected) => {
    const spec = openAiGenerate.build(
      { input: 'Hi' },
      { model: 'm', stream: false },
      testProfile({ provider: 'openai', url }),
    );
    expect(spec.url).toBe(expected);
  });

  test('the model comes from --model, --id-or-name or defaults.model; none is a usage error', () => {
    expect(bodyOf(openAiGenerate.build({ input: 'Hi' }, { deployment: 'llama', stream: false }, openai)).model).toBe(
      'llama',
    );
    expect(
      bodyOf(
        openAiGenerate.build({ input: 'Hi' }, { stream: false }, testProfile({ ...openai, defaults: { model: 'd' } })),
      ).model,
    ).toBe('d');
    expect(() => openAiGenerate.build({ input: 'Hi' }, { stream: false }, openai)).toThrow(/openai needs a model/);
  });
});

describe('capabilities follow docs/design.md §3 (azure-openai column)', () => {
  const expected = {
    decoding_method: 'native',
    max_new_tokens: 'native',
    stop_sequences: 'native',
    temperature: 'native',
    top_p: 'native',
    return_options: 'native',
    include_stop_sequence: 'native',
    time_limit: 'client',
    prompt_variables: 'client',
    min_new_tokens: 'unsupported',
    top_k: 'unsupported',
    random_seed: 'native',
    repetition_penalty: 'unsupported',
    typical_p: 'unsupported',
    truncate_input_tokens: 'unsupported',
    length_penalty: 'unsupported',
  };
  test.each([azureOpenAiGenerate, openAiGenerate])('$kind', (profile) => {
    expect(profile.capabilities.parameters).toEqual(expected);
    expect(profile.capabilities.returnOptions).toEqual({
      input_text: 'native',
      generated_tokens: 'native',
      token_logprobs: 'native',
      top_n_tokens: 'native',
      input_tokens: 'unsupported',
      token_ranks: 'unsupported',
    });
    expect(profile.capabilities).toMatchObject({
      moderations: 'unsupported',
      choices: 'native',
      maxStopSequences: 4,
      streaming: 'native',
    });
  });

  test('names and versions', () => {
    expect(azureOpenAiGenerate).toMatchObject({
      kind: 'azure-openai',
      displayName: 'Azure OpenAI',
      defaultApiVersion: '2022-03-01-preview',
    });
    expect(openAiGenerate).toMatchObject({ kind: 'openai', displayName: 'OpenAI-compatible' });
    expect(openAiGenerate.defaultApiVersion).toBeUndefined();
  });
});
