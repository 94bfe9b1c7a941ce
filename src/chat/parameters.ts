/**
 * The chat parameters: `--parameters JSON|@file` below the flags (`--max-tokens`, `-t`, `--top-p`, `--stop`,
 * `--seed`, `-n`, `--logprobs [n]`, `--top-logprobs`), each field checked by zod with the range the services
 * document; a message names the flag or the field the value came from.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { readJsonOption, type JsonOptionIo } from '../options/json-option.js';
import type { ChatParameters } from './canonical.js';

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

/** The flags that set one parameter each: commander key → parameter and how the text becomes a value. */
const FLAGS: ReadonlyArray<{ flag: string; key: string; name: Name; kind: 'int' | 'number' | 'strings' }> = [
  { flag: '--max-tokens', key: 'maxTokens', name: 'max_tokens', kind: 'int' },
  { flag: '--temperature', key: 'temperature', name: 'temperature', kind: 'number' },
  { flag: '--top-p', key: 'topP', name: 'top_p', kind: 'number' },
  { flag: '--stop', key: 'stop', name: 'stop', kind: 'strings' },
  { flag: '--seed', key: 'seed', name: 'seed', kind: 'int' },
  { flag: '--choices', key: 'choices', name: 'n', kind: 'int' },
  { flag: '--top-logprobs', key: 'topLogprobs', name: 'top_logprobs', kind: 'int' },
];

function last(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

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
export async function buildChatParameters(options: Record<string, unknown>, io: JsonOptionIo): Promise<ChatParameters> {
  const out: Record<string, unknown> = {};
  const json = last(options.parameters);
  if (json !== undefined) {
    if (typeof json !== 'string')
      throw new UsageError('--parameters needs a value: JSON, or @file to read it from a file');
    Object.assign(out, checkChatParameterObject(await readJsonOption('--parameters', json, io), '--parameters'));
  }
  for (const f of FLAGS) {
    const raw = options[f.key];
    if (raw === undefined) continue;
    const value = f.kind === 'strings' ? (Array.isArray(raw) ? raw : [raw]) : fromText(f.kind, String(last(raw)));
    out[f.name] = check(f.name, value, f.flag);
  }
  const logprobs = last(options.logprobs);
  if (logprobs !== undefined) {
    out.logprobs = true;
    if (typeof logprobs === 'string') {
      if (options.topLogprobs !== undefined)
        throw new UsageError('give the number of alternatives once: --logprobs N or --top-logprobs N');
      if (!/^\d+$/.test(logprobs.trim())) {
        throw new UsageError(
          `--logprobs takes a number of alternatives from 0 to 20, got ${JSON.stringify(logprobs)}`,
          {
            hint: 'write --logprobs=N, or put --logprobs after the message words',
          },
        );
      }
      out.top_logprobs = check('top_logprobs', Number(logprobs), '--logprobs');
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
