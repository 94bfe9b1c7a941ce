import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalParameters } from '../../src/contract/canonical.js';
import { UsageError } from '../../src/contract/errors.js';
import { parseBooleanFlag } from '../../src/options/flag-values.js';
import { GRANULAR_PARAMETER_FLAGS } from '../../src/options/generate-flag-specs.js';
import { buildCanonicalRequest, type RawGenerateOptions } from '../../src/options/generate-request.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'textgen-generate-request-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const build = (raw: RawGenerateOptions, defaults?: CanonicalParameters) =>
  buildCanonicalRequest(raw, { cwd: dir, ...(defaults ? { defaults } : {}) });

async function failure(raw: RawGenerateOptions, defaults?: CanonicalParameters): Promise<UsageError> {
  const e = await build(raw, defaults).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UsageError);
  return e as UsageError;
}

const keyOf = (flag: string) => GRANULAR_PARAMETER_FLAGS.find((g) => g.flag === flag)!.key;

// The cpd-cli page's example (cpd-cli's documentation of deployment text-generate), as --parameters and as granular flags.
const CPD_PARAMETERS = {
  decoding_method: 'greedy',
  length_penalty: { decay_factor: 2.5, start_index: 5 },
  max_new_tokens: 100,
  min_new_tokens: 5,
  random_seed: 1,
  stop_sequences: ['fail'],
  temperature: 1.5,
  time_limit: 600000,
  top_k: 50,
  top_p: 0.5,
  repetition_penalty: 1.5,
  truncate_input_tokens: 0,
  return_options: {
    input_text: true,
    generated_tokens: true,
    input_tokens: true,
    token_logprobs: true,
    token_ranks: true,
    top_n_tokens: 2,
  },
  include_stop_sequence: true,
  typical_p: 0.5,
  prompt_variables: {},
};
const CPD_MODERATIONS = {
  hap: {
    input: { enabled: true, threshold: 0 },
    output: { enabled: true, threshold: 0 },
    mask: { remove_entity_value: false },
  },
  pii: {
    input: { enabled: true, threshold: 0 },
    output: { enabled: true, threshold: 0 },
    mask: { remove_entity_value: false },
  },
  input_ranges: [{ start: 0, end: 0 }],
};

