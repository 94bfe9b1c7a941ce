/**
 * Checks a completions body as the services do: unknown fields, wrong types and values out of range are a 400
 * `invalid_request_error` whose message and `param` name the field, in OpenAI's wording
 * ("2.5 is greater than the maximum of 2 - 'temperature'").
 */
import type { CompletionsError, Dialect } from './errors.js';
import { invalidRequest } from './errors.js';

export interface CompletionsBody {
  prompt?: string | string[] | number[] | number[][] | null;
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: number | null;
  stream?: boolean | null;
  logprobs?: number | null;
  echo?: boolean | null;
  stop?: string | string[] | null;
  best_of?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  user?: string | null;
  model?: string | null;
  cache_level?: number | null;
  completion_config?: string | null;
  stream_options?: { include_usage?: boolean } | null;
  seed?: number | null;
  suffix?: string | null;
}

export type BodyCheck = { ok: true; body: CompletionsBody } | { ok: false; error: CompletionsError };

interface Scalar {
  type: 'integer' | 'number' | 'boolean' | 'string';
  min?: number;
  max?: number;
}

/**
 * The seed's fields (docs/protocols/azure-openai.md) plus what later versions, `/v1` servers and the OpenAI SDK's
 * `CompletionCreateParams` add: `stream_options`, `seed`, `suffix`.
 */
function scalarFieldsOf(dialect: Dialect): Record<string, Scalar> {
  return {
    max_tokens: { type: 'integer', min: 0 },
    temperature: { type: 'number', min: 0, max: 2 },
    top_p: { type: 'number', min: 0, max: 1 },
    n: { type: 'integer', min: 1, max: 128 },
    stream: { type: 'boolean' },
    // 0–100 in the seed's API version; OpenAI's own /v1 caps it at 5.
    logprobs: { type: 'integer', min: 0, max: dialect === 'azure' ? 100 : 5 },
    echo: { type: 'boolean' },
    best_of: { type: 'integer', min: 1, max: 128 },
    presence_penalty: { type: 'number', min: -2, max: 2 },
    frequency_penalty: { type: 'number', min: -2, max: 2 },
    user: { type: 'string' },
    model: { type: 'string' },
    cache_level: { type: 'integer', min: 0, max: 2 },
    completion_config: { type: 'string' },
    // OpenAI: a 64-bit integer; beyond 2^53 JSON numbers lose precision anyway.
    seed: { type: 'integer', min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
    suffix: { type: 'string' },
  };
}

/** Made once per dialect: the table is read on every request. */
const SCALAR_FIELDS: Record<Dialect, Record<string, Scalar>> = {
  azure: scalarFieldsOf('azure'),
  openai: scalarFieldsOf('openai'),
};

const MAX_STOP = 4;
const MAX_PROMPTS = 2048;

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function typeOk(value: unknown, type: Scalar['type']): boolean {
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === type;
}

function checkScalar(name: string, value: unknown, spec: Scalar): CompletionsError | undefined {
  if (!typeOk(value, spec.type))
    return invalidRequest(`${show(value)} is not of type '${spec.type}' - '${name}'`, name);
  const n = value as number;
  if (spec.min !== undefined && n < spec.min)
    return invalidRequest(`${n} is less than the minimum of ${spec.min} - '${name}'`, name);
  if (spec.max !== undefined && n > spec.max)
    return invalidRequest(`${n} is greater than the maximum of ${spec.max} - '${name}'`, name);
  return undefined;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function checkPrompt(value: unknown): CompletionsError | undefined {
  if (value === null || typeof value === 'string') return undefined;
  const bad = invalidRequest(`${show(value)} is not valid under any of the given schemas - 'prompt'`, 'prompt');
  if (!Array.isArray(value) || value.length === 0) return bad;
  if (value.length > MAX_PROMPTS)
    return invalidRequest(`${value.length} prompts is more than the maximum of ${MAX_PROMPTS} - 'prompt'`, 'prompt');
  if (value.every((v) => typeof v === 'string') || value.every(isInt)) return undefined;
  if (value.every((v) => Array.isArray(v) && v.length > 0 && v.every(isInt))) return undefined;
  return bad;
}

function checkStop(value: unknown): CompletionsError | undefined {
  if (value === null || typeof value === 'string') return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
    return invalidRequest(`${show(value)} is not valid under any of the given schemas - 'stop'`, 'stop');
  }
  if (value.length > MAX_STOP) return invalidRequest(`${show(value)} is too long - 'stop'`, 'stop');
  return undefined;
}

function checkLogitBias(value: unknown): CompletionsError | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    return invalidRequest(`${show(value)} is not of type 'object' - 'logit_bias'`, 'logit_bias');
  for (const [token, bias] of Object.entries(value as Record<string, unknown>)) {
    if (!/^\d+$/.test(token))
      return invalidRequest(
        `Invalid key in 'logit_bias': ${token}. You should only be submitting non-negative integers.`,
        'logit_bias',
      );
    if (typeof bias !== 'number' || bias < -100 || bias > 100) {
      return invalidRequest(
        `Invalid value for 'logit_bias': ${show(bias)} for token ${token}. Bias values must be numbers from -100 to 100.`,
        'logit_bias',
      );
    }
  }
  return undefined;
}

function checkStreamOptions(value: unknown): CompletionsError | undefined {
  if (value === null) return undefined;
  const bad = invalidRequest(
    `${show(value)} is not valid - 'stream_options': an object with a boolean 'include_usage'`,
    'stream_options',
  );
  if (typeof value !== 'object' || Array.isArray(value)) return bad;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k !== 'include_usage' || typeof v !== 'boolean') return bad;
  }
  return undefined;
}

const SPECIAL_FIELDS: Record<string, (v: unknown) => CompletionsError | undefined> = {
  prompt: checkPrompt,
  stop: checkStop,
  logit_bias: checkLogitBias,
  stream_options: checkStreamOptions,
};

export function validateCompletionsBody(json: unknown, dialect: Dialect): BodyCheck {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, error: invalidRequest('The request body must be a JSON object', null) };
  }
  const body = json as Record<string, unknown>;
  const scalars = SCALAR_FIELDS[dialect];
  for (const [name, value] of Object.entries(body)) {
    const spec = scalars[name];
    const check = SPECIAL_FIELDS[name];
    if (!spec && !check)
      return { ok: false, error: invalidRequest(`Unrecognized request argument supplied: ${name}`, null) };
    // Every field is nullable: null means "the default", as the OpenAPI document marks them.
    if (value === null) continue;
    const error = spec ? checkScalar(name, value, spec) : check!(value);
    if (error) return { ok: false, error };
  }

  const valid = body as CompletionsBody;
  if (dialect === 'openai' && (typeof valid.model !== 'string' || valid.model === '')) {
    return { ok: false, error: invalidRequest('you must provide a model parameter', null) };
  }
  if (valid.stream_options != null && valid.stream !== true) {
    return {
      ok: false,
      error: invalidRequest(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        'stream_options',
      ),
    };
  }
  const n = valid.n ?? 1;
  const bestOf = valid.best_of;
  if (bestOf == null) return { ok: true, body: valid };
  if (bestOf < n)
    return {
      ok: false,
      error: invalidRequest(`best_of must be greater than or equal to n, got best_of ${bestOf} and n ${n}`, 'best_of'),
    };
  if (valid.stream && bestOf > 1)
    return { ok: false, error: invalidRequest('Cannot stream results with best_of greater than 1', 'best_of') };
  return { ok: true, body: valid };
}
