/**
 * The checks OpenAI's `POST /v1/responses` makes on its body, in its words (`Unknown parameter: 'x'.`, `Invalid
 * type for 'temperature': …`, `Invalid 'max_output_tokens': integer below minimum value. …`), each with `param` and
 * `code` as the service sets them. Field names and shapes from openai 6's ResponseCreateParams
 * (node_modules/openai/resources/responses/responses.d.ts); docs/protocols/responses.md lists them.
 */
import { isRecord } from '../../../src/contract/wire-fields.js';
import type { CompletionsError } from './errors.js';

export interface FunctionToolSpec {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type ResponsesTextFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      strict?: boolean | null;
      description?: string;
    };

export interface ResponsesBody {
  model?: string;
  input?: string | Record<string, unknown>[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  previous_response_id?: string | null;
  store?: boolean | null;
  stream?: boolean | null;
  tools?: FunctionToolSpec[];
  tool_choice?: ResponsesToolChoice;
  text?: { format?: ResponsesTextFormat; verbosity?: string | null };
  parallel_tool_calls?: boolean | null;
  metadata?: Record<string, string> | null;
  user?: string;
  truncation?: string | null;
}

/** Every field of ResponseCreateParams; those this server does not act on are accepted and ignored. */
const KNOWN = new Set([
  'background',
  'context_management',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
]);

/** OpenAI's minimum for `max_output_tokens`. */
export const MIN_OUTPUT_TOKENS = 16;

const error = (message: string, param: string | null, code: string | null): CompletionsError => ({
  message,
  type: 'invalid_request_error',
  param,
  code,
});

const typeWord = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

const wrongType = (param: string, expected: string, v: unknown) =>
  error(`Invalid type for '${param}': expected ${expected}, but got ${typeWord(v)} instead.`, param, 'invalid_type');

function numberIn(body: Record<string, unknown>, key: string, min: number, max: number): CompletionsError | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) return wrongType(key, 'a decimal', v);
  if (v < min)
    return error(
      `Invalid '${key}': decimal below minimum value. Expected a value >= ${min}, but got ${v} instead.`,
      key,
      'decimal_below_min_value',
    );
  if (v > max)
    return error(
      `Invalid '${key}': decimal above maximum value. Expected a value <= ${max}, but got ${v} instead.`,
      key,
      'decimal_above_max_value',
    );
  return undefined;
}

function optional(
  body: Record<string, unknown>,
  key: string,
  kind: 'string' | 'boolean',
): CompletionsError | undefined {
  const v = body[key];
  if (v === undefined || v === null || typeof v === kind) return undefined;
  return wrongType(key, kind === 'string' ? 'a string' : 'a boolean', v);
}

function checkTools(tools: unknown): CompletionsError | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return wrongType('tools', 'an array', tools);
  const names = new Set<string>();
  for (const [i, tool] of tools.entries()) {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) return wrongType(at, 'an object', tool);
    if (tool.type !== 'function')
      return error(
        `Invalid value: '${String(tool.type)}'. This server supports only function tools: 'function'.`,
        `${at}.type`,
        'invalid_value',
      );
    if (typeof tool.name !== 'string')
      return error(`Missing required parameter: '${at}.name'.`, `${at}.name`, 'missing_required_parameter');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name))
      return error(
        `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${at}.name`,
        'invalid_value',
      );
    if (names.has(tool.name)) return error(`Duplicate tool name: '${tool.name}'.`, `${at}.name`, 'invalid_value');
    names.add(tool.name);
    if (tool.parameters !== undefined && tool.parameters !== null && !isRecord(tool.parameters))
      return wrongType(`${at}.parameters`, 'an object', tool.parameters);
    const strict = optional(tool, 'strict', 'boolean');
    if (strict)
      return { ...strict, param: `${at}.strict`, message: strict.message.replace("'strict'", `'${at}.strict'`) };
  }
  return undefined;
}

