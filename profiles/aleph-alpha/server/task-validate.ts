/**
 * Validates the bodies of the embedded server's task endpoints as the service does: every field of the 1.16
 * `EvaluationRequest`, `ExplanationRequest`, `QARequest` and `SummarizationRequest` with its type, nullability and
 * range; unknown fields, wrong types and missing required fields are a 400 whose message names each field. Prompt
 * items are checked by the same code as the CLI's `--prompt-json`.
 */
import { decodeBase64, promptItemProblems, type AlephAlphaPrompt } from '../prompt-item-check.js';
import type { AlephAlphaDocument } from '../prompt-item-check.js';

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'prompt' | 'document' | 'documents' | 'granularity';

interface Rule {
  kind: Kind;
  required?: boolean;
  nullable?: boolean;
  values?: readonly string[];
  min?: number;
  max?: number;
  /** Strings: must not be empty. */
  filled?: boolean;
}

export type TaskRules = Record<string, Rule>;

const HOSTING: Rule = { kind: 'string', nullable: true, values: ['aleph-alpha'] };
const MODEL: Rule = { kind: 'string', required: true, filled: true };
const PROMPT: Rule = { kind: 'prompt', required: true };
const CONTROL_THRESHOLD: Rule = { kind: 'number', nullable: true };
const LOG_ADDITIVE: Rule = { kind: 'boolean' };

export const EVALUATION_RULES: TaskRules = {
  model: MODEL,
  hosting: HOSTING,
  prompt: PROMPT,
  completion_expected: { kind: 'string', required: true },
  contextual_control_threshold: CONTROL_THRESHOLD,
  control_log_additive: LOG_ADDITIVE,
};

export const EXPLANATION_RULES: TaskRules = {
  model: MODEL,
  hosting: HOSTING,
  prompt: PROMPT,
  target: { kind: 'string', required: true, nullable: true },
  control_factor: { kind: 'number' },
  contextual_control_threshold: CONTROL_THRESHOLD,
  control_log_additive: LOG_ADDITIVE,
  postprocessing: { kind: 'string', values: ['none', 'absolute', 'square'] },
  normalize: { kind: 'boolean' },
  prompt_granularity: { kind: 'granularity' },
  target_granularity: { kind: 'string', values: ['complete', 'token'] },
  control_token_overlap: { kind: 'string', values: ['partial', 'complete'] },
};

export const QA_RULES: TaskRules = {
  hosting: HOSTING,
  query: { kind: 'string', required: true, filled: true },
  documents: { kind: 'documents', required: true },
  max_answers: { kind: 'integer', min: 1, max: 200 },
};

export const SUMMARIZATION_RULES: TaskRules = {
  hosting: HOSTING,
  document: { kind: 'document', required: true },
  // Not in the 1.16 document, but the service takes it (docs/protocols/aleph-alpha.md); it has no effect here.
  disable_optimizations: { kind: 'boolean' },
};

export type Granularity = 'token' | 'word' | 'sentence' | 'paragraph' | 'custom';

export interface ValidEvaluationRequest {
  model: string;
  prompt: AlephAlphaPrompt;
  completion_expected: string;
}

export interface ValidExplanationRequest {
  model: string;
  prompt: AlephAlphaPrompt;
  target: string | null;
  postprocessing?: 'none' | 'absolute' | 'square';
  normalize?: boolean;
  prompt_granularity?: { type?: Granularity; delimiter?: string };
  target_granularity?: 'complete' | 'token';
}

export interface ValidQaRequest {
  query: string;
  documents: AlephAlphaDocument[];
  max_answers?: number;
}

export interface ValidSummarizationRequest {
  document: AlephAlphaDocument;
}

export type TaskValidation<T> = { ok: true; body: T } | { ok: false; message: string };

const MAX_PROBLEMS = 10;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeName(kind: Kind): string {
  return kind === 'prompt'
    ? 'string or an array of prompt items'
    : kind === 'granularity' || kind === 'document'
      ? 'object'
      : kind === 'documents'
        ? 'array'
        : kind;
}

