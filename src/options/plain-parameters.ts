/**
 * The common case of parameter validation without zod: a request that sets a few plain parameters (numbers in
 * range, a decoding method, stop sequences) is accepted here, and zod with its schemas (./schemas.ts: about 10 M
 * instructions to load and build, docs/performance.md) is loaded only for anything else. Each check below accepts
 * a subset of what its schema in ./schemas.ts accepts, and the result is what the schema's parse returns (the
 * fields in the schema's order); whatever is not certainly valid (nested objects, a value out of range, an unknown
 * field, min above max) goes to the schema, which gives the message. test/unit/plain-parameters.test.ts holds the
 * two to the same answers.
 */
import type { CanonicalParameters } from '../contract/canonical.js';

const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (v: unknown) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max && !Object.is(v, -0);
const number =
  (min: number, max: number, minExclusive = false) =>
  (v: unknown) =>
    typeof v === 'number' && Number.isFinite(v) && (minExclusive ? v > min : v >= min) && v <= max && !Object.is(v, -0);
const boolean = (v: unknown) => typeof v === 'boolean';

/** Schema order (PARAMETER_FIELDS in ./schemas.ts); a field without a check here always goes to zod. */
const CHECKS: Readonly<Record<keyof CanonicalParameters, ((v: unknown) => boolean) | undefined>> = {
  decoding_method: (v) => v === 'greedy' || v === 'sample',
  length_penalty: undefined,
  max_new_tokens: integer(0),
  min_new_tokens: integer(0),
  random_seed: integer(1),
  stop_sequences: (v) => {
    if (!Array.isArray(v) || v.length > 6) return false;
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string' || v[i].length === 0) return false;
    return true;
  },
  temperature: number(0, 2),
  time_limit: integer(1),
  top_k: integer(1, 100),
  top_p: number(0, 1, true),
  repetition_penalty: number(1, 2),
  truncate_input_tokens: integer(0),
  return_options: undefined,
  include_stop_sequence: boolean,
  typical_p: number(0, 1, true),
  prompt_variables: undefined,
};

/** The field names in the order the schema lists them (and its parse writes them). */
export const PLAIN_PARAMETER_ORDER = Object.keys(CHECKS) as (keyof CanonicalParameters)[];

/** `value` as the parameters schema would return it, when it is certainly valid; undefined: ask the schema. */
export function plainParameters(value: unknown): CanonicalParameters | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const given = value as Record<string, unknown>;
  const keys = Object.keys(given);
  if (Object.getOwnPropertySymbols(given).length > 0 || Object.getOwnPropertyNames(given).length !== keys.length)
    return undefined;
  for (const key of keys) {
    const check = Object.hasOwn(CHECKS, key) ? CHECKS[key as keyof CanonicalParameters] : undefined;
    if (check === undefined || !check(given[key])) return undefined;
  }
  const { min_new_tokens: min, max_new_tokens: max } = given as CanonicalParameters;
  if (min !== undefined && max !== undefined && min > max) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of PLAIN_PARAMETER_ORDER) {
    if (!Object.hasOwn(given, key)) continue;
    const v = given[key];
    out[key] = Array.isArray(v) ? [...v] : v;
  }
  return out as CanonicalParameters;
}
