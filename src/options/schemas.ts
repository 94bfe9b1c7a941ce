/**
 * zod schemas of the canonical request, with the ranges of docs/protocols/watsonx.md.
 *
 * Only ever loaded lazily (`await import('./schemas.js')` from generate-request.ts and its
 * siblings), so the static zod import is fine: `--help` and `--version` never pay its ~50 ms.
 *
 * Each field schema carries the phrase that completes "must be …" (registered below), so a value
 * from a flag and the same value inside a JSON option produce the same message.
 */
import * as z from 'zod';
import type { CanonicalParameters } from '../contract/canonical.js';

const EXPECTATIONS = z.registry<{ expect: string }>();

function expecting<T extends z.ZodType>(text: string, schema: T): T {
  EXPECTATIONS.add(schema, { expect: text });
  return schema;
}

const bool = () => expecting('true or false', z.boolean());
const intAtLeast = (min: number) => expecting(`an integer of ${min} or more`, z.int().min(min));
const probability = () => expecting('a number greater than 0 and at most 1', z.number().gt(0).lte(1));

/** Memoised: each schema is built the first time something asks for it (start-up cost, docs/performance.md). */
function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

const lengthPenalty = once(() =>
  expecting(
    'an object like {"decay_factor": 2.5, "start_index": 5}',
    z.strictObject({
      decay_factor: expecting('a number greater than 1', z.number().gt(1)).optional(),
      start_index: intAtLeast(0).optional(),
    }),
  ),
);

const returnOptions = once(() =>
  expecting(
    'an object like {"generated_tokens": true, "top_n_tokens": 2}',
    z.strictObject({
      input_text: bool().optional(),
      generated_tokens: bool().optional(),
      input_tokens: bool().optional(),
      token_logprobs: bool().optional(),
      token_ranks: bool().optional(),
      top_n_tokens: expecting('an integer from 0 to 5', z.int().min(0).max(5)).optional(),
    }),
  ),
);

/** Each canonical parameter's schema, by field, in the order messages list them; built on first use. */
const PARAMETER_FIELDS = {
  decoding_method: once(() => expecting('"greedy" or "sample"', z.enum(['greedy', 'sample'])).optional()),
  length_penalty: once(() => lengthPenalty().optional()),
  max_new_tokens: once(() => intAtLeast(0).optional()),
  min_new_tokens: once(() => intAtLeast(0).optional()),
  random_seed: once(() => intAtLeast(1).optional()),
  stop_sequences: once(() =>
    expecting(
      'a list of at most 6 non-empty strings',
      z.array(expecting('a non-empty string', z.string().min(1))).max(6),
    ).optional(),
  ),
  temperature: once(() => expecting('a number from 0 to 2', z.number().min(0).max(2)).optional()),
  time_limit: once(() => expecting('an integer greater than 0 (milliseconds)', z.int().gt(0)).optional()),
  top_k: once(() => expecting('an integer from 1 to 100', z.int().min(1).max(100)).optional()),
  top_p: once(() => probability().optional()),
  repetition_penalty: once(() => expecting('a number from 1 to 2', z.number().min(1).max(2)).optional()),
  truncate_input_tokens: once(() => intAtLeast(0).optional()),
  return_options: once(() => returnOptions().optional()),
  include_stop_sequence: once(() => bool().optional()),
  typical_p: once(() => probability().optional()),
  prompt_variables: once(() =>
    expecting(
      'an object of strings, like {"city": "Paris"}',
      z.record(z.string(), expecting('a string', z.string())),
    ).optional(),
  ),
};
type ParameterField = keyof typeof PARAMETER_FIELDS;
type ParameterShape = { [K in ParameterField]: ReturnType<(typeof PARAMETER_FIELDS)[K]> };

/** The parameters object over the given fields (all optional), with the rule that spans two of them. */
function parametersOver<F extends ParameterField>(fields: readonly F[]) {
  const shape = Object.fromEntries(fields.map((f) => [f, PARAMETER_FIELDS[f]()])) as Pick<ParameterShape, F>;
  return expecting(
    'a JSON object',
    z.strictObject(shape).superRefine((p, ctx) => {
      const { min_new_tokens: min, max_new_tokens: max } = p as { min_new_tokens?: number; max_new_tokens?: number };
      // The refinement also runs when fields failed; compare only values that are themselves valid.
      if (Number.isSafeInteger(min) && Number.isSafeInteger(max) && min! >= 0 && max! >= 0 && min! > max!) {
        ctx.addIssue({
          code: 'custom',
          path: ['min_new_tokens'],
          message: 'min_new_tokens must not be greater than max_new_tokens',
          params: { compareTo: ['max_new_tokens'], relation: 'must not be greater than' },
        });
      }
    }),
  );
}

const ALL_FIELDS = Object.keys(PARAMETER_FIELDS) as ParameterField[];

/** The whole parameters schema: every field, for messages, suggestions and values that are not plain objects. */
export const parametersSchema = once(() => parametersOver(ALL_FIELDS));