function promptProblems(value: unknown, name: string): string[] {
  if (typeof value === 'string') return [];
  if (!Array.isArray(value)) return [`'${name}' must be a string or an array of prompt items (text, image, token_ids)`];
  return promptItemProblems(value).map((p) => `'${name}${p.path}' ${p.message}`);
}

function documentProblems(value: unknown, name: string): string[] {
  if (!isObject(value)) return [`'${name}' must be an object with one of docx, text, prompt`];
  const keys = Object.keys(value);
  if (keys.length !== 1 || !['docx', 'text', 'prompt'].includes(keys[0]!))
    return [`'${name}' must have exactly one of the fields docx, text, prompt`];
  const key = keys[0]!;
  const v = value[key];
  if (key === 'prompt')
    return Array.isArray(v)
      ? promptProblems(v, `${name}.prompt`)
      : [`'${name}.prompt' must be an array of prompt items`];
  if (typeof v !== 'string') return [`'${name}.${key}' must be of type string`];
  if (key === 'docx' && decodeBase64(v) === undefined) return [`'${name}.docx' must be the Word file as base64`];
  return [];
}

function granularityProblems(value: unknown, name: string): string[] {
  if (!isObject(value)) return [`'${name}' must be of type object`];
  const out: string[] = [];
  for (const key of Object.keys(value))
    if (key !== 'type' && key !== 'delimiter') out.push(`unknown field '${name}.${key}'`);
  const { type, delimiter } = value;
  if (type !== undefined && !['token', 'word', 'sentence', 'paragraph', 'custom'].includes(type as string)) {
    out.push(`'${name}.type' must be one of: "token", "word", "sentence", "paragraph", "custom"`);
  }
  if (delimiter !== undefined && typeof delimiter !== 'string') out.push(`'${name}.delimiter' must be of type string`);
  if (type === 'custom' && (typeof delimiter !== 'string' || delimiter === ''))
    out.push(`'${name}.delimiter' is required when '${name}.type' is "custom"`);
  return out;
}

function fieldProblems(value: unknown, name: string, rule: Rule): string[] {
  if (value === null) return rule.nullable ? [] : [`'${name}' must not be null`];
  switch (rule.kind) {
    case 'prompt':
      return promptProblems(value, name);
    case 'document':
      return documentProblems(value, name);
    case 'documents':
      if (!Array.isArray(value)) return [`'${name}' must be of type array`];
      if (value.length === 0) return [`'${name}' must hold at least one document`];
      return value.flatMap((d, i) => documentProblems(d, `${name}[${i}]`));
    case 'granularity':
      return granularityProblems(value, name);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return [`'${name}' must be of type integer`];
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return [`'${name}' must be of type number`];
      break;
    default:
      if (typeof value !== rule.kind) return [`'${name}' must be of type ${typeName(rule.kind)}`];
  }
  if (rule.values && !rule.values.includes(value as string))
    return [`'${name}' must be one of: ${rule.values.map((v) => JSON.stringify(v)).join(', ')}`];
  if (rule.filled && value === '') return [`'${name}' must not be empty`];
  if (rule.min !== undefined && (value as number) < rule.min) return [`'${name}' must be at least ${rule.min}`];
  if (rule.max !== undefined && (value as number) > rule.max) return [`'${name}' must be at most ${rule.max}`];
  return [];
}

/** The body checked against one endpoint's rules; the caller knows which request type the rules describe. */
export function validateTaskRequest<T>(json: unknown, rules: TaskRules): TaskValidation<T> {
  if (!isObject(json)) return { ok: false, message: 'Invalid request: the request body must be a JSON object' };
  const problems: string[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    if (json[name] === undefined) {
      if (rule.required) problems.push(`'${name}' is required`);
    } else {
      problems.push(...fieldProblems(json[name], name, rule));
    }
  }
  for (const name of Object.keys(json)) if (!Object.hasOwn(rules, name)) problems.push(`unknown field '${name}'`);
  if (problems.length > 0) {
    const more = problems.length > MAX_PROBLEMS ? `; …and ${problems.length - MAX_PROBLEMS} more` : '';
    return { ok: false, message: `Invalid request: ${problems.slice(0, MAX_PROBLEMS).join('; ')}${more}` };
  }
  return { ok: true, body: json as T };
}
