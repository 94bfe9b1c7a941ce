import { describe, expect, test } from 'vitest';
import type { CanonicalParameters, CanonicalRequest } from '../../src/contract/canonical.js';
import type { ResolvedProfile } from '../../src/contract/profile.js';
import { UsageError } from '../../src/contract/errors.js';
import { checkSupport } from '../../src/generation/support.js';
import { alephAlphaGenerate } from '../../profiles/aleph-alpha/client/generate.js';
import { DEFAULT_MAXIMUM_TOKENS } from '../../profiles/aleph-alpha/client/request.js';
import type { GenerateTarget } from '../../src/contract/adapter.js';
import { alephAlphaCompletionRequestSchema } from '../contract/aleph-alpha-schemas.js';
import { testProfile } from '../helpers/profile.js';

const aaProfile = (overrides: Partial<ResolvedProfile> = {}) =>
  testProfile({
    provider: 'aleph-alpha',
    url: 'https://api.aleph-alpha.test',
    defaults: { model: 'luminous-base' },
    ...overrides,
  });

const plain: GenerateTarget = { stream: false };

/** Builds the wire request; its body must pass the 1.16 contract. */
function build(
  request: CanonicalRequest,
  target: GenerateTarget = plain,
  profile = aaProfile(),
  extra?: Record<string, unknown>,
) {
  const spec = alephAlphaGenerate.build(request, target, profile, extra);
  const body = JSON.parse(spec.body!) as Record<string, unknown>;
  const parsed = alephAlphaCompletionRequestSchema.safeParse(body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  return { spec, body };
}

const withParameters = (parameters: CanonicalParameters, extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  input: 'An apple a day',
  parameters,
  ...extra,
});

describe('the wire request', () => {
  test('a representative flag set maps to the exact path, query, headers and body', () => {
    const request: CanonicalRequest = {
      input: 'An apple a day',
      n: 2,
      parameters: {
        max_new_tokens: 20,
        min_new_tokens: 2,
        stop_sequences: ['\n', '.'],
        temperature: 0.7,
        top_k: 40,
        top_p: 0.9,
        return_options: { input_text: true, token_logprobs: true, top_n_tokens: 2 },
      },
    };
    const profile = aaProfile({ defaults: { model: 'luminous-base', hosting: 'aleph-alpha' } });
    const { spec, body } = build(request, { model: 'luminous-extended', stream: false }, profile, {
      nice: true,
      presence_penalty: 0.5,
    });
    expect(spec.method).toBe('POST');
    expect(spec.url).toBe('https://api.aleph-alpha.test/complete?nice=true');
    expect(spec.headers).toStrictEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(body).toStrictEqual({
      model: 'luminous-extended',
      prompt: 'An apple a day',
      hosting: 'aleph-alpha',
      maximum_tokens: 20,
      minimum_tokens: 2,
      temperature: 0.7,
      top_k: 40,
      top_p: 0.9,
      stop_sequences: ['\n', '.'],
      echo: true,
      log_probs: 2,
      tokens: true,
      n: 2,
      presence_penalty: 0.5,
    });
  });

  test('a bare request is model, prompt and the default maximum_tokens, with no query and no auth header', () => {
    const { spec, body } = build({ input: 'Hi' });
    expect(spec.url).toBe('https://api.aleph-alpha.test/complete');
    expect(Object.keys(spec.headers)).not.toContain('authorization');
    expect(body).toStrictEqual({ model: 'luminous-base', prompt: 'Hi', maximum_tokens: DEFAULT_MAXIMUM_TOKENS });
    expect(DEFAULT_MAXIMUM_TOKENS).toBe(64);
  });

  test('a request without input sends the empty prompt (unconditional completion)', () => {
    expect(build({ parameters: { max_new_tokens: 3 } }).body.prompt).toBe('');
  });
});

describe('model', () => {
  test.each([
    ['--model wins', { model: 'luminous-supreme', deployment: 'luminous-extended' }, 'luminous-supreme'],
    ['--id-or-name next', { deployment: 'luminous-extended' }, 'luminous-extended'],
    ['the profile default last', {}, 'luminous-base'],
  ])('%s', (_name, target, model) => {
    expect(build({ input: 'x' }, { ...target, stream: false }).body.model).toBe(model);
  });

  test('no model anywhere is a usage error', () => {
    expect(() => build({ input: 'x' }, plain, aaProfile({ defaults: {} }))).toThrow(UsageError);
    expect(() => build({ input: 'x' }, plain, aaProfile({ defaults: {} }))).toThrow(/aleph-alpha needs a model/);
  });
});