describe('granular flags → canonical fields', () => {
  // flag, what commander hands over, the canonical field, its value, its JSON type.
  const ROWS: Array<[string, string | boolean | string[], string, unknown, string]> = [
    ['--parameters-decoding-method', 'Greedy', 'decoding_method', 'greedy', 'string'],
    ['--parameters-include-stop-sequence', 'false', 'include_stop_sequence', false, 'boolean'],
    [
      '--parameters-length-penalty',
      '{"decay_factor": 2.5, "start_index": 5}',
      'length_penalty',
      { decay_factor: 2.5, start_index: 5 },
      'object',
    ],
    ['--parameters-max-new-tokens', '30', 'max_new_tokens', 30, 'number'],
    ['--parameters-min-new-tokens', '5', 'min_new_tokens', 5, 'number'],
    ['--parameters-prompt-variables', '{"city": "Paris"}', 'prompt_variables', { city: 'Paris' }, 'object'],
    ['--parameters-random-seed', '1', 'random_seed', 1, 'number'],
    ['--parameters-repetition-penalty', '1.5', 'repetition_penalty', 1.5, 'number'],
    [
      '--parameters-return-options',
      '{"input_text": true, "top_n_tokens": 2}',
      'return_options',
      { input_text: true, top_n_tokens: 2 },
      'object',
    ],
    ['--parameters-stop-sequences', ['fail'], 'stop_sequences', ['fail'], 'array'],
    ['--parameters-temperature', '1.5', 'temperature', 1.5, 'number'],
    ['--parameters-time-limit', '600000', 'time_limit', 600000, 'number'],
    ['--parameters-top-k', '50', 'top_k', 50, 'number'],
    ['--parameters-top-p', '0.5', 'top_p', 0.5, 'number'],
    ['--parameters-truncate-input-tokens', '0', 'truncate_input_tokens', 0, 'number'],
    ['--parameters-typical-p', '0.5', 'typical_p', 0.5, 'number'],
  ];

  it('covers all sixteen flags', () => {
    expect(ROWS.map((r) => r[0]).sort()).toEqual(GRANULAR_PARAMETER_FLAGS.map((g) => g.flag).sort());
  });

  it.each(ROWS)('%s %j sets parameters.%s', async (flag, value, field, expected, jsonType) => {
    const { request } = await build({ [keyOf(flag)]: value });
    expect(request.parameters).toEqual({ [field]: expected });
    const actual = (request.parameters as Record<string, unknown>)[field];
    expect(Array.isArray(actual) ? 'array' : typeof actual).toBe(jsonType);
    expect(request.moderations).toBeUndefined();
  });

  it.each([
    [true as const, true],
    ['true', true],
    ['TRUE', true],
    ['False', false],
    [' false ', false],
  ])('a boolean flag given %j reads as %j', async (value, expected) => {
    const { request } = await build({ parametersIncludeStopSequence: value });
    expect(request.parameters).toEqual({ include_stop_sequence: expected });
  });

  it.each([
    ['+7', 7],
    ['-0', 0],
    [' 12 ', 12],
  ])('an integer flag reads %j as %j', async (value, expected) => {
    const { request } = await build({ parametersMaxNewTokens: value });
    expect(request.parameters?.max_new_tokens).toBe(expected);
  });

  it.each([
    ['.5', 0.5],
    ['1.', 1],
    ['2e-1', 0.2],
    ['1E0', 1],
  ])('a number flag reads %j as %j', async (value, expected) => {
    const { request } = await build({ parametersTemperature: value });
    expect(request.parameters?.temperature).toBe(expected);
  });

  it("gives the same request for cpd-cli's --parameters example and its granular twin", async () => {
    const fromJson = await build({
      parameters: JSON.stringify(CPD_PARAMETERS),
      moderations: JSON.stringify(CPD_MODERATIONS),
    });
    const fromFlags = await build({
      moderations: JSON.stringify(CPD_MODERATIONS),
      parametersDecodingMethod: 'greedy',
      parametersIncludeStopSequence: 'true',
      parametersLengthPenalty: '{"decay_factor": 2.5, "start_index": 5}',
      parametersMaxNewTokens: '100',
      parametersMinNewTokens: '5',
      parametersPromptVariables: '{}',
      parametersRandomSeed: '1',
      parametersRepetitionPenalty: '1.5',
      parametersReturnOptions: JSON.stringify(CPD_PARAMETERS.return_options),
      parametersStopSequences: ['fail'],
      parametersTemperature: '1.5',
      parametersTimeLimit: '600000',
      parametersTopK: '50',
      parametersTopP: '0.5',
      parametersTruncateInputTokens: '0',
      parametersTypicalP: '0.5',
    });
    expect(fromJson.request).toEqual({ parameters: CPD_PARAMETERS, moderations: CPD_MODERATIONS });
    expect(fromFlags).toEqual(fromJson);
  });

  it('leaves parameters out when nothing sets one', async () => {
    expect(await build({ idOrName: 'x', input: 'hi', stream: true, raw: 'false', modelVersion: '1' })).toEqual({
      request: {},
    });
  });
});

