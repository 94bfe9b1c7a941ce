/**
 * The flags of `complete` (docs/design.md §1), as plain data: short, friendly names for the same canonical parameters
 * as text-generate's `--parameters-*`. Cheap to import (it is read for --help).
 */
import { type OptionSpec, optionSpecs } from '../command.js';
import type { ParameterFlag } from './generate-flag-specs.js';

/** The flags that set a canonical parameter: command-line form, help and mapping, declared together once. */
export const COMPLETE_PARAMETER_FLAGS = [
  {
    flag: '--max-tokens',
    arg: '<n>',
    description: 'most tokens to generate (max_new_tokens)',
    key: 'maxTokens',
    field: 'max_new_tokens',
    kind: 'int',
  },
  {
    flag: '--min-tokens',
    arg: '<n>',
    description: 'fewest tokens to generate (min_new_tokens)',
    key: 'minTokens',
    field: 'min_new_tokens',
    kind: 'int',
  },
  {
    flag: '--temperature',
    short: '-t',
    arg: '<x>',
    description: 'sampling temperature, 0 to 2',
    key: 'temperature',
    field: 'temperature',
    kind: 'number',
  },
  {
    flag: '--top-p',
    arg: '<x>',
    description: 'nucleus sampling, above 0 and at most 1',
    key: 'topP',
    field: 'top_p',
    kind: 'number',
  },
  {
    flag: '--top-k',
    arg: '<n>',
    description: 'keep the k most likely tokens, 1 to 100',
    key: 'topK',
    field: 'top_k',
    kind: 'int',
  },
  {
    flag: '--stop',
    arg: '<text>',
    description: 'stop when this text is generated (repeatable)',
    repeatable: true,
    key: 'stop',
    field: 'stop_sequences',
    kind: 'strings',
  },
  {
    flag: '--seed',
    arg: '<n>',
    description: 'random seed, for repeatable sampling (random_seed)',
    key: 'seed',
    field: 'random_seed',
    kind: 'int',
  },
  // Synthetic keys: the value is not the flag's own. commands/complete.ts turns --greedy into "greedy" under
  // decodingMethodFromFlags, and --logprobs/--echo into a return_options object under returnOptionsFromFlags.
  {
    flag: '--greedy',
    description: 'greedy decoding (decoding_method greedy)',
    key: 'decodingMethodFromFlags',
    field: 'decoding_method',
    kind: 'enum',
  },
  {
    flag: '--logprobs',
    arg: '[n]',
    description: 'return generated tokens with log-probabilities, and the n most likely alternatives (0 to 5)',
    key: 'returnOptionsFromFlags',
    field: 'return_options',
    kind: 'json',
  },
] as const satisfies readonly ParameterFlag[];

export const COMPLETE_OPTION_SPECS = [
  {
    flags: '-m, --model <name>',
    description:
      "model (watsonx model_id, Azure deployment, Aleph Alpha or Open Inference model); default: the profile's defaults.model",
  },
  ...optionSpecs(COMPLETE_PARAMETER_FLAGS),
  { flags: '--echo', description: 'include the prompt in the answer (return_options.input_text)' },
  { flags: '-n, --choices <count>', description: 'completions per prompt (providers that support it)' },
  { flags: '--stream', description: 'stream tokens as they arrive (default on a terminal)' },
  { flags: '--no-stream', description: 'wait for the whole answer' },
  {
    flags: '--parameters <json|@file>',
    description: 'canonical parameters as JSON; the flags above override its fields',
  },
  { flags: '--extra <json|@file>', description: 'provider-specific body fields merged into the wire request' },
  {
    flags: '--show-logprobs',
    description: 'on a terminal, colour each generated token by its probability (asks for token log-probabilities)',
  },
  { flags: '--raw', description: "print the provider's own response body (streaming: its events as JSONL)" },
  { flags: '--input-file <path|->', description: 'read the prompt from a file (- for stdin)' },
  {
    flags: '--image <@file>',
    description: 'Aleph Alpha: a PNG or JPEG put before the prompt text (repeatable)',
    repeatable: true,
  },
  {
    flags: '--prompt-json <json|@file>',
    description: 'Aleph Alpha: the whole prompt as an array of items {type: text|image|token_ids, data}',
  },
  { flags: '--model-version <version>', description: 'Open Inference model version (or write MODEL:VERSION)' },
  {
    flags: '--ignore-unsupported',
    description: 'drop parameters the provider cannot take, with a warning, instead of failing',
  },
] as const satisfies readonly OptionSpec[];
