/**
 * fast-check generators for the parameter space: flag values, --parameters objects, JSON-option text and
 * argv permutations. Each mixes valid values with hostile ones, so both exit codes are exercised.
 */
import fc from 'fast-check';
import { GRANULAR_PARAMETER_FLAGS } from '../../../src/options/generate-flag-specs.js';
import type { FlagKind } from './oracle.js';

/**
 * Decimals spread evenly over [min, max] in steps of 0.001. fc.double alone spreads over the bit patterns of
 * doubles, so most of its values are tiny magnitudes and a range like (1.5, 2] is almost never reached.
 */
const decimal = (min: number, max: number) =>
  fc.integer({ min: Math.round(min * 1000), max: Math.round(max * 1000) }).map((n) => n / 1000);

/** Strings that trip number, boolean and enum readers. */
const TRICKY = [
  '',
  ' ',
  '\t',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '1e3',
  '1E-2',
  '1_000',
  '1,5',
  '٣',
  '５',
  '１',
  '+1',
  '-0',
  '.5',
  '5.',
  '1e400',
  '-1e-400',
  '9007199254740993',
  '00007',
  'true',
  'false',
  'TRUE',
  ' False ',
  'yes',
  '1',
  '0',
  'null',
  'undefined',
  '[]',
  '{}',
  'greedy',
  'SAMPLE',
  ' sample ',
  'beam',
  '"greedy"',
  '@',
  '@-',
  '@/',
  '--',
  '-',
  '\u0000',
  '\u001b[31m',
  '\u202e',
  '\ud800',
  '😀',
];

export const anyText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  // Lone surrogates and other code units that are not text.
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 2_000, maxLength: 6_000 }) },
);

const numberText = fc.oneof(
  fc.integer({ min: -1_000, max: 200_000 }).map(String),
  fc.double().map(String),
  fc.double({ min: -3, max: 3, noNaN: true }).map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);

/** Plausible values of each kind, valid or just outside the range. */
const byKind: Record<FlagKind, fc.Arbitrary<string>> = {
  int: fc.oneof(
    fc.integer({ min: -5, max: 150 }).map(String),
    fc.integer({ min: -5, max: 150 }).map((n) => ` ${n} `),
  ),
  number: fc.oneof(
    decimal(-0.5, 2.5).map(String),
    fc.double({ min: -0.5, max: 2.5, noNaN: true }).map(String),
    fc.constantFrom('0', '1', '2', '0.5', '1.5', '1e0', '.9'),
  ),
  bool: fc.constantFrom('true', 'false', 'TRUE', 'False', ' true '),
  enum: fc.constantFrom('greedy', 'sample', 'Greedy', ' SAMPLE '),
  json: fc.oneof(
    fc.constantFrom(
      '{}',
      '{"decay_factor": 2.5, "start_index": 5}',
      '{"city": "Paris"}',
      '{"generated_tokens": true, "top_n_tokens": 2}',
      '{"top_n_tokens": 6}',
    ),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  ),
  list: fc.oneof(
    fc.array(fc.string({ maxLength: 6 }), { maxLength: 8 }).map((a) => JSON.stringify(a)),
    fc
      .array(
        fc.string({ maxLength: 6 }).filter((s) => !s.includes(',') && !s.includes('\\')),
        { maxLength: 8 },
      )
      .map((a) => a.join(',')),
    fc.constantFrom('[INST]', '\\n\\n', 'a\\,b,c', '', '[]', '["a",', ',,'),
  ),
  strings: fc.string({ maxLength: 8 }),
};

export type GranularFlag = (typeof GRANULAR_PARAMETER_FLAGS)[number];

/** One granular flag with a value: `true` means the flag alone, without a value. */
export const granularFlagValue = (flag: GranularFlag): fc.Arbitrary<[GranularFlag, string | true]> =>
  fc.tuple(
    fc.constant(flag),
    fc.oneof(
      { weight: 4, arbitrary: byKind[flag.kind] },
      { weight: 2, arbitrary: anyText },
      { weight: 1, arbitrary: numberText },
      { weight: flag.kind === 'bool' ? 2 : 0, arbitrary: fc.constant(true as const) },
    ),
  );