describe('parameters', () => {
  test.each<[string, CanonicalParameters, Record<string, unknown>]>([
    ['max_new_tokens → maximum_tokens', { max_new_tokens: 5 }, { maximum_tokens: 5 }],
    ['min_new_tokens → minimum_tokens', { min_new_tokens: 3 }, { minimum_tokens: 3 }],
    ['stop_sequences → stop_sequences', { stop_sequences: ['END'] }, { stop_sequences: ['END'] }],
    ['an empty stop list is left out', { stop_sequences: [] }, {}],
    [
      'temperature, top_k, top_p as they are',
      { temperature: 0.5, top_k: 3, top_p: 0.8 },
      { temperature: 0.5, top_k: 3, top_p: 0.8 },
    ],
    [
      'greedy → temperature 0, sampling knobs left out',
      { decoding_method: 'greedy', temperature: 0.9, top_k: 5, top_p: 0.5 },
      { temperature: 0 },
    ],
    [
      "sample without a temperature → 1 (AA's default would be argmax)",
      { decoding_method: 'sample' },
      { temperature: 1 },
    ],
    ['sample keeps a given temperature', { decoding_method: 'sample', temperature: 0.3 }, { temperature: 0.3 }],
    [
      'include_stop_sequence is not a wire field',
      { include_stop_sequence: true, stop_sequences: ['.'] },
      { stop_sequences: ['.'] },
    ],
    ['return_options.generated_tokens → tokens', { return_options: { generated_tokens: true } }, { tokens: true }],
    [
      'return_options.token_logprobs → log_probs 0 + tokens',
      { return_options: { token_logprobs: true } },
      { log_probs: 0, tokens: true },
    ],
    [
      'return_options.top_n_tokens → log_probs N + tokens',
      { return_options: { top_n_tokens: 3 } },
      { log_probs: 3, tokens: true },
    ],
    [
      'top_n_tokens 0 with token_logprobs → log_probs 0',
      { return_options: { token_logprobs: true, top_n_tokens: 0 } },
      { log_probs: 0, tokens: true },
    ],
    ['return_options.input_text → echo', { return_options: { input_text: true } }, { echo: true }],
    [
      'return options asking for nothing send nothing',
      { return_options: { input_text: false, generated_tokens: false } },
      {},
    ],
  ])('%s', (_name, parameters, expected) => {
    const { body } = build(withParameters(parameters));
    const { model, prompt, maximum_tokens: max, ...rest } = body;
    expect({ model, prompt }).toEqual({ model: 'luminous-base', prompt: 'An apple a day' });
    expect(typeof max).toBe('number');
    const expectedRest = { ...expected };
    if ('maximum_tokens' in expectedRest) {
      expect(max).toBe(expectedRest.maximum_tokens);
      delete expectedRest.maximum_tokens;
    }
    expect(rest).toStrictEqual(expectedRest);
  });

  test.each([
    [undefined, undefined],
    [1, undefined],
    [3, 3],
  ])('n %s → body n %s', (n, wire) => {
    expect(build({ input: 'x', ...(n !== undefined ? { n } : {}) }).body.n).toBe(wire);
  });
});

describe('--extra', () => {
  test('nice: true becomes ?nice=true and stays out of the body', () => {
    const { spec, body } = build({ input: 'x' }, plain, aaProfile(), { nice: true });
    expect(new URL(spec.url).searchParams.get('nice')).toBe('true');
    expect(body).not.toHaveProperty('nice');
  });

  test('nice: false sends nothing', () => {
    const { spec, body } = build({ input: 'x' }, plain, aaProfile(), { nice: false });
    expect(spec.url).toBe('https://api.aleph-alpha.test/complete');
    expect(body).not.toHaveProperty('nice');
  });

  test('a nice that is not a boolean is a usage error', () => {
    expect(() => build({ input: 'x' }, plain, aaProfile(), { nice: 'yes' })).toThrow(
      /--extra nice must be true or false/,
    );
  });

  test('extra fields are merged into the body last', () => {
    const { body } = build(withParameters({ max_new_tokens: 5 }), plain, aaProfile(), {
      maximum_tokens: 9,
      disable_optimizations: true,
    });
    expect(body).toMatchObject({ maximum_tokens: 9, disable_optimizations: true });
  });

  test('stream cannot be set through --extra', () => {
    expect(() => build({ input: 'x' }, plain, aaProfile(), { stream: true })).toThrow(/--extra cannot set stream/);
  });
});

