import { describe, expect, it } from 'vitest';
import type { CanonicalParameters } from '../../src/contract/canonical.js';
import { UsageError } from '../../src/contract/errors.js';
import { checkSupport, fillPromptVariables } from '../../src/generation/support.js';
import type { ProviderCapabilities, GenerateOperation } from '../../src/contract/adapter.js';
import { watsonxGenerate } from '../../profiles/watsonx/client/generate.js';
import { testProfile } from '../helpers/profile.js';

const caps: ProviderCapabilities = {
  parameters: {
    decoding_method: 'native',
    length_penalty: 'unsupported',
    max_new_tokens: 'native',
    min_new_tokens: 'extra',
    random_seed: 'extra',
    stop_sequences: 'native',
    temperature: 'native',
    time_limit: 'client',
    top_k: 'unsupported',
    top_p: 'native',
    repetition_penalty: 'extra',
    truncate_input_tokens: 'unsupported',
    return_options: 'native',
    include_stop_sequence: 'unsupported',
    typical_p: 'unsupported',
    prompt_variables: 'client',
  },
  returnOptions: {
    input_text: 'native',
    generated_tokens: 'native',
    input_tokens: 'unsupported',
    token_logprobs: 'native',
    token_ranks: 'unsupported',
    top_n_tokens: 'native',
  },
  moderations: 'unsupported',
  choices: 'unsupported',
  maxStopSequences: 4,
  streaming: 'native',
  statesStopReason: true,
};
const provider = { ...watsonxGenerate, kind: 'fake', capabilities: caps } as GenerateOperation;

function check(
  parameters: CanonicalParameters,
  opts: { ignore?: boolean; serverParameters?: string[]; moderations?: Record<string, unknown>; n?: number } = {},
) {
  const warnings: string[] = [];
  const out = checkSupport(
    {
      input: 'x',
      parameters,
      ...(opts.moderations ? { moderations: opts.moderations } : {}),
      ...(opts.n ? { n: opts.n } : {}),
    },
    provider,
    testProfile({ serverParameters: opts.serverParameters ?? [] }),
    { deployment: 'd', stream: false },
    { ignoreUnsupported: opts.ignore ?? false, warn: (m) => warnings.push(m) },
  );
  return { ...out, warnings };
}

describe('parameters a provider cannot take', () => {
  it.each<[string, CanonicalParameters, RegExp]>([
    ['top_k', { top_k: 5 }, /^parameter top_k is not supported by fake$/],
    ['typical_p', { typical_p: 0.5 }, /^parameter typical_p is not supported by fake$/],
    ['length_penalty', { length_penalty: { decay_factor: 2 } }, /^parameter length_penalty is not supported by fake$/],
    [
      'return_options.input_tokens',
      { return_options: { input_tokens: true } },
      /^parameter return_options\.input_tokens is not supported by fake$/,
    ],
    [
      'an extra key not listed in server_parameters',
      { random_seed: 3 },
      /random_seed is sent to fake only when the profile lists it in server_parameters/,
    ],
    ['several at once', { top_k: 5, typical_p: 0.5 }, /^parameters top_k, typical_p are not supported by fake$/],
  ])('%s is a usage error naming parameter and provider', (_n, parameters, message) => {
    const e = (() => {
      try {
        check(parameters);
      } catch (err) {
        return err;
      }
      throw new Error('expected a usage error');
    })();
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(message);
    expect((e as UsageError).hint).toMatch(/--ignore-unsupported/);
  });

  it('--ignore-unsupported drops them with one warning each', () => {
    const r = check(
      { top_k: 5, max_new_tokens: 9, return_options: { input_tokens: true, generated_tokens: true } },
      { ignore: true },
    );
    expect(r.request.parameters).toStrictEqual({ max_new_tokens: 9, return_options: { generated_tokens: true } });
    expect(r.warnings).toEqual([
      'ignoring top_k: it is not supported by fake',
      'ignoring return_options.input_tokens: it is not supported by fake',
    ]);
  });

  it('moderations and several choices are checked too', () => {
    expect(() => check({}, { moderations: { hap: { input: { enabled: true } } } })).toThrow(
      /moderations is not supported by fake/,
    );
    expect(() => check({}, { n: 3 })).toThrow(/n \(several completions\) is not supported by fake/);
    expect(check({}, { n: 1 }).request.n).toBe(1);
  });

  it('values that ask for nothing need no support', () => {
    expect(
      check({ return_options: { input_tokens: false, token_ranks: false }, include_stop_sequence: true }).request
        .parameters,
    ).toStrictEqual({});
  });

  it('extra keys pass when the profile lists them', () => {
    expect(
      check({ random_seed: 3, min_new_tokens: 2 }, { serverParameters: ['random_seed', 'min_new_tokens'] }).request
        .parameters,
    ).toStrictEqual({ random_seed: 3, min_new_tokens: 2 });
  });

  it('client-side parameters leave the wire request for the CLI to do', () => {
    const r = check({ time_limit: 500, prompt_variables: { a: 'b' }, temperature: 0.5 });
    expect(r.request.parameters).toStrictEqual({ temperature: 0.5 });
    expect(r.client).toStrictEqual({ timeLimitMs: 500, promptVariables: { a: 'b' } });
  });

  it("the provider's stop-sequence limit is enforced before sending", () => {
    expect(() => check({ stop_sequences: ['a', 'b', 'c', 'd', 'e'] })).toThrow(
      'fake accepts at most 4 stop sequences, got 5',
    );
  });

  it('watsonx fills prompt variables itself only for foundation models', () => {
    const opts = { ignoreUnsupported: false, warn: () => {} };
    const req = { input: 'x', parameters: { prompt_variables: { a: 'b' } } };
    expect(
      checkSupport(req, watsonxGenerate, testProfile(), { deployment: 'd', stream: false }, opts).client,
    ).toStrictEqual({});
    expect(checkSupport(req, watsonxGenerate, testProfile(), { model: 'm', stream: false }, opts).client).toStrictEqual(
      { promptVariables: { a: 'b' } },
    );
  });
});

describe('prompt variables filled by the CLI', () => {
  it.each([
    ['Hello {{name}}!', { name: 'Ada' }, 'Hello Ada!'],
    ['{{ a }} and {{b}} and {{a}}', { a: '1', b: '2' }, '1 and 2 and 1'],
    ['no placeholders', { a: '1' }, 'no placeholders'],
    ['{{x}}', { x: '{{y}}' }, '{{y}}'],
  ])('%s', (input, vars, expected) => {
    expect(fillPromptVariables(input, vars)).toBe(expected);
  });

  it('a placeholder without a value is a usage error naming it', () => {
    expect(() => fillPromptVariables('Hi {{who}} and {{what}}', {})).toThrow(
      'the prompt uses {{who}}, {{what}} but --parameters-prompt-variables gives no value for them',
    );
  });
});
