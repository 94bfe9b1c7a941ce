/**
 * Checks a generate body the way TGI and KServe do: `text_input` must be a non-empty string and every known
 * parameter must have the right type and range (422 naming the field). Unknown keys in `parameters` are accepted
 * and ignored, as Triton passes them on to the backend.
 *
 * Known keys (the spec's, then the extras, with the aliases other servers use):
 *   temperature (0 = greedy), top_p, max_tokens | max_new_tokens, stop, details,
 *   top_k, seed | random_seed, min_new_tokens | min_tokens, repetition_penalty, typical_p,
 *   truncate_input_tokens | truncate, length_penalty {decay_factor, start_index}, include_stop_sequence,
 *   moderations {hap, pii, …}, token_ranks (adds `rank` to tokens), top_n_tokens (TGI: `top_tokens` in details),
 *   exclude_input_in_output (vLLM; false puts the prompt in front of a non-streamed answer; default true),
 *   return_num_input_tokens / return_num_output_tokens (vLLM; top-level counts).
 */
import type { CanonicalParameters, Moderations } from '../../../src/contract/canonical.js';

export interface OipGenerateRequest {
  textInput: string;
  /** The engine's (canonical) parameters. */
  parameters: CanonicalParameters;
  moderations: Moderations | undefined;
  details: boolean;
  tokenRanks: boolean;
  topNTokens: number;
  excludeInput: boolean;
  returnNumInputTokens: boolean;
  returnNumOutputTokens: boolean;
}

export type OipValidation = { ok: true; request: OipGenerateRequest } | { ok: false; message: string };

const MAX_TOP_N_TOKENS = 5;

type Kind = 'number' | 'integer' | 'boolean' | 'strings' | 'object';

interface FieldSpec {
  /** The first name is the one messages use; the others are aliases other servers know. */
  names: readonly string[];
  kind: Kind;
  min?: number;
  /** True when `min` itself is not allowed. */
  aboveMin?: boolean;
  max?: number;
  apply(value: unknown, into: OipGenerateRequest): void;
}

const FIELDS: readonly FieldSpec[] = [
  {
    names: ['temperature'],
    kind: 'number',
    min: 0,
    apply: (v, r) => {
      r.parameters.temperature = v as number;
      if (v === 0) r.parameters.decoding_method = 'greedy';
    },
  },
  { names: ['top_p'], kind: 'number', min: 0, max: 1, apply: (v, r) => void (r.parameters.top_p = v as number) },
  {
    names: ['max_tokens', 'max_new_tokens'],
    kind: 'integer',
    min: 1,
    apply: (v, r) => void (r.parameters.max_new_tokens = v as number),
  },
  { names: ['stop'], kind: 'strings', apply: (v, r) => void (r.parameters.stop_sequences = v as string[]) },
  { names: ['details'], kind: 'boolean', apply: (v, r) => void (r.details = v as boolean) },
  { names: ['top_k'], kind: 'integer', min: 1, apply: (v, r) => void (r.parameters.top_k = v as number) },
  {
    names: ['seed', 'random_seed'],
    kind: 'integer',
    min: 0,
    apply: (v, r) => void (r.parameters.random_seed = v as number),
  },
  {
    names: ['min_new_tokens', 'min_tokens'],
    kind: 'integer',
    min: 0,
    apply: (v, r) => void (r.parameters.min_new_tokens = v as number),
  },
  {
    names: ['repetition_penalty'],
    kind: 'number',
    min: 0,
    aboveMin: true,
    apply: (v, r) => void (r.parameters.repetition_penalty = v as number),
  },
  {
    names: ['typical_p'],
    kind: 'number',
    min: 0,
    aboveMin: true,
    max: 1,
    apply: (v, r) => void (r.parameters.typical_p = v as number),
  },
  {
    names: ['truncate_input_tokens', 'truncate'],
    kind: 'integer',
    min: 0,
    apply: (v, r) => void (r.parameters.truncate_input_tokens = v as number),
  },
  {
    names: ['length_penalty'],
    kind: 'object',
    apply: (v, r) => void (r.parameters.length_penalty = v as CanonicalParameters['length_penalty']),
  },
  {
    names: ['include_stop_sequence'],
    kind: 'boolean',
    apply: (v, r) => void (r.parameters.include_stop_sequence = v as boolean),
  },
  { names: ['moderations'], kind: 'object', apply: (v, r) => void (r.moderations = v as Moderations) },
  { names: ['token_ranks'], kind: 'boolean', apply: (v, r) => void (r.tokenRanks = v as boolean) },
  {
    names: ['top_n_tokens'],
    kind: 'integer',
    min: 0,
    max: MAX_TOP_N_TOKENS,
    apply: (v, r) => void (r.topNTokens = v as number),
  },
  { names: ['exclude_input_in_output'], kind: 'boolean', apply: (v, r) => void (r.excludeInput = v as boolean) },
  {
    names: ['return_num_input_tokens'],
    kind: 'boolean',
    apply: (v, r) => void (r.returnNumInputTokens = v as boolean),
  },
  {
    names: ['return_num_output_tokens'],
    kind: 'boolean',
    apply: (v, r) => void (r.returnNumOutputTokens = v as boolean),
  },
];