/** One to five distinct `--parameters-*` flags with values. */
export const granularFlags = fc
  .subarray([...GRANULAR_PARAMETER_FLAGS], { minLength: 1, maxLength: 5 })
  .chain((flags) => fc.tuple(...flags.map(granularFlagValue)));

/** A value for one field of --parameters: usually the right type (in or out of range), sometimes any JSON. */
const fieldValue: Record<string, fc.Arbitrary<unknown>> = {
  decoding_method: fc.constantFrom('greedy', 'sample', 'Greedy', 'beam', ''),
  include_stop_sequence: fc.boolean(),
  length_penalty: fc.record(
    { decay_factor: decimal(0, 5), start_index: fc.integer({ min: -2, max: 20 }) },
    { requiredKeys: [] },
  ),
  max_new_tokens: fc.integer({ min: -3, max: 5_000 }),
  min_new_tokens: fc.integer({ min: -3, max: 100 }),
  prompt_variables: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), {
    maxKeys: 4,
  }),
  random_seed: fc.integer({ min: -2, max: 2 ** 32 }),
  repetition_penalty: decimal(0.5, 2.5),
  return_options: fc.record(
    {
      input_text: fc.boolean(),
      generated_tokens: fc.boolean(),
      token_logprobs: fc.boolean(),
      top_n_tokens: fc.integer({ min: -1, max: 7 }),
    },
    { requiredKeys: [] },
  ),
  stop_sequences: fc.array(fc.string({ maxLength: 5 }), { maxLength: 8 }),
  temperature: fc.oneof(decimal(-0.5, 2.5), fc.double({ min: -0.5, max: 2.5, noNaN: true })),
  time_limit: fc.integer({ min: -10, max: 100_000 }),
  top_k: fc.integer({ min: -1, max: 120 }),
  top_p: fc.oneof(decimal(-0.1, 1.1), fc.double({ min: -0.1, max: 1.1, noNaN: true })),
  truncate_input_tokens: fc.integer({ min: -2, max: 4_096 }),
  typical_p: decimal(-0.1, 1.1),
};

/** A value each field accepts, so that whole objects are often valid and the exit-0 path is exercised too. */
const validFieldValue: Record<string, fc.Arbitrary<unknown>> = {
  decoding_method: fc.constantFrom('greedy', 'sample'),
  include_stop_sequence: fc.boolean(),
  length_penalty: fc.record({ decay_factor: decimal(1.001, 5), start_index: fc.nat(20) }, { requiredKeys: [] }),
  max_new_tokens: fc.nat(4_096),
  min_new_tokens: fc.nat(10),
  prompt_variables: fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'),
    fc.string({ maxLength: 8 }),
    { maxKeys: 3 },
  ),
  random_seed: fc.integer({ min: 1, max: 2 ** 32 }),
  repetition_penalty: decimal(1, 2),
  return_options: fc.record(
    { generated_tokens: fc.boolean(), token_ranks: fc.boolean(), top_n_tokens: fc.nat(5) },
    { requiredKeys: [] },
  ),
  stop_sequences: fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 6 }),
  temperature: decimal(0, 2),
  time_limit: fc.integer({ min: 1, max: 100_000 }),
  top_k: fc.integer({ min: 1, max: 100 }),
  top_p: decimal(0.001, 1),
  truncate_input_tokens: fc.nat(4_096),
  typical_p: decimal(0.001, 1),
};

const parameterEntry = fc
  .constantFrom(...Object.keys(fieldValue))
  .chain((field) =>
    fc.tuple(
      fc.constant(field),
      fc.oneof(
        { weight: 6, arbitrary: validFieldValue[field]! },
        { weight: 3, arbitrary: fieldValue[field]! },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      ),
    ),
  );

