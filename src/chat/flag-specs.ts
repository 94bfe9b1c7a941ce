/**
 * The flags of `chat`, as plain data (read for --help and shell completion, so cheap to import). The sampling flags
 * have the names and short forms of `complete`; they set the canonical chat parameters of src/contract/chat.ts.
 */
import { type DeclaredFlag, type OptionSpec, type OptionValues, optionSpecs, withoutOptions } from '../command.js';
import { BATCH_FLAG_SPECS } from '../options/batch-flag-specs.js';
import type { ChatParameters } from '../contract/chat.js';

/**
 * A flag that sets one chat parameter: its command-line form, help, commander key and how the text becomes a value.
 * `logprobs` is `--logprobs [n]`: true alone, or a count of alternatives (src/chat/parameters.ts reads it apart).
 */
export interface ChatParameterFlag extends DeclaredFlag {
  key: string;
  name: keyof ChatParameters;
  kind: 'int' | 'number' | 'strings' | 'logprobs';
}

/** The sampling flags, with the names and short forms of `complete`'s, declared once. */
export const CHAT_PARAMETER_FLAGS = [
  {
    flag: '--max-tokens',
    arg: '<n>',
    description: 'most tokens in the answer (max_tokens)',
    key: 'maxTokens',
    name: 'max_tokens',
    kind: 'int',
  },
  {
    flag: '--temperature',
    short: '-t',
    arg: '<x>',
    description: 'sampling temperature, 0 to 2',
    key: 'temperature',
    name: 'temperature',
    kind: 'number',
  },
  {
    flag: '--top-p',
    arg: '<x>',
    description: 'nucleus sampling, above 0 and at most 1',
    key: 'topP',
    name: 'top_p',
    kind: 'number',
  },
  {
    flag: '--stop',
    arg: '<text>',
    description: 'stop when this text is generated (repeatable)',
    repeatable: true,
    key: 'stop',
    name: 'stop',
    kind: 'strings',
  },
  {
    flag: '--seed',
    arg: '<n>',
    description: 'random seed, for repeatable sampling',
    key: 'seed',
    name: 'seed',
    kind: 'int',
  },
  {
    flag: '--choices',
    short: '-n',
    arg: '<count>',
    description: 'answers per request (n)',
    key: 'choices',
    name: 'n',
    kind: 'int',
  },
  {
    flag: '--logprobs',
    arg: '[n]',
    description: 'return the log-probability of each answer token, and the n most likely alternatives',
    key: 'logprobs',
    name: 'logprobs',
    kind: 'logprobs',
  },
  {
    flag: '--top-logprobs',
    arg: '<n>',
    description: 'alternatives per token, 0 to 20 (implies --logprobs)',
    key: 'topLogprobs',
    name: 'top_logprobs',
    kind: 'int',
  },
] as const satisfies readonly ChatParameterFlag[];

/** Tools and structured output (issue 24; docs/protocols/chat.md has each dialect's fields). */
export const CHAT_TOOL_OPTION_SPECS = [
  {
    flags: '--tools <json|@file>',
    description:
      'functions the model may call: a JSON array of {"type": "function", "function": {"name", "description"?, "parameters"?}}',
  },
  { flags: '--tool-choice <choice>', description: 'auto, none, required, or the name of one of the tools' },
  {
    flags: '--parallel-tool-calls',
    description: 'let the model call several tools in one turn (where the API has it)',
  },
  { flags: '--no-parallel-tool-calls', description: 'at most one tool call per turn (where the API has it)' },
  {
    flags: '--run-tool <name=command>',
    description:
      "run COMMAND (no shell; the call's arguments as JSON on stdin, its stdout the result) when the model calls NAME, and go on (repeatable)",
    repeatable: true,
  },
  { flags: '--max-tool-rounds <n>', description: 'most requests of a --run-tool conversation (default 8)' },
  { flags: '--tool-timeout <ms>', description: 'how long a --run-tool command may run (default 60000)' },
  { flags: '-y, --yes', description: 'run --run-tool commands without asking (needed without a terminal)' },
  {
    flags: '--response-format <type>',
    description: 'text, json_object or json_schema (the answer is checked; text output prints the JSON alone)',
  },
  {
    flags: '--json-schema <json|@file>',
    description: 'the JSON Schema the answer must match (or {"name", "schema", "strict"}); implies json_schema',
  },
  {
    flags: '--schema-name <name>',
    description: 'the schema\'s name on the wire (default: from the file, or "response")',
  },
  {
    flags: '--schema-retries <n>',
    description: 'ask again this many times, with the validation errors, when the answer does not match (default 0)',
  },
] as const satisfies readonly OptionSpec[];

export const CHAT_OPTION_SPECS = [
  {
    flags: '-m, --model <name>',
    description:
      "model (watsonx model_id, Azure deployment, OpenAI-compatible or Aleph Alpha model); default: the profile's defaults.model",
  },
  {
    flags: '--id-or-name <deployment>',
    description: 'a watsonx deployment to chat with instead of a model (/ml/v1/deployments/ID/text/chat)',
  },
  {
    flags: '--api <chat-completions|responses>',
    description:
      "the chat API to call where a provider has both (openai, azure-openai: responses calls /v1/responses); default: the profile's api:, else chat-completions",
  },
  {
    flags: '--system <text>',
    description: 'the system message, first in the conversation (replaces one from --continue)',
  },
  {
    flags: '--message <role=text>',
    description: 'a message of the conversation, role system, user or assistant (repeatable, in order)',
    repeatable: true,
  },
  {
    flags: '--messages <json|@file|@->',
    description: 'the conversation as a JSON array of {"role", "content"} (@- reads stdin)',
  },
  {
    flags: '--tool-result <id=text|id=@file>',
    description: 'a tool message answering the tool call ID of the last assistant turn (repeatable)',
    repeatable: true,
  },
  ...optionSpecs(CHAT_PARAMETER_FLAGS),
  {
    flags: '--parameters <json|@file>',
    description:
      'chat parameters as JSON (max_tokens, temperature, top_p, stop, seed, n, logprobs, top_logprobs, frequency_penalty, presence_penalty, time_limit); the flags above override its fields',
  },
  ...CHAT_TOOL_OPTION_SPECS,
  { flags: '--extra <json|@file>', description: 'provider-specific body fields merged into the wire request' },
  { flags: '--stream', description: 'stream the answer as it arrives (default on a terminal)' },
  { flags: '--no-stream', description: 'wait for the whole answer' },
  { flags: '--raw', description: "print the provider's own response body (streaming: its events as JSONL)" },
  {
    flags: '--ignore-unsupported',
    description: 'drop parameters the provider cannot take, with a warning, instead of failing',
  },
  {
    flags: '--save <file.jsonl>',
    description: 'write the conversation, the answer included, to this file (one message per line, mode 0600)',
  },
  {
    flags: '--continue <file.jsonl>',
    description: 'resume the conversation saved in this file and append the new turns to it',
  },
  { flags: '--force', description: 'let --save replace a file that exists (without it, an existing file is refused)' },
  {
    flags: '--batch <file.jsonl|->',
    description:
      'one chat per line of a JSONL file (- for stdin): {"messages": [...], "parameters"?: {...}, "id"?: ...}; JSONL records out',
  },
  ...withoutOptions(BATCH_FLAG_SPECS, '--batch'),
] as const satisfies readonly OptionSpec[];

/** What `chat` receives for the flags above (the command adds its message words as `args`). */
export type ChatOptions = OptionValues<typeof CHAT_OPTION_SPECS>;