// Compile-time guard: what the schema accepts is a CanonicalParameters (src/contract/canonical.ts).
const parametersMatchCanonical: (p: z.output<ReturnType<typeof parametersSchema>>) => CanonicalParameters = (p) => p;
void parametersMatchCanonical;

const partialSchemas = new Map<string, z.ZodType<CanonicalParameters>>();

/**
 * The schema to validate `value` with. An object whose keys are all known fields is checked against those fields
 * only: it passes or fails exactly as under the whole schema (every field is optional), but a request that sets
 * one parameter builds one field's schema, not sixteen. Anything else gets the whole schema, so that an unknown
 * field's message and suggestions are the whole schema's.
 */
export function parametersSchemaFor(value: unknown): z.ZodType<CanonicalParameters> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return parametersSchema();
  const keys = Object.keys(value);
  if (!keys.every((k) => Object.hasOwn(PARAMETER_FIELDS, k))) return parametersSchema();
  const fields = ALL_FIELDS.filter((f) => keys.includes(f));
  const id = fields.join(',');
  let schema = partialSchemas.get(id);
  if (schema === undefined) {
    // The partial shape's output is a subset of the whole one's, which the guard above ties to CanonicalParameters.
    schema = parametersOver(fields) as unknown as z.ZodType<CanonicalParameters>;
    partialSchemas.set(id, schema);
  }
  return schema;
}

const threshold = () =>
  expecting(
    'an object like {"enabled": true, "threshold": 0.5}',
    z.strictObject({
      enabled: bool().optional(),
      threshold: expecting('a number from 0 to 1', z.number().min(0).max(1)).optional(),
    }),
  );

const moderationType = () =>
  expecting(
    'an object with "input", "output" and "mask"',
    z.strictObject({
      input: threshold().optional(),
      output: threshold().optional(),
      mask: expecting(
        'an object like {"remove_entity_value": true}',
        z.strictObject({ remove_entity_value: bool().optional() }),
      ).optional(),
    }),
  );

/** hap, pii and input_ranges are checked; other keys pass, since the service adds moderation types. */
export const moderationsSchema = once(() =>
  expecting(
    'a JSON object',
    z.looseObject({
      hap: moderationType().optional(),
      pii: moderationType().optional(),
      input_ranges: expecting(
        'a list of objects like {"start": 0, "end": 10}',
        z.array(
          expecting(
            'an object like {"start": 0, "end": 10}',
            z.strictObject({ start: intAtLeast(0), end: intAtLeast(0) }),
          ),
        ),
      ).optional(),
    }),
  ),
);

/**
 * Names other protocols use for canonical fields (docs/design.md §3), suggested when one turns up as an
 * unknown field: edit distance alone would not connect "max_tokens" to "max_new_tokens".
 */
export const FIELD_SYNONYMS: Readonly<Record<string, string>> = {
  max_tokens: 'max_new_tokens',
  maximum_tokens: 'max_new_tokens',
  min_tokens: 'min_new_tokens',
  minimum_tokens: 'min_new_tokens',
  stop: 'stop_sequences',
  seed: 'random_seed',
  echo: 'input_text',
  logprobs: 'token_logprobs',
  log_probs: 'token_logprobs',
};

/** `--extra`: any keys, merged into the provider's wire body. */
export const extraSchema = once(() => expecting('a JSON object', z.record(z.string(), z.unknown())));

/** Just enough of zod's internal definition to walk a schema along an issue path. */
interface WalkableDef {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
}

function defOf(schema: z.ZodType): WalkableDef {
  // zod's public types do not expose the def's per-kind fields; the cast reads only stable ones.
  return schema._zod.def as unknown as WalkableDef;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (
    let def = defOf(s);
    (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType;
    def = defOf(s)
  ) {
    s = def.innerType;
  }
  return s;
}

/** The schema that validates the value at `path` under `root`, if the path is known. */
export function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = unwrap(root);
  for (const seg of path) {
    const def = defOf(s);
    if (def.type === 'object' && typeof seg === 'string') s = def.shape?.[seg];
    else if (def.type === 'array' && typeof seg === 'number') s = def.element;
    else if (def.type === 'record') s = def.valueType;
    else return undefined;
    if (s === undefined) return undefined;
    s = unwrap(s);
  }
  return s;
}

/** The phrase completing "must be …" for the value at `path`. */
export function expectationAt(root: z.ZodType, path: readonly PropertyKey[]): string | undefined {
  const s = schemaAt(root, path);
  return s === undefined ? undefined : EXPECTATIONS.get(s)?.expect;
}

/** Field names an object at `path` knows, for did-you-mean suggestions. */
export function knownFieldsAt(root: z.ZodType, path: readonly PropertyKey[]): string[] {
  const s = schemaAt(root, path);
  const shape = s === undefined ? undefined : defOf(s).shape;
  return shape ? Object.keys(shape) : [];
}