const PREFIX = 'Input validation error: ';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shown(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/** The problem with one value, or undefined when it is fine. */
function problem(spec: FieldSpec, value: unknown): string | undefined {
  switch (spec.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'strings':
      return Array.isArray(value) && value.every((s) => typeof s === 'string')
        ? undefined
        : 'must be an array of strings';
    case 'object':
      return isRecord(value) ? undefined : 'must be an object';
    case 'number':
    case 'integer': {
      const what = spec.kind === 'integer' ? 'an integer' : 'a number';
      if (typeof value !== 'number' || !Number.isFinite(value) || (spec.kind === 'integer' && !Number.isInteger(value)))
        return `must be ${what}`;
      if (spec.min !== undefined && (spec.aboveMin ? value <= spec.min : value < spec.min)) {
        return `must be ${what} ${spec.aboveMin ? 'greater than' : 'greater than or equal to'} ${spec.min}`;
      }
      if (spec.max !== undefined && value > spec.max) return `must be ${what} less than or equal to ${spec.max}`;
      return undefined;
    }
  }
}

/** The canonical length_penalty object: decay_factor > 1, start_index ≥ 0 (the watsonx ranges the engine uses). */
function lengthPenaltyProblem(value: Record<string, unknown>): string | undefined {
  const { decay_factor: decay, start_index: start } = value;
  if (decay !== undefined && (typeof decay !== 'number' || !(decay > 1)))
    return '`parameters.length_penalty.decay_factor` must be a number greater than 1';
  if (start !== undefined && (typeof start !== 'number' || !Number.isInteger(start) || start < 0)) {
    return '`parameters.length_penalty.start_index` must be an integer greater than or equal to 0';
  }
  return undefined;
}

export function validateOipGenerateBody(json: unknown): OipValidation {
  const fail = (message: string): OipValidation => ({ ok: false, message: PREFIX + message });
  if (!isRecord(json)) return fail('the request body must be a JSON object');
  const text = json.text_input;
  if (text === undefined) return fail('`text_input` is required');
  if (typeof text !== 'string') return fail(`\`text_input\` must be a string, got ${shown(text)}`);
  if (text === '') return fail('`text_input` cannot be empty');
  const given = json.parameters ?? {};
  if (!isRecord(given)) return fail('`parameters` must be an object');

  const request: OipGenerateRequest = {
    textInput: text,
    parameters: {},
    moderations: undefined,
    details: false,
    tokenRanks: false,
    topNTokens: 0,
    excludeInput: true,
    returnNumInputTokens: false,
    returnNumOutputTokens: false,
  };
  for (const spec of FIELDS) {
    const name = spec.names.find((n) => given[n] !== undefined && given[n] !== null);
    if (name === undefined) continue;
    const value = given[name];
    const why = problem(spec, value);
    if (why !== undefined) return fail(`\`parameters.${name}\` ${why}, got ${shown(value)}`);
    if (spec.names[0] === 'length_penalty') {
      const nested = lengthPenaltyProblem(value as Record<string, unknown>);
      if (nested !== undefined) return fail(nested);
    }
    spec.apply(value, request);
  }
  return { ok: true, request };
}
