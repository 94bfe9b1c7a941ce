/**
 * The flags of the cpdctl mirror commands `text chat(-stream)`, `text calculate-embeddings`, `text rerank` and
 * `text tokenize` (cpdctl's command reference, 2026-02-26; test/contract/cpdctl/ holds the same lists for the parity
 * test), as plain data: each flag with the body field it writes and how its text becomes the value. A granular twin
 * (`--parameters-return-tokens`, `--tool-choice-type`, `--response-format-type`) names the JSON option it is part
 * of: the two together are a usage error. The scope options are the shared ones (src/options/scope-flags.ts).
 * Loaded for --help and completion: literals only.
 */
import type { DeclaredFlag } from '../command.js';

/** string: as typed; int/number: a number; bool: true/false; json: inline JSON or @file; list: comma-separated or a JSON array. */
export type BodyFlagKind = 'string' | 'int' | 'number' | 'bool' | 'json' | 'list';

export interface BodyFlag extends DeclaredFlag {
  arg: string;
  /** commander's key for the flag. */
  key: string;
  /** Where the value goes in the request body. */
  path: readonly string[];
  kind: BodyFlagKind;
  /** The JSON option this flag is one field of (mutually exclusive with it). */
  twinOf?: string;
  required?: boolean;
}

const MODEL_ID = {
  flag: '--model-id',
  arg: '<id>',
  key: 'modelId',
  path: ['model_id'],
  kind: 'string',
  required: true,
  description: 'the model (required)',
} as const satisfies BodyFlag;

/** `text chat` and `text chat-stream`, in cpdctl's order. */
export const TEXT_CHAT_FLAGS = [
  MODEL_ID,
  {
    flag: '--messages',
    arg: '<json|@file>',
    key: 'messages',
    path: ['messages'],
    kind: 'json',
    required: true,
    description: 'the conversation, a JSON array of {"role", "content", …} or @file (required; 1 to 1000 messages)',
  },
  {
    flag: '--frequency-penalty',
    arg: '<x>',
    key: 'frequencyPenalty',
    path: ['frequency_penalty'],
    kind: 'number',
    description: 'penalize tokens by how often they appeared, -2 to 2 (default 0)',
  },
  {
    flag: '--logit-bias',
    arg: '<json|@file>',
    key: 'logitBias',
    path: ['logit_bias'],
    kind: 'json',
    description: 'JSON map of token to bias: positive makes it likelier, negative less likely',
  },
  {
    flag: '--logprobs',
    arg: '[bool]',
    key: 'logprobs',
    path: ['logprobs'],
    kind: 'bool',
    description: 'return the log probability of each answer token (default false)',
  },
  {
    flag: '--max-tokens',
    arg: '<n>',
    key: 'maxTokens',
    path: ['max_tokens'],
    kind: 'int',
    description: 'most tokens in the answer (default 1024)',
  },
  {
    flag: '--n',
    arg: '<n>',
    key: 'n',
    path: ['n'],
    kind: 'int',
    description: 'answers to generate for each input (default 1)',
  },
  {
    flag: '--presence-penalty',
    arg: '<x>',
    key: 'presencePenalty',
    path: ['presence_penalty'],
    kind: 'number',
    description: 'penalize tokens that appeared at all, -2 to 2 (default 0)',
  },
  {
    flag: '--response-format',
    arg: '<json|@file>',
    key: 'responseFormat',
    path: ['response_format'],
    kind: 'json',
    description: 'the answer format as JSON or @file, e.g. {"type": "json_object"}',
  },
  {
    flag: '--response-format-type',
    arg: '<type>',
    key: 'responseFormatType',
    path: ['response_format', 'type'],
    kind: 'string',
    twinOf: '--response-format',
    description: 'json_object: the answer is valid JSON (say so in a message too)',
  },
  {
    flag: '--seed',
    arg: '<n>',
    key: 'seed',
    path: ['seed'],
    kind: 'int',
    description: 'random seed, for repeatable sampling',
  },
  {
    flag: '--stop',
    arg: '<list>',
    key: 'stop',
    path: ['stop'],
    kind: 'list',
    repeatable: true,
    description: 'up to 4 stop sequences: comma-separated (\\, for a comma) or a JSON array',
  },
  {
    flag: '--temperature',
    arg: '<x>',
    key: 'temperature',
    path: ['temperature'],
    kind: 'number',
    description: 'sampling temperature, 0 to 2 (default 1)',
  },
  {
    flag: '--time-limit',
    arg: '<ms>',
    key: 'timeLimit',
    path: ['time_limit'],
    kind: 'int',
    description: 'stop after this many milliseconds, > 0; the text so far is returned',
  },
  {
    flag: '--tool-choice',
    arg: '<json|@file>',
    key: 'toolChoice',
    path: ['tool_choice'],
    kind: 'json',
    description: 'force one tool: {"type": "function", "function": {"name": "…"}} or @file',
  },
  {
    flag: '--tool-choice-function',
    arg: '<json|@file>',
    key: 'toolChoiceFunction',
    path: ['tool_choice', 'function'],
    kind: 'json',
    twinOf: '--tool-choice',
    description: 'the forced tool as JSON: {"name": "…"}',
  },
  {
    flag: '--tool-choice-option',
    arg: '<option>',
    key: 'toolChoiceOption',
    path: ['tool_choice_option'],
    kind: 'string',
    description: 'auto (the model may call tools), none or required',
  },
  {
    flag: '--tool-choice-type',
    arg: '<type>',
    key: 'toolChoiceType',
    path: ['tool_choice', 'type'],
    kind: 'string',
    twinOf: '--tool-choice',
    description: "the forced tool's type: function",
  },
  {
    flag: '--tools',
    arg: '<json|@file>',
    key: 'tools',
    path: ['tools'],
    kind: 'json',
    description: 'functions the model may call, a JSON array of {"type": "function", "function": {…}} or @file',
  },
  {
    flag: '--top-logprobs',
    arg: '<n>',
    key: 'topLogprobs',
    path: ['top_logprobs'],
    kind: 'int',
    description: 'likeliest alternatives per token, 0 to 20 (needs --logprobs)',
  },
  {
    flag: '--top-p',
    arg: '<x>',
    key: 'topP',
    path: ['top_p'],
    kind: 'number',
    description: 'nucleus sampling, above 0 and at most 1 (default 1)',
  },
] as const satisfies readonly BodyFlag[];