describe('JSON options: inline and @file', () => {
  // raw key, JSON text, where the value lands.
  const ROWS: Array<
    [string, keyof RawGenerateOptions, string, (b: Awaited<ReturnType<typeof build>>) => unknown, unknown]
  > = [
    [
      '--parameters',
      'parameters',
      '{"top_k": 5, "return_options": {"input_text": true}}',
      (b) => b.request.parameters,
      { top_k: 5, return_options: { input_text: true } },
    ],
    ['--moderations', 'moderations', JSON.stringify(CPD_MODERATIONS), (b) => b.request.moderations, CPD_MODERATIONS],
    [
      '--extra',
      'extra',
      '{"n": 2, "logit_bias": {"50256": -100}}',
      (b) => b.extra,
      { n: 2, logit_bias: { '50256': -100 } },
    ],
    [
      '--parameters-length-penalty',
      'parametersLengthPenalty',
      '{"decay_factor": 1.5}',
      (b) => b.request.parameters?.length_penalty,
      { decay_factor: 1.5 },
    ],
    [
      '--parameters-prompt-variables',
      'parametersPromptVariables',
      '{"name": "Ada", "my var": ""}',
      (b) => b.request.parameters?.prompt_variables,
      { name: 'Ada', 'my var': '' },
    ],
    [
      '--parameters-return-options',
      'parametersReturnOptions',
      '{"generated_tokens": true, "top_n_tokens": 5}',
      (b) => b.request.parameters?.return_options,
      { generated_tokens: true, top_n_tokens: 5 },
    ],
  ];

  it.each(ROWS)('%s takes inline JSON', async (_flag, key, json, pick, expected) => {
    expect(pick(await build({ [key]: json }))).toEqual(expected);
  });

  it.each(ROWS)('%s takes @file', async (flag, key, json, pick, expected) => {
    const name = `${flag.slice(2)}.json`;
    await writeFile(join(dir, name), `\uFEFF${json.replace(/, /g, ',\n  ')}\n`);
    expect(pick(await build({ [key]: `@${name}` }))).toEqual(expected);
  });

  it.each(ROWS)('%s reports a missing @file by flag and path', async (flag, key) => {
    const e = await failure({ [key]: '@missing/file.json' });
    expect(e.message).toBe(`${flag}: cannot read missing/file.json: no such file`);
  });

  it.each(ROWS)('%s reports invalid JSON in a file with line and column', async (flag, key) => {
    await writeFile(join(dir, 'bad.json'), '{\n  "a": 1\n  "b": 2\n}');
    const e = await failure({ [key]: '@bad.json' });
    expect(e.message).toBe(`${flag}: invalid JSON in bad.json at line 3, column 3: unexpected '"'`);
  });

  it('reads @- from the injected stdin', async () => {
    const built = await buildCanonicalRequest(
      { parameters: '@-', input: 'hi' },
      { cwd: dir, stdin: async () => '{"top_k": 3}' },
    );
    expect(built.request.parameters).toEqual({ top_k: 3 });
  });

  it('lets --moderations carry moderation types it does not know', async () => {
    const { request } = await build({ moderations: '{"granite_guardian": {"input": {"threshold": 0.9}}, "pii": {}}' });
    expect(request.moderations).toEqual({ granite_guardian: { input: { threshold: 0.9 } }, pii: {} });
  });

  it('accepts --extra with any keys', async () => {
    expect((await build({ extra: '{"whatever_the_provider_wants": [1, {"x": null}]}' })).extra).toEqual({
      whatever_the_provider_wants: [1, { x: null }],
    });
  });
});

describe('mutual exclusion', () => {
  it.each(GRANULAR_PARAMETER_FLAGS.map((g) => [g.flag, g.key, g.field] as const))(
    '--parameters with %s is a usage error naming both',
    async (flag, key, field) => {
      const e = await failure({ parameters: '{}', [key]: key === 'parametersStopSequences' ? ['x'] : '1' });
      expect(e.message).toBe(
        `--parameters and ${flag} cannot be used together: put ${field} inside --parameters, or drop --parameters`,
      );
      expect(e.exitCode).toBe(2);
    },
  );

  it('lists every conflicting flag', async () => {
    const e = await failure({
      parameters: '{}',
      parametersTopK: '5',
      parametersReturnOptions: '{}',
      parametersIncludeStopSequence: true,
    });
    expect(e.message).toBe(
      '--parameters and --parameters-include-stop-sequence, --parameters-return-options, --parameters-top-k cannot be used together: ' +
        'put include_stop_sequence, return_options and top_k inside --parameters, or drop --parameters',
    );
  });

  it('reports the conflict before reading any file', async () => {
    const e = await failure({ parameters: '@does-not-exist.json', parametersTopK: '5' });
    expect(e.message).toMatch(/^--parameters and --parameters-top-k cannot be used together/);
  });

  it('counts a boolean flag given as false as given', async () => {
    const e = await failure({ parameters: '{}', parametersIncludeStopSequence: 'false' });
    expect(e.message).toMatch(/^--parameters and --parameters-include-stop-sequence/);
  });

  it.each([
    [
      { parameters: '@-', moderations: '@-', input: 'x' },
      'only one option can read stdin, but --parameters @- and --moderations @- both do',
    ],
    [{ inputFile: '-', extra: '@-' }, 'only one option can read stdin, but --input-file - and --extra @- both do'],
    [
      { parametersReturnOptions: '@-' },
      '--parameters-return-options @- reads stdin, so the prompt cannot come from stdin too',
    ],
  ])('stdin is read by one option at most: %j', async (raw, message) => {
    expect((await failure(raw)).message).toBe(message);
  });
});

