/**
 * The flags of `chat`, as plain data (read for --help and shell completion, so cheap to import). The sampling flags
 * have the names and short forms of `complete`; they set the canonical chat parameters of src/chat/canonical.ts.
 */
import type { OptionSpec } from '../command.js';
import { BATCH_FLAG_SPECS } from '../options/batch-flag-specs.js';

export const CHAT_OPTION_SPECS: OptionSpec[] = [
  {
    flags: '-m, --model <name>',
    description:
      "model (watsonx model_id, Azure deployment, OpenAI-compatible or Aleph Alpha model); default: the profile's defaults.model",
  },
  {
    flags: '--id-or-name <deployment>',
    description: 'a watsonx deployment to chat with (/ml/v1/deployments/{id_or_name}/text/chat) instead of a model',
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
  { flags: '--max-tokens <n>', description: 'most tokens in the answer (max_tokens)' },
  { flags: '-t, --temperature <x>', description: 'sampling temperature, 0 to 2' },
  { flags: '--top-p <x>', description: 'nucleus sampling, above 0 and at most 1' },
  { flags: '--stop <text>', description: 'stop when this text is generated (repeatable)', repeatable: true },
  { flags: '--seed <n>', description: 'random seed, for repeatable sampling' },
  { flags: '-n, --choices <count>', description: 'answers per request (n)' },
  {
    flags: '--logprobs [n]',
    description: 'return the log-probability of each answer token, and the n most likely alternatives',
  },
  { flags: '--top-logprobs <n>', description: 'alternatives per token, 0 to 20 (implies --logprobs)' },
  {
    flags: '--parameters <json|@file>',
    description:
      'chat parameters as JSON (max_tokens, temperature, top_p, stop, seed, n, logprobs, top_logprobs, frequency_penalty, presence_penalty, time_limit); the flags above override its fields',
  },
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
  {
    flags: '--batch <file.jsonl|->',
    description:
      'one chat per line of a JSONL file (- for stdin): {"messages": [...], "parameters"?: {...}, "id"?: ...}; JSONL records out',
  },
  ...BATCH_FLAG_SPECS.filter((o) => !o.flags.startsWith('--batch')),
];
