/**
 * Validates generation bodies the way watsonx does: unknown fields, wrong types and values out
 * of the documented ranges (docs/protocols/watsonx.md) are 400 `json_validation_error`, one error per
 * problem, each naming the field. zod comes with this module, which serve loads on its first request.
 */
import * as z from 'zod';
import type { CanonicalParameters, Moderations } from '../../../src/contract/canonical.js';
import { fieldName, type Issue } from '../../../src/emulator/core/zod-issue.js';

export type GenerateKind = 'deployment' | 'foundation';

/**
 * `parameters.chat` of foundation-model generation (IBM's SDK tests send it, docs/watsonx.md): earlier turns and a
 * context the model answers in.
 */
export interface ChatProperties {
  history?: { is_question: boolean; content: string }[];
  context?: string;
}

export interface ValidGenerateBody {
  /** Absent only for a prompt-template deployment. */
  input?: string;
  model_id?: string;
  project_id?: string;
  space_id?: string;
  parameters?: CanonicalParameters & { chat?: ChatProperties };
  moderations?: Moderations;
}

export type Validation =
  | { ok: true; body: ValidGenerateBody }
  | { ok: false; errors: { code: string; message: string }[] };

const PREFIX = 'Json document validation error: ';
/** zod reports "expected number" for a string in an integer field; this marker lets the message say "integer". */
const INTEGER = 'integer';
const MAX_ERRORS = 10;

type Schemas = Awaited<ReturnType<typeof buildSchemas>>;
let schemas: Promise<Schemas> | undefined;

async function buildSchemas() {
  const int = () => z.int({ error: INTEGER });
  const direction = z.looseObject({ enabled: z.boolean().optional(), threshold: z.number().min(0).max(1).optional() });
  const detector = z.looseObject({
    input: direction.optional(),
    output: direction.optional(),
    mask: z.looseObject({ remove_entity_value: z.boolean().optional() }).optional(),
  });
  const moderations = z.looseObject({
    hap: detector.optional(),
    pii: detector.optional(),
    input_ranges: z.array(z.strictObject({ start: int().min(0), end: int().min(0) })).optional(),
  });
  const returnOptions = z
    .strictObject({
      input_text: z.boolean(),
      generated_tokens: z.boolean(),
      input_tokens: z.boolean(),
      token_logprobs: z.boolean(),
      token_ranks: z.boolean(),
      top_n_tokens: int().min(0).max(5),
    })
    .partial();
  const common = {
    decoding_method: z.enum(['greedy', 'sample']),
    length_penalty: z.strictObject({ decay_factor: z.number().gt(1), start_index: int().min(0) }).partial(),
    max_new_tokens: int().min(0),
    min_new_tokens: int().min(0),
    random_seed: int().min(1),
    stop_sequences: z.array(z.string()).max(6),
    temperature: z.number().min(0).max(2),
    time_limit: int().gt(0),
    top_k: int().min(1).max(100),
    top_p: z.number().gt(0).max(1),
    repetition_penalty: z.number().min(1).max(2),
    truncate_input_tokens: int().min(0),
    return_options: returnOptions,
    include_stop_sequence: z.boolean(),
    typical_p: z.number().gt(0).max(1),
  };
  const deployment = z.strictObject({
    input: z.string().optional(),
    parameters: z
      .strictObject({ ...common, prompt_variables: z.record(z.string(), z.string()) })
      .partial()
      .optional(),
    moderations: moderations.optional(),
  });
  // Prompt variables belong to prompt-template deployments, so the model endpoint does not know them.
  const foundation = z.strictObject({
    input: z.string().optional(),
    model_id: z.string(),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    parameters: z
      .strictObject({
        ...common,
        chat: z.strictObject({
          history: z.array(z.strictObject({ is_question: z.boolean(), content: z.string() })).optional(),
          context: z.string().optional(),
        }),
      })
      .partial()
      .optional(),
    moderations: moderations.optional(),
  });
  return { deployment, foundation };
}

/**
 * `inputOptional`: the deployment has a prompt template, which the service generates from when `input` is absent
 * (IBM documents `input` as ignored then), so a body without it is valid.
 */
export async function validateGenerateBody(
  json: unknown,
  kind: GenerateKind,
  options: { inputOptional?: boolean } = {},
): Promise<Validation> {
  schemas ??= buildSchemas();
  const parsed = (await schemas)[kind].safeParse(json);
  if (!parsed.success) {
    const errors = parsed.error.issues.flatMap(describeIssue).slice(0, MAX_ERRORS);
    return {
      ok: false,
      errors: errors.map((message) => ({ code: 'json_validation_error', message: PREFIX + message })),
    };
  }
  const body = parsed.data as ValidGenerateBody & { input?: string };
  if (kind === 'foundation' && (body.project_id === undefined) === (body.space_id === undefined)) {
    return {
      ok: false,
      errors: [
        {
          code: 'json_validation_error',
          message: `${PREFIX}exactly one of 'project_id' or 'space_id' must be given in the request body`,
        },
      ],
    };
  }
  if ((body.input === undefined || body.input === '') && options.inputOptional !== true) {
    return {
      ok: false,
      errors: [
        { code: 'json_validation_error', message: `${PREFIX}'input' cannot be missing or empty in the request body` },
      ],
    };
  }
  return { ok: true, body: body as ValidGenerateBody };
}

function describeIssue(issue: Issue): string[] {
  const field = issue.path.length > 0 ? `'${fieldName(issue.path)}'` : 'the request body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return (issue.keys ?? []).map((k) => `'${fieldName([...issue.path, k])}' is not a recognized field`);
    case 'invalid_type':
      if (issue.expected === 'object' && issue.path.length === 0) return ['the request body must be a JSON object'];
      if (issue.message.includes('received undefined')) return [`${field} is required`];
      return [`${field} must be of type ${typeName(issue.message === INTEGER ? 'int' : issue.expected)}`];
    case 'invalid_value':
      return [`${field} must be one of: ${(issue.values ?? []).map(String).join(', ')}`];
    case 'too_big':
      return issue.origin === 'array'
        ? [`${field} must have at most ${issue.maximum} items`]
        : [`${field} must be ${issue.inclusive ? 'less than or equal to' : 'less than'} ${issue.maximum}`];
    case 'too_small':
      return issue.origin === 'array'
        ? [`${field} must have at least ${issue.minimum} items`]
        : [`${field} must be ${issue.inclusive ? 'greater than or equal to' : 'greater than'} ${issue.minimum}`];
    default:
      return [`${field}: ${issue.message}`];
  }
}

function typeName(expected: string | undefined): string {
  if (expected === 'int') return 'integer';
  if (expected === 'record') return 'object';
  return expected ?? 'unknown';
}