describe('out-of-range values name the flag, and the field inside JSON', () => {
  // flag, the flag's string, how the message shows it, the same value as JSON, the expectation.
  const ROWS: Array<[string, string, string, unknown, string]> = [
    ['--parameters-top-k', '500', '500', 500, 'an integer from 1 to 100'],
    ['--parameters-top-k', '0', '0', 0, 'an integer from 1 to 100'],
    ['--parameters-top-k', '1.5', '"1.5"', 1.5, 'an integer from 1 to 100'],
    ['--parameters-temperature', '2.1', '2.1', 2.1, 'a number from 0 to 2'],
    ['--parameters-temperature', '-0.1', '-0.1', -0.1, 'a number from 0 to 2'],
    ['--parameters-top-p', '0', '0', 0, 'a number greater than 0 and at most 1'],
    ['--parameters-top-p', '1.01', '1.01', 1.01, 'a number greater than 0 and at most 1'],
    ['--parameters-typical-p', '0', '0', 0, 'a number greater than 0 and at most 1'],
    ['--parameters-typical-p', '1.5', '1.5', 1.5, 'a number greater than 0 and at most 1'],
    ['--parameters-repetition-penalty', '0.9', '0.9', 0.9, 'a number from 1 to 2'],
    ['--parameters-repetition-penalty', '2.5', '2.5', 2.5, 'a number from 1 to 2'],
    ['--parameters-max-new-tokens', '-1', '-1', -1, 'an integer of 0 or more'],
    ['--parameters-min-new-tokens', '-1', '-1', -1, 'an integer of 0 or more'],
    ['--parameters-random-seed', '0', '0', 0, 'an integer of 1 or more'],
    ['--parameters-time-limit', '0', '0', 0, 'an integer greater than 0 (milliseconds)'],
    ['--parameters-time-limit', '2.5', '"2.5"', 2.5, 'an integer greater than 0 (milliseconds)'],
    ['--parameters-truncate-input-tokens', '-5', '-5', -5, 'an integer of 0 or more'],
    ['--parameters-decoding-method', 'fast', '"fast"', 'fast', '"greedy" or "sample"'],
    ['--parameters-include-stop-sequence', 'maybe', '"maybe"', 'maybe', 'true or false'],
  ];
  const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

  it.each(ROWS)('%s %s', async (flag, text, shown, _json, expectation) => {
    const e = await failure({ [keyOf(flag)]: text });
    expect(e.message).toBe(`${flag} must be ${expectation}, got ${shown}`);
  });

  it.each(ROWS)("--parameters with %s's field out of range", async (flag, _text, _shown, json, expectation) => {
    const field = GRANULAR_PARAMETER_FLAGS.find((g) => g.flag === flag)!.field;
    const e = await failure({ parameters: JSON.stringify({ [field]: json }) });
    expect(e.message).toBe(`--parameters: ${field} must be ${expectation}, got ${show(json)}`);
  });

  it.each([
    ['--parameters-temperature', 'hot', 'must be a number from 0 to 2, got "hot"'],
    ['--parameters-top-k', '1e3', 'must be an integer from 1 to 100, got "1e3"'],
    ['--parameters-max-new-tokens', '0x10', 'must be an integer of 0 or more, got "0x10"'],
    ['--parameters-max-new-tokens', '1.0', 'must be an integer of 0 or more, got "1.0"'],
    ['--parameters-max-new-tokens', '', 'must be an integer of 0 or more, got ""'],
    ['--parameters-random-seed', '99999999999999999999', 'must be an integer of 1 or more, got 100000000000000000000'],
    ['--parameters-top-p', 'Infinity', 'must be a number greater than 0 and at most 1, got "Infinity"'],
    ['--parameters-top-p', 'NaN', 'must be a number greater than 0 and at most 1, got "NaN"'],
  ])('%s %j is not read as a number', async (flag, text, tail) => {
    expect((await failure({ [keyOf(flag)]: text })).message).toBe(`${flag} ${tail}`);
  });

  it.each([
    [
      { parametersReturnOptions: '{"top_n_tokens": 6}' },
      '--parameters-return-options: top_n_tokens must be an integer from 0 to 5, got 6',
    ],
    [
      { parametersReturnOptions: '{"token_ranks": "yes"}' },
      '--parameters-return-options: token_ranks must be true or false, got "yes"',
    ],
    [
      { parametersReturnOptions: '[true]' },
      '--parameters-return-options must be an object like {"generated_tokens": true, "top_n_tokens": 2}, got a list of 1 item',
    ],
    [
      { parametersLengthPenalty: '{"decay_factor": 1}' },
      '--parameters-length-penalty: decay_factor must be a number greater than 1, got 1',
    ],
    [
      { parametersLengthPenalty: '{"start_index": -1}' },
      '--parameters-length-penalty: start_index must be an integer of 0 or more, got -1',
    ],
    [{ parametersPromptVariables: '{"n": 1}' }, '--parameters-prompt-variables: n must be a string, got 1'],
    [
      { parametersPromptVariables: '"x"' },
      '--parameters-prompt-variables must be an object of strings, like {"city": "Paris"}, got "x"',
    ],
    [
      { parameters: '{"return_options": {"top_n_tokens": 9}}' },
      '--parameters: return_options.top_n_tokens must be an integer from 0 to 5, got 9',
    ],
    [
      { parameters: '{"length_penalty": {"decay_factor": 0.5}}' },
      '--parameters: length_penalty.decay_factor must be a number greater than 1, got 0.5',
    ],
    [
      { parameters: '{"stop_sequences": ["a", ""]}' },
      '--parameters: stop_sequences[1] must be a non-empty string, got ""',
    ],
    [
      { parameters: '{"stop_sequences": "END"}' },
      '--parameters: stop_sequences must be a list of at most 6 non-empty strings, got "END"',
    ],
    [{ parameters: '[1, 2]' }, '--parameters must be a JSON object, got a list of 2 items'],
    [{ parameters: 'null' }, '--parameters must be a JSON object, got null'],
    [
      { moderations: '{"hap": {"input": {"threshold": 1.5}}}' },
      '--moderations: hap.input.threshold must be a number from 0 to 1, got 1.5',
    ],
    [
      { moderations: '{"pii": {"mask": {"remove_entity_value": 1}}}' },
      '--moderations: pii.mask.remove_entity_value must be true or false, got 1',
    ],
    [
      { moderations: '{"input_ranges": [{"start": 0, "end": -2}]}' },
      '--moderations: input_ranges[0].end must be an integer of 0 or more, got -2',
    ],
    [
      { moderations: '{"input_ranges": {"start": 0}}' },
      '--moderations: input_ranges must be a list of objects like {"start": 0, "end": 10}, got an object',
    ],
    [{ moderations: '"hap"' }, '--moderations must be a JSON object, got "hap"'],
    [{ extra: '[1, 2]' }, '--extra must be a JSON object, got a list of 2 items'],
    [{ extra: '7' }, '--extra must be a JSON object, got 7'],
  ])('%j', async (raw, message) => {
    expect((await failure(raw)).message).toBe(message);
  });

  it('reports every problem in one message', async () => {
    const e = await failure({ parameters: '{"top_k": 500, "temperature": "x"}' });
    expect(e.message.split('; ').sort()).toEqual([
      '--parameters: temperature must be a number from 0 to 2, got "x"',
      '--parameters: top_k must be an integer from 1 to 100, got 500',
    ]);
  });

  it.each([
    [
      { parameters: '{"min_new_tokens": 50, "max_new_tokens": 20}' },
      undefined,
      '--parameters: min_new_tokens (50) must not be greater than max_new_tokens (20)',
    ],
    [
      { parametersMinNewTokens: '50', parametersMaxNewTokens: '20' },
      undefined,
      '--parameters-min-new-tokens (50) must not be greater than --parameters-max-new-tokens (20)',
    ],
    [
      { parametersMinNewTokens: '50' },
      { max_new_tokens: 20 },
      '--parameters-min-new-tokens (50) must not be greater than max_new_tokens (20) from profile defaults',
    ],
    [
      { parameters: '{"max_new_tokens": 10}' },
      { min_new_tokens: 30 },
      'min_new_tokens (30) from profile defaults must not be greater than max_new_tokens (10) from --parameters',
    ],
  ])('min_new_tokens may not exceed max_new_tokens: %j over %j', async (raw, defaults, message) => {
    expect((await failure(raw, defaults)).message).toBe(message);
  });

  it('accepts min_new_tokens equal to max_new_tokens', async () => {
    expect((await build({ parametersMinNewTokens: '20', parametersMaxNewTokens: '20' })).request.parameters).toEqual({
      min_new_tokens: 20,
      max_new_tokens: 20,
    });
  });
});