function checkToolChoice(choice: unknown, tools: unknown): CompletionsError | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === 'string') {
    if (['auto', 'none', 'required'].includes(choice)) return undefined;
    return error(
      `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`,
      'tool_choice',
      'invalid_value',
    );
  }
  if (!isRecord(choice) || choice.type !== 'function' || typeof choice.name !== 'string')
    return error(
      "Invalid 'tool_choice': expected 'none', 'auto', 'required' or {\"type\": \"function\", \"name\": …}.",
      'tool_choice',
      'invalid_value',
    );
  const known = Array.isArray(tools) && tools.some((t) => isRecord(t) && t.name === choice.name);
  if (!known)
    return error(`Tool choice '${choice.name}' not found in 'tools' parameter.`, 'tool_choice', 'invalid_value');
  return undefined;
}

function checkText(text: unknown): CompletionsError | undefined {
  if (text === undefined || text === null) return undefined;
  if (!isRecord(text)) return wrongType('text', 'an object', text);
  const format = text.format;
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format)) return wrongType('text.format', 'an object', format);
  if (format.type === 'text' || format.type === 'json_object') return undefined;
  if (format.type !== 'json_schema')
    return error(
      `Invalid value: '${String(format.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      'text.format.type',
      'invalid_value',
    );
  if (typeof format.name !== 'string' || format.name === '')
    return error("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
  if (!isRecord(format.schema))
    return error(
      "Missing required parameter: 'text.format.schema'.",
      'text.format.schema',
      'missing_required_parameter',
    );
  return undefined;
}

/** The first problem with the body, or the body typed. `requireModel`: OpenAI and Azure v1 both need `model`. */
export function validateResponsesBody(
  json: unknown,
): { ok: true; body: ResponsesBody } | { ok: false; error: CompletionsError } {
  if (!isRecord(json)) return { ok: false, error: error('The request body must be a JSON object.', null, null) };
  const unknown = Object.keys(json).find((k) => !KNOWN.has(k));
  if (unknown !== undefined)
    return { ok: false, error: error(`Unknown parameter: '${unknown}'.`, unknown, 'unknown_parameter') };
  if (json.model === undefined || json.model === null)
    return { ok: false, error: error("Missing required parameter: 'model'.", 'model', 'missing_required_parameter') };
  const input = json.input;
  if (input !== undefined && input !== null && typeof input !== 'string' && !Array.isArray(input))
    return { ok: false, error: wrongType('input', 'a string or an array', input) };
  if ((input === undefined || input === null) && typeof json.previous_response_id !== 'string')
    return { ok: false, error: error("Missing required parameter: 'input'.", 'input', 'missing_required_parameter') };
  const max = json.max_output_tokens;
  const problem =
    optional(json, 'model', 'string') ??
    optional(json, 'instructions', 'string') ??
    optional(json, 'previous_response_id', 'string') ??
    optional(json, 'store', 'boolean') ??
    optional(json, 'stream', 'boolean') ??
    optional(json, 'parallel_tool_calls', 'boolean') ??
    (max !== undefined && max !== null && !Number.isInteger(max)
      ? wrongType('max_output_tokens', 'an integer', max)
      : typeof max === 'number' && max < MIN_OUTPUT_TOKENS
        ? error(
            `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${max} instead.`,
            'max_output_tokens',
            'integer_below_min_value',
          )
        : undefined) ??
    numberIn(json, 'temperature', 0, 2) ??
    numberIn(json, 'top_p', 0, 1) ??
    checkTools(json.tools) ??
    checkToolChoice(json.tool_choice, json.tools) ??
    checkText(json.text);
  if (problem) return { ok: false, error: problem };
  if (json.background === true)
    return {
      ok: false,
      error: error(
        "This server does not run responses in the background: leave out 'background'.",
        'background',
        'unsupported_value',
      ),
    };
  return { ok: true, body: json as ResponsesBody };
}