/** `text calculate-embeddings`. */
export const TEXT_EMBEDDINGS_FLAGS = [
  MODEL_ID,
  {
    flag: '--inputs',
    arg: '<list>',
    key: 'inputs',
    path: ['inputs'],
    kind: 'list',
    repeatable: true,
    required: true,
    description:
      'the texts (required; up to 1000): repeat the flag, separate with commas (\\, for one), or a JSON array',
  },
  {
    flag: '--parameters',
    arg: '<json|@file>',
    key: 'parameters',
    path: ['parameters'],
    kind: 'json',
    description: 'JSON or @file: {"truncate_input_tokens": n, "return_options": {"input_text": true}}',
  },
  {
    flag: '--parameters-return-options',
    arg: '<json|@file>',
    key: 'parametersReturnOptions',
    path: ['parameters', 'return_options'],
    kind: 'json',
    twinOf: '--parameters',
    description: 'JSON or @file: {"input_text": true} returns each text with its vector',
  },
  {
    flag: '--parameters-truncate-input-tokens',
    arg: '<int>',
    key: 'parametersTruncateInputTokens',
    path: ['parameters', 'truncate_input_tokens'],
    kind: 'int',
    twinOf: '--parameters',
    description: 'keep only the first N tokens of each text, >= 0 (0 = no truncation)',
  },
] as const satisfies readonly BodyFlag[];

/** `text rerank`. */
export const TEXT_RERANK_FLAGS = [
  MODEL_ID,
  {
    flag: '--inputs',
    arg: '<json|@file>',
    key: 'inputs',
    path: ['inputs'],
    kind: 'json',
    required: true,
    description: 'the texts to rank, a JSON array of {"text": …} (or of strings) or @file (required; up to 1000)',
  },
  {
    flag: '--query',
    arg: '<text>',
    key: 'query',
    path: ['query'],
    kind: 'string',
    required: true,
    description: 'what the texts are ranked against (required)',
  },
  {
    flag: '--parameters',
    arg: '<json|@file>',
    key: 'parameters',
    path: ['parameters'],
    kind: 'json',
    description: 'JSON or @file: {"truncate_input_tokens": n, "return_options": {"top_n", "inputs", "query"}}',
  },
  {
    flag: '--parameters-return-options',
    arg: '<json|@file>',
    key: 'parametersReturnOptions',
    path: ['parameters', 'return_options'],
    kind: 'json',
    twinOf: '--parameters',
    description: 'JSON or @file: {"top_n": n, "inputs": bool, "query": bool}',
  },
  {
    flag: '--parameters-truncate-input-tokens',
    arg: '<int>',
    key: 'parametersTruncateInputTokens',
    path: ['parameters', 'truncate_input_tokens'],
    kind: 'int',
    twinOf: '--parameters',
    description: 'keep only the first N tokens of each text, >= 1',
  },
] as const satisfies readonly BodyFlag[];

/** `text tokenize`. */
export const TEXT_TOKENIZE_FLAGS = [
  MODEL_ID,
  {
    flag: '--input',
    arg: '<text>',
    key: 'input',
    path: ['input'],
    kind: 'string',
    required: true,
    description: 'the text to tokenize (required)',
  },
  {
    flag: '--parameters',
    arg: '<json|@file>',
    key: 'parameters',
    path: ['parameters'],
    kind: 'json',
    description: 'JSON or @file: {"return_tokens": true}',
  },
  {
    flag: '--parameters-return-tokens',
    arg: '[bool]',
    key: 'parametersReturnTokens',
    path: ['parameters', 'return_tokens'],
    kind: 'bool',
    twinOf: '--parameters',
    description: 'return the tokens too, not only their count (default false)',
  },
] as const satisfies readonly BodyFlag[];