describe('unknown fields', () => {
  it.each([
    [
      { parameters: '{"max_new_tokenz": 5}' },
      '--parameters: unknown field "max_new_tokenz" (did you mean "max_new_tokens"?)',
    ],
    [
      { parameters: '{"maxNewTokens": 5}' },
      '--parameters: unknown field "maxNewTokens" (did you mean "max_new_tokens"?)',
    ],
    [{ parameters: '{"temprature": 1}' }, '--parameters: unknown field "temprature" (did you mean "temperature"?)'],
    [{ parameters: '{"top-k": 1}' }, '--parameters: unknown field "top-k" (did you mean "top_k"?)'],
    [{ parameters: '{"seed": 1}' }, '--parameters: unknown field "seed" (did you mean "random_seed"?)'],
    [{ parameters: '{"stop": ["x"]}' }, '--parameters: unknown field "stop" (did you mean "stop_sequences"?)'],
    [{ parameters: '{"foo": 1}' }, '--parameters: unknown field "foo"'],
    [{ parameters: '{"foo": 1, "bar": 2}' }, '--parameters: unknown field "foo"; --parameters: unknown field "bar"'],
    [
      { parametersReturnOptions: '{"echo": true}' },
      '--parameters-return-options: unknown field "echo" (did you mean "input_text"?)',
    ],
    [
      { parameters: '{"return_options": {"top_n_tokenz": 1}}' },
      '--parameters: unknown field "return_options.top_n_tokenz" (did you mean "return_options.top_n_tokens"?)',
    ],
    [
      { parametersReturnOptions: '{"generated_token": true}' },
      '--parameters-return-options: unknown field "generated_token" (did you mean "generated_tokens"?)',
    ],
    [{ parametersLengthPenalty: '{"decay": 2}' }, '--parameters-length-penalty: unknown field "decay"'],
    [
      { parametersLengthPenalty: '{"start_idx": 2}' },
      '--parameters-length-penalty: unknown field "start_idx" (did you mean "start_index"?)',
    ],
    [{ moderations: '{"hap": {"inptu": {}}}' }, '--moderations: unknown field "hap.inptu" (did you mean "hap.input"?)'],
    [
      { moderations: '{"hap": {"input": {"enable": true}}}' },
      '--moderations: unknown field "hap.input.enable" (did you mean "hap.input.enabled"?)',
    ],
  ])('%j', async (raw, message) => {
    expect((await failure(raw)).message).toBe(message);
  });

  it('points provider-specific fields to --extra', async () => {
    expect((await failure({ parameters: '{"logit_bias": {}}' })).hint).toBe(
      'provider-specific body fields go in --extra',
    );
  });

  it('reports unknown fields in profile defaults as such', async () => {
    const e = await failure({}, { max_tokens: 5 } as CanonicalParameters);
    expect(e.message).toBe('profile defaults: unknown field "max_tokens" (did you mean "max_new_tokens"?)');
  });
});

