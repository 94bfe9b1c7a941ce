/**
 * Validates `/complete` bodies as the service does: every field of the 1.16 `CompletionRequest` (plus `stream`,
 * 1.19+) with its type and nullability; unknown fields, wrong types and missing required fields are a 400 whose
 * message names each field. zod comes with this module, which serve loads on its first request.
 */
import * as z from 'zod';
import { fieldName, type Issue } from '../../../src/emulator/core/zod-issue.js';

export type PromptItem =
  | { type: 'text'; data: string }
  | { type: 'image'; data: string }
  | { type: 'token_ids'; data: number[] };

/** The fields the embedded server acts on; the rest (penalties, biases, controls) are accepted and have no effect. */
export interface ValidCompletionRequest {
  model: string;
  prompt: string | PromptItem[];
  hosting?: 'aleph-alpha' | null;
  maximum_tokens: number;
  minimum_tokens?: number;
  echo?: boolean;
  temperature?: number | null;
  top_k?: number | null;
  top_p?: number | null;
  best_of?: number | null;
  n?: number | null;
  log_probs?: number | null;
  stop_sequences?: string[] | null;
  tokens?: boolean | null;
  raw_completion?: boolean;
  stream?: boolean;
}

export type Validation = { ok: true; body: ValidCompletionRequest } | { ok: false; message: string };

const MAX_PROBLEMS = 10;
/** zod reports "expected number" for a string in an integer field; this message lets the answer say "integer". */
const INTEGER = 'integer';

let schema: Promise<Awaited<ReturnType<typeof buildSchema>>> | undefined;

async function buildSchema() {
  // A missing value keeps zod's own message ("received undefined"), which becomes "is required".
  const int = () => z.int({ error: (issue) => (issue.input === undefined ? undefined : INTEGER) });
  const controls = z.array(z.record(z.string(), z.unknown())).optional();
  const promptItem = z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), data: z.string(), controls }),
    z.strictObject({
      type: z.literal('image'),
      data: z.string(),
      x: int().optional(),
      y: int().optional(),
      size: int().optional(),
      controls,
    }),
    z.strictObject({ type: z.literal('token_ids'), data: z.array(int().min(0)), controls }),
  ]);
  const strings = z.array(z.string());
  return z.strictObject({
    model: z.string().min(1),
    hosting: z.enum(['aleph-alpha']).nullable().optional(),
    prompt: z.union([z.string(), z.array(promptItem)]),
    maximum_tokens: int().min(0),
    minimum_tokens: int().min(0).optional(),
    echo: z.boolean().optional(),
    temperature: z.number().min(0).nullable().optional(),
    top_k: int().min(0).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    presence_penalty: z.number().nullable().optional(),
    frequency_penalty: z.number().nullable().optional(),
    sequence_penalty: z.number().optional(),
    sequence_penalty_min_length: int().min(1).optional(),
    repetition_penalties_include_prompt: z.boolean().nullable().optional(),
    repetition_penalties_include_completion: z.boolean().optional(),
    use_multiplicative_presence_penalty: z.boolean().nullable().optional(),
    use_multiplicative_frequency_penalty: z.boolean().optional(),
    use_multiplicative_sequence_penalty: z.boolean().optional(),
    penalty_bias: z.string().nullable().optional(),
    penalty_exceptions: strings.nullable().optional(),
    penalty_exceptions_include_stop_sequences: z.boolean().nullable().optional(),
    best_of: int().min(1).max(100).nullable().optional(),
    n: int().min(1).nullable().optional(),
    logit_bias: z.record(z.string(), z.number()).nullable().optional(),
    log_probs: int().min(0).nullable().optional(),
    stop_sequences: strings.nullable().optional(),
    tokens: z.boolean().nullable().optional(),
    raw_completion: z.boolean().optional(),
    disable_optimizations: z.boolean().nullable().optional(),
    completion_bias_inclusion: strings.optional(),
    completion_bias_inclusion_first_token_only: z.boolean().optional(),
    completion_bias_exclusion: strings.optional(),
    completion_bias_exclusion_first_token_only: z.boolean().optional(),
    contextual_control_threshold: z.number().nullable().optional(),
    control_log_additive: z.boolean().optional(),
    stream: z.boolean().optional(),
  });
}

export async function validateCompletionRequest(json: unknown): Promise<Validation> {
  schema ??= buildSchema();
  const parsed = (await schema).safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap(describeIssue).slice(0, MAX_PROBLEMS);
    return { ok: false, message: `Invalid request: ${problems.join('; ')}` };
  }
  const body = parsed.data as ValidCompletionRequest;
  const n = body.n ?? 1;
  if (body.minimum_tokens !== undefined && body.minimum_tokens > body.maximum_tokens) {
    return {
      ok: false,
      message: `Invalid request: 'minimum_tokens' (${body.minimum_tokens}) must not be greater than 'maximum_tokens' (${body.maximum_tokens})`,
    };
  }
  if (body.best_of != null && body.best_of <= n && !(body.best_of === 1 && n === 1)) {
    return { ok: false, message: `Invalid request: 'best_of' (${body.best_of}) must be greater than 'n' (${n})` };
  }
  return { ok: true, body };
}

function describeIssue(issue: Issue): string[] {
  const field = issue.path.length > 0 ? `'${fieldName(issue.path)}'` : 'the request body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return (issue.keys ?? []).map((k) => `unknown field '${fieldName([...issue.path, k])}'`);
    case 'invalid_type':
      if (issue.path.length === 0) return ['the request body must be a JSON object'];
      if (issue.message.includes('received undefined')) return [`${field} is required`];
      return [
        `${field} must be of type ${issue.expected === 'int' || issue.message === INTEGER ? 'integer' : (issue.expected ?? 'unknown')}`,
      ];
    case 'invalid_value':
      return [`${field} must be one of: ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`];
    case 'invalid_union':
      return [`${field} must be a string or an array of prompt items (text, image, token_ids)`];
    case 'too_big':
      return [`${field} must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`];
    case 'too_small':
      return issue.origin === 'string'
        ? [`${field} must not be empty`]
        : [`${field} must be ${issue.inclusive ? 'at least' : 'greater than'} ${issue.minimum}`];
    default:
      return [`${field}: ${issue.message}`];
  }
}