describe('provider limits are usage errors before anything is sent', () => {
  test.each<[string, CanonicalRequest, Record<string, unknown> | undefined, RegExp]>([
    ['best_of above 100', { input: 'x' }, { best_of: 101 }, /aleph-alpha accepts best_of from 1 to 100, got 101/],
    ['best_of not an integer', { input: 'x' }, { best_of: 2.5 }, /best_of from 1 to 100, got 2.5/],
    [
      'best_of not above n',
      { input: 'x', n: 2 },
      { best_of: 2 },
      /aleph-alpha needs best_of \(2\) greater than n \(2\)/,
    ],
    [
      'minimum_tokens above maximum_tokens',
      withParameters({ max_new_tokens: 5, min_new_tokens: 6 }),
      undefined,
      /minimum_tokens \(6\) at most maximum_tokens \(5\)/,
    ],
    [
      'minimum_tokens above the default maximum',
      withParameters({ min_new_tokens: 65 }),
      undefined,
      /minimum_tokens \(65\) at most maximum_tokens \(64\)/,
    ],
  ])('%s', (_name, request, extra, message) => {
    expect(() => alephAlphaGenerate.build(request, plain, aaProfile(), extra)).toThrow(UsageError);
    expect(() => alephAlphaGenerate.build(request, plain, aaProfile(), extra)).toThrow(message);
  });

  test('the default-maximum case says how to raise it', () => {
    try {
      alephAlphaGenerate.build(withParameters({ min_new_tokens: 65 }), plain, aaProfile());
      expect.unreachable();
    } catch (e) {
      expect((e as UsageError).hint).toMatch(/maximum_tokens defaults to 64/);
    }
  });

  test.each([
    [{ best_of: 3 }, 2],
    [{ best_of: 1 }, 1],
    [{ best_of: null }, 3],
  ])('best_of %j with n %i is accepted', (extra, n) => {
    expect(() => build({ input: 'x', n }, plain, aaProfile(), extra)).not.toThrow();
  });

  test('hosting other than "aleph-alpha" is a usage error naming the profile setting', () => {
    expect(() =>
      build({ input: 'x' }, plain, aaProfile({ defaults: { model: 'luminous-base', hosting: 'cloud' } })),
    ).toThrow(/aleph-alpha accepts hosting "aleph-alpha" or none, got "cloud" \(profile defaults.hosting\)/);
  });
});

describe('streaming follows the profile', () => {
  test.each([
    ['--stream and a streaming profile → stream: true, text/event-stream', true, true, true],
    ['--stream but a 1.16 profile → a plain JSON request (the CLI then shows the whole answer)', true, false, false],
    ['no --stream on a streaming profile → plain', false, true, false],
  ])('%s', (_name, wanted, profileStreams, streams) => {
    const { spec, body } = build(
      { input: 'x' },
      { stream: wanted },
      aaProfile({ settings: { streaming: profileStreams } }),
    );
    expect(spec.headers.accept).toBe(streams ? 'text/event-stream' : 'application/json');
    expect(body.stream).toBe(streams ? true : undefined);
  });
});

describe('capabilities (docs/design.md §3, aleph-alpha column)', () => {
  const caps = alephAlphaGenerate.capabilities;

  test('identity', () => {
    expect(alephAlphaGenerate.kind).toBe('aleph-alpha');
    expect(alephAlphaGenerate.displayName).toBe('Aleph Alpha');
  });

  test.each([
    ['decoding_method', 'native'],
    ['max_new_tokens', 'native'],
    ['min_new_tokens', 'native'],
    ['stop_sequences', 'native'],
    ['temperature', 'native'],
    ['top_p', 'native'],
    ['top_k', 'native'],
    ['return_options', 'native'],
    ['include_stop_sequence', 'native'],
    ['time_limit', 'client'],
    ['prompt_variables', 'client'],
    ['random_seed', 'unsupported'],
    ['repetition_penalty', 'unsupported'],
    ['typical_p', 'unsupported'],
    ['truncate_input_tokens', 'unsupported'],
    ['length_penalty', 'unsupported'],
  ] as const)('parameter %s is %s', (key, support) => {
    expect(caps.parameters[key]).toBe(support);
  });

  test.each([
    ['input_text', 'native'],
    ['generated_tokens', 'native'],
    ['token_logprobs', 'native'],
    ['top_n_tokens', 'native'],
    ['input_tokens', 'unsupported'],
    ['token_ranks', 'unsupported'],
  ] as const)('return option %s is %s', (key, support) => {
    expect(caps.returnOptions[key]).toBe(support);
  });

  test('moderations unsupported, choices native, streaming only when the profile says so, no stop-sequence cap', () => {
    expect(caps).toMatchObject({ moderations: 'unsupported', choices: 'native', streaming: 'profile' });
    expect(caps.maxStopSequences).toBeUndefined();
  });

  test("the CLI's support check turns random_seed into a usage error naming aleph-alpha", () => {
    const run = () =>
      checkSupport(withParameters({ random_seed: 3 }), alephAlphaGenerate, aaProfile(), plain, {
        ignoreUnsupported: false,
        warn: () => {},
      });
    expect(run).toThrow(/random_seed is not supported by aleph-alpha/);
  });
});