describe('--parameters-stop-sequences', () => {
  it.each([
    ['one plain value', ['fail'], ['fail']],
    ['a comma-separated list', ['a,b,c'], ['a', 'b', 'c']],
    ['spaces kept', [' Human:, AI:'], [' Human:', ' AI:']],
    ['an escaped comma', ['a\\,b,c'], ['a,b', 'c']],
    ['a backslash not before a comma', ['a\\nb'], ['a\\nb']],
    ['a JSON array', ['["\\n\\n", "a,b"]'], ['\n\n', 'a,b']],
    ['a JSON array with spaces inside', ['[ "x" ]'], ['x']],
    ['an empty JSON array', ['[]'], []],
    ['an empty value', [''], []],
    ['literal brackets', ['[INST],[/INST]'], ['[INST]', '[/INST]']],
    ['repeated flags, in order', ['a,b', '["c"]', 'd'], ['a', 'b', 'c', 'd']],
    ['a single string (not collected by commander)', 'x,y', ['x', 'y']],
    ['six values, the maximum', ['1,2,3,4,5,6'], ['1', '2', '3', '4', '5', '6']],
  ])('%s', async (_name, value, expected) => {
    // The single-string row is beyond commander's arrays (the type says string[]): the parser takes it all the same.
    const { request } = await build({ parametersStopSequences: value } as RawGenerateOptions);
    expect(request.parameters).toEqual({ stop_sequences: expected });
  });

  it.each([
    [['a,,b'], '--parameters-stop-sequences: item 2 must be a non-empty string, got ""'],
    [['a,'], '--parameters-stop-sequences: item 2 must be a non-empty string, got ""'],
    [['["a", 3]'], '--parameters-stop-sequences: item 2 must be a non-empty string, got 3'],
    [
      ['1,2,3,4', '5,6,7'],
      '--parameters-stop-sequences must be a list of at most 6 non-empty strings, got a list of 7 items',
    ],
    [['["a",]'], '--parameters-stop-sequences: invalid JSON at line 1, column 6: unexpected "]"'],
    [['["a"'], '--parameters-stop-sequences: invalid JSON at line 1, column 5: unexpected end of input'],
  ])('%j is a usage error', async (value, message) => {
    expect((await failure({ parametersStopSequences: value })).message).toBe(message);
  });
});