/** Keys that are not fields: typos, other providers' names, and names JavaScript objects treat specially. */
const unknownKey = fc.oneof(
  fc.constantFrom(
    'max_tokens',
    'max_new_tokenz',
    'topK',
    'seed',
    'stop',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    '',
  ),
  fc.string({ maxLength: 10 }),
);

/** A --parameters object: known fields, and sometimes an unknown key. */
export const parametersObject = fc
  .tuple(
    fc.array(parameterEntry, { maxLength: 5 }),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })) },
    ),
  )
  .map(([entries, unknown]) => {
    // JSON text, not an object literal: a "__proto__" key must arrive as a key, as it would from a file.
    const parts = entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    if (unknown) parts.push(`${JSON.stringify(unknown[0])}: ${JSON.stringify(unknown[1])}`);
    return `{${parts.join(', ')}}`;
  });

/** Almost-JSON: a valid text with one character inserted, deleted or replaced. */
export const mutatedJson = fc
  .tuple(
    fc.oneof(
      parametersObject,
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    ),
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', ' ', 'x', '\u0000', '\n', '1'),
  )
  .map(([text, at, how, ch]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    if (how === 'insert') return text.slice(0, i) + ch + text.slice(i);
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + ch + text.slice(i + 1);
  });

/** Random bytes, decoded as a shell would hand them over (UTF-8 with replacement characters) or as Latin-1. */
export const byteText = fc
  .tuple(fc.uint8Array({ maxLength: 64 }), fc.boolean())
  .map(([bytes, utf8]) => Buffer.from(bytes).toString(utf8 ? 'utf8' : 'latin1'));

export const jsonOptionText = fc.oneof(
  parametersObject,
  mutatedJson,
  byteText,
  anyText,
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);

/** Valid config files in each text form; the property changes a few characters of one. */
const CONFIGS: Array<{ file: string; text: string }> = [
  {
    file: '.textgenrc.yaml',
    text: 'default_profile: wx\nprofiles:\n  wx:\n    provider: watsonx\n    url: "http://127.0.0.1:9"\n    space_id: s\n    timeout: 1000\n    retries: 0\n    auth: { type: bearer, token_env: T }\n    defaults: { model: m, parameters: { max_new_tokens: 5 } }\n',
  },
  {
    file: '.textgenrc',
    text: 'default_profile: p\nprofiles:\n  p: { provider: open-inference, url: "http://127.0.0.1:9", server_parameters: [top_k] }\n',
  },
  {
    file: '.textgenrc.json',
    text: '{"default_profile": "az", "profiles": {"az": {"provider": "azure-openai", "url": "http://127.0.0.1:9", "api_version": "2024-10-21", "auth": {"type": "none"}, "tls": {"insecure": false}}}}',
  },
];

const edit = fc.tuple(
  fc.nat(),
  fc.constantFrom('insert', 'delete', 'replace'),
  fc.constantFrom(
    ':',
    ' ',
    '\n',
    '\t',
    '-',
    '[',
    '{',
    '}',
    '"',
    "'",
    '&',
    '*',
    '!',
    '#',
    '|',
    '>',
    '%',
    '@',
    '`',
    '0',
    'x',
    '\u0000',
    '\ufeff',
  ),
);

export const configText = fc
  .tuple(fc.constantFrom(...CONFIGS), fc.array(edit, { minLength: 1, maxLength: 3 }))
  .map(([config, edits]) => {
    let text = config.text;
    for (const [at, how, ch] of edits) {
      const i = at % (text.length + 1);
      text =
        how === 'insert'
          ? text.slice(0, i) + ch + text.slice(i)
          : how === 'delete'
            ? text.slice(0, i) + text.slice(i + 1)
            : text.slice(0, i) + ch + text.slice(i + 1);
    }
    return { file: config.file, text };
  });
