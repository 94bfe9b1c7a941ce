/**
 * The flags of `deployment text-generate` (docs/design.md §1), as plain data. Loaded for `--help` and
 * shell completion, so it must stay cheap: no zod, no file system, nothing but literals.
 */
import type { CanonicalParameters } from '../contract/canonical.js';
import { type DeclaredFlag, type OptionSpec, optionSpecs } from '../command.js';

/** How a granular flag's string becomes a value of its canonical field. */
/** `strings`: repeatable literal values, each one item (complete --stop). */
export type GranularKind = 'int' | 'number' | 'bool' | 'enum' | 'json' | 'list' | 'strings';

/** How a flag's value becomes a canonical parameter: what the request builder needs. */
export interface ParameterFlagMapping {
  /** The flag as typed, e.g. "--parameters-top-k". */
  flag: string;
  /** The key commander stores the value under (camelCase of the flag). */
  key: string;
  /** The field of `parameters` it sets. */
  field: keyof CanonicalParameters;
  kind: GranularKind;
}

/** A flag that sets a canonical parameter: its mapping, its command-line form and its help, declared together once. */
export interface ParameterFlag extends ParameterFlagMapping, DeclaredFlag {}

/** A `--parameters-*` flag: every one takes a value. */
export interface GranularParameterFlag extends ParameterFlag {
  arg: string;
}

/** The sixteen `--parameters-*` flags, in cpd-cli's order. */
export const GRANULAR_PARAMETER_FLAGS = [
  {
    flag: '--parameters-decoding-method',
    arg: '<greedy|sample>',
    key: 'parametersDecodingMethod',
    field: 'decoding_method',
    kind: 'enum',
    description: 'how tokens are picked (default sample)',
  },
  {
    flag: '--parameters-include-stop-sequence',
    arg: '[bool]',
    key: 'parametersIncludeStopSequence',
    field: 'include_stop_sequence',
    kind: 'bool',
    description: 'keep a matched stop sequence at the end of the text (default true)',
  },
  {
    flag: '--parameters-length-penalty',
    arg: '<json|@file>',
    key: 'parametersLengthPenalty',
    field: 'length_penalty',
    kind: 'json',
    description: 'JSON or @file: {"decay_factor": number > 1, "start_index": integer >= 0}',
  },
  {
    flag: '--parameters-max-new-tokens',
    arg: '<int>',
    key: 'parametersMaxNewTokens',
    field: 'max_new_tokens',
    kind: 'int',
    description: 'most tokens to generate, >= 0 (default 20; the maximum depends on the model)',
  },
  {
    flag: '--parameters-min-new-tokens',
    arg: '<int>',
    key: 'parametersMinNewTokens',
    field: 'min_new_tokens',
    kind: 'int',
    description: 'fewest tokens to generate, >= 0 (default 0); stop sequences are ignored until reached',
  },
  {
    flag: '--parameters-prompt-variables',
    arg: '<json|@file>',
    key: 'parametersPromptVariables',
    field: 'prompt_variables',
    kind: 'json',
    description: 'JSON or @file object of strings for a prompt-template deployment, e.g. {"city":"Paris"}',
  },
  {
    flag: '--parameters-random-seed',
    arg: '<int>',
    key: 'parametersRandomSeed',
    field: 'random_seed',
    kind: 'int',
    description: 'seed for repeatable sampling, >= 1',
  },
  {
    flag: '--parameters-repetition-penalty',
    arg: '<number>',
    key: 'parametersRepetitionPenalty',
    field: 'repetition_penalty',
    kind: 'number',
    description: 'penalty for repeating tokens, 1 to 2 (default 1 = no penalty)',
  },
  {
    flag: '--parameters-return-options',
    arg: '<json|@file>',
    key: 'parametersReturnOptions',
    field: 'return_options',
    kind: 'json',
    description:
      'JSON or @file: input_text, generated_tokens, input_tokens, token_logprobs, token_ranks (true/false), top_n_tokens (0 to 5)',
  },
  {
    flag: '--parameters-stop-sequences',
    arg: '<list>',
    key: 'parametersStopSequences',
    field: 'stop_sequences',
    kind: 'list',
    repeatable: true,
    description:
      'up to 6 strings that end generation: comma-separated (\\, for a comma) or a JSON array ["a","b"]; repeatable',
  },
  {
    flag: '--parameters-temperature',
    arg: '<number>',
    key: 'parametersTemperature',
    field: 'temperature',
    kind: 'number',
    description: 'sampling temperature, 0 to 2 (default 1; lower is less random)',
  },
  {
    flag: '--parameters-time-limit',
    arg: '<ms>',
    key: 'parametersTimeLimit',
    field: 'time_limit',
    kind: 'int',
    description: 'stop after this many milliseconds, > 0; the text so far is returned',
  },
  {
    flag: '--parameters-top-k',
    arg: '<int>',
    key: 'parametersTopK',
    field: 'top_k',
    kind: 'int',
    description: 'sample only from the k most likely tokens, 1 to 100',
  },
  {
    flag: '--parameters-top-p',
    arg: '<number>',
    key: 'parametersTopP',
    field: 'top_p',
    kind: 'number',
    description: 'nucleus sampling: smallest set of tokens whose probability reaches p, > 0 to 1 (default 1 = off)',
  },
  {
    flag: '--parameters-truncate-input-tokens',
    arg: '<int>',
    key: 'parametersTruncateInputTokens',
    field: 'truncate_input_tokens',
    kind: 'int',
    description: 'keep only the last N input tokens, >= 0 (0 = no truncation)',
  },
  {
    flag: '--parameters-typical-p',
    arg: '<number>',
    key: 'parametersTypicalP',
    field: 'typical_p',
    kind: 'number',
    description: 'locally typical sampling mass, > 0 to 1',
  },
] as const satisfies readonly GranularParameterFlag[];

/** Options of `deployment text-generate` and `deployment text-generate-stream`, in help order. */
export const GENERATE_FLAG_SPECS = [
  { flags: '--id-or-name <id>', description: 'deployment id or serving name (required)' },
  { flags: '--input <text>', description: 'the prompt text' },
  { flags: '--input-file <path|->', description: 'read the prompt from a file, or - for stdin' },
  {
    flags: '--moderations <json|@file>',
    description: 'HAP/PII filters as JSON or @file, e.g. {"hap": {"input": {"enabled": true, "threshold": 0.5}}}',
  },
  {
    flags: '--parameters <json|@file>',
    description: 'all generation parameters as JSON or @file; cannot be combined with --parameters-* flags',
  },
  ...optionSpecs(GRANULAR_PARAMETER_FLAGS),
  { flags: '--stream [bool]', description: 'print the text as it is generated' },
  { flags: '--raw [bool]', description: "print the provider's own response body" },
  {
    flags: '--show-logprobs [bool]',
    description: 'on a terminal, colour each generated token by its probability (asks for token log-probabilities)',
  },
  {
    flags: '--extra <json|@file>',
    description: 'provider-specific body fields (a JSON object or @file) merged into the wire request',
  },
  { flags: '--model-version <version>', description: 'model version to call (Open Inference servers)' },
  {
    flags: '--ignore-unsupported [bool]',
    description: 'warn instead of failing when the provider cannot honour a parameter',
  },
] as const satisfies readonly OptionSpec[];