describe('precedence: profile defaults < --parameters < --parameters-* flags', () => {
  const defaults: CanonicalParameters = {
    max_new_tokens: 64,
    temperature: 0.2,
    stop_sequences: ['END'],
    return_options: { input_text: true, top_n_tokens: 1 },
    length_penalty: { decay_factor: 2 },
    prompt_variables: { a: '1' },
  };

  it('uses the profile defaults alone', async () => {
    expect((await build({}, defaults)).request.parameters).toEqual(defaults);
  });

  it('--parameters overrides defaults field by field and merges objects', async () => {
    const { request } = await build(
      {
        parameters:
          '{"temperature": 1, "stop_sequences": ["STOP"], "return_options": {"top_n_tokens": 3}, "prompt_variables": {"b": "2"}}',
      },
      defaults,
    );
    expect(request.parameters).toEqual({
      max_new_tokens: 64,
      temperature: 1,
      stop_sequences: ['STOP'],
      return_options: { input_text: true, top_n_tokens: 3 },
      length_penalty: { decay_factor: 2 },
      prompt_variables: { a: '1', b: '2' },
    });
  });

  it('granular flags override defaults and merge objects', async () => {
    const { request } = await build(
      { parametersMaxNewTokens: '10', parametersLengthPenalty: '{"start_index": 4}', parametersStopSequences: [''] },
      defaults,
    );
    expect(request.parameters).toEqual({
      ...defaults,
      max_new_tokens: 10,
      length_penalty: { decay_factor: 2, start_index: 4 },
      stop_sequences: [],
    });
  });

  it('does not change the defaults it was given', async () => {
    const copy = structuredClone(defaults);
    await build({ parametersReturnOptions: '{"token_ranks": true}' }, defaults);
    expect(defaults).toEqual(copy);
  });

  it('validates the defaults with their own label', async () => {
    const e = await failure({}, { top_k: 500 });
    expect(e.message).toBe('profile defaults: top_k must be an integer from 1 to 100, got 500');
  });
});

describe('booleans outside the parameters (--stream, --raw, --ignore-unsupported)', () => {
  it.each([
    [undefined, undefined],
    [true, true],
    ['true', true],
    ['FALSE', false],
  ])('%j → %j', (value, expected) => {
    expect(parseBooleanFlag('--stream', value)).toBe(expected);
  });

  it('rejects other words with the same message as a parameter flag', () => {
    expect(() => parseBooleanFlag('--raw', 'maybe')).toThrow(
      new UsageError('--raw must be true or false, got "maybe"'),
    );
  });
});
