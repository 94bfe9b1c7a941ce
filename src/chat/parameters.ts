/**
 * The chat parameters: `--parameters JSON|@file` below the flags (`--max-tokens`, `-t`, `--top-p`, `--stop`,
 * `--seed`, `-n`, `--logprobs [n]`, `--top-logprobs`), each field checked by zod with the range the services
 * document; a message names the flag or the field the value came from.
 */
import * as z from 'zod';
import { UsageError } from '../contract/errors.js';
import { readJsonOption, type JsonOptionIo } from '../options/json-option.js';
import type { ChatParameters } from '../contract/chat.js';
import { CHAT_PARAMETER_FLAGS, type ChatOptions } from './flag-specs.js';
import { parseIntegerFlag } from '../options/integer-flag.js';

const RULES = {
  max_tokens: [z.int().min(1), 'an integer of 1 or more'],
  temperature: [z.number().min(0).max(2), 'a number from 0 to 2'],
  top_p: [z.number().gt(0).lte(1), 'a number greater than 0 and at most 1'],
  stop: [z.array(z.string().min(1)).min(1), 'a list of non-empty strings'],
  seed: [z.int(), 'an integer'],
  n: [z.int().min(1).max(128), 'an integer from 1 to 128'],
  logprobs: [z.boolean(), 'true or false'],
  top_logprobs: [z.int().min(0).max(20), 'an integer from 0 to 20'],
  frequency_penalty: [z.number().min(-2).max(2), 'a number from -2 to 2'],
  presence_penalty: [z.number().min(-2).max(2), 'a number from -2 to 2'],
  time_limit: [z.int().gt(0), 'an integer greater than 0 (milliseconds)'],
} as const satisfies Record<keyof ChatParameters, readonly [z.ZodType, string]>;

type Name = keyof typeof RULES;
const NAMES = Object.keys(RULES) as Name[];

/** What the builder reads: `--parameters` and the parameter flags (src/chat/flag-specs.ts), as commander gives them. */
export type ChatParameterOptions = Pick<ChatOptions, 'parameters' | (typeof CHAT_PARAMETER_FLAGS)[number]['key']>;

function check(name: Name, value: unknown, where: string): unknown {
  const [schema, expected] = RULES[name];
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${where} must be ${expected}, got ${JSON.stringify(value)}`);
  return parsed.data;
}

function fromText(kind: 'int' | 'number', text: string): unknown {
  const t = text.trim();
  if (t === '' || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return text;
  const n = Number(t);
  return kind === 'int' && !Number.isInteger(n) ? t : n;
}

/** `--parameters` (an object of canonical fields) with the flags over it. */
export async function buildChatParameters(options: ChatParameterOptions, io: JsonOptionIo): Promise<ChatParameters> {
  const out: Record<string, unknown> = {};
  if (options.parameters !== undefined) {
    const value = await readJsonOption('--parameters', options.parameters, io);
    Object.assign(out, checkChatParameterObject(value, '--parameters'));
  }
  for (const f of CHAT_PARAMETER_FLAGS) {
    if (f.kind === 'logprobs') continue;
    // Read row by row, the key is any of the table's: its value is a string, or the list of the repeatable --stop.
    const raw = options[f.key];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw : f.kind === 'strings' ? [raw] : fromText(f.kind, raw);
    out[f.name] = check(f.name, value, f.flag);
  }
  const logprobs = options.logprobs;
  if (logprobs !== undefined) {
    out.logprobs = true;
    // `--logprobs` alone is true; `--logprobs N` gives the count of alternatives as text.
    if (logprobs !== true) {
      if (options.topLogprobs !== undefined)
        throw new UsageError('give the number of alternatives once: --logprobs N or --top-logprobs N');
      const count = parseIntegerFlag('--logprobs', logprobs, {
        min: 0,
        says: 'takes a number of alternatives from 0 to 20',
        hint: 'write --logprobs=N, or put --logprobs after the message words',
      });
      out.top_logprobs = check('top_logprobs', count, '--logprobs');
    }
  }
  return out as ChatParameters;
}

/** An object of canonical chat parameters (`--parameters`, a batch line's `parameters`), each field checked. */
export function checkChatParameterObject(value: unknown, where: string): ChatParameters {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${where} must be a JSON object of chat parameters`);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!(NAMES as string[]).includes(key)) {
      throw new UsageError(`${where}: unknown chat parameter "${key}" (known: ${NAMES.join(', ')})`, {
        hint: 'provider-specific body fields go in --extra',
      });
    }
    out[key] = check(key as Name, v, `${where}: ${key}`);
  }
  return out as ChatParameters;
}
