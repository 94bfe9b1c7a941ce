/**
 * Validation of a batch's input file, as the services do it before they run anything (status `validating`): every
 * line one JSON object `{"custom_id","method","url","body"}`, `custom_id` unique, `method` POST, `url` one the
 * batch's endpoint allows, one model for the whole file, and the dialect's limits on lines and bytes. Any problem
 * fails the batch with `errors.data[{code, message, line}]`; nothing runs.
 */
import type { BatchLimits, LineError } from './types.js';

export interface InputLine {
  /** 1-based line number in the file. */
  line: number;
  customId: string;
  method: string;
  url: string;
  body: Record<string, unknown>;
}

export interface LineRules {
  limits: BatchLimits;
  /** The `url`s a line may name in this batch (its endpoint, in the forms the dialect takes). */
  urls: readonly string[];
  /** The model a line's body names (OpenAI: `model`; watsonx: `model_id` or `model`). */
  modelOf(body: Record<string, unknown>): string | undefined;
}

/** Enough to fix a file by; the rest are counted in one last entry. */
const MAX_REPORTED_ERRORS = 100;

export type Validated = { ok: true; lines: InputLine[]; model: string | null } | { ok: false; errors: LineError[] };

export function validateInput(content: string, rules: LineRules): Validated {
  const bytes = Buffer.byteLength(content);
  if (bytes > rules.limits.maxFileBytes)
    return fail({
      code: 'file_too_large',
      message: `The input file is ${bytes} bytes; a batch file may hold at most ${rules.limits.maxFileBytes} bytes.`,
      line: null,
    });
  const raw = content.split('\n');
  const errors: LineError[] = [];
  let dropped = 0;
  const report = (e: LineError): void => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(e);
    else dropped++;
  };
  const lines: InputLine[] = [];
  const seen = new Set<string>();
  let model: string | null | undefined;
  for (const [i, text] of raw.entries()) {
    if (text.trim() === '') continue;
    const line = i + 1;
    if (lines.length + errors.length + dropped >= rules.limits.maxLines) {
      const total = raw.filter((t) => t.trim() !== '').length;
      return fail({
        code: 'too_many_requests',
        message: `The input file has ${total} requests; a batch may hold at most ${rules.limits.maxLines}.`,
        line: null,
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      report({ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', line });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      report({ code: 'invalid_json_line', message: 'This line is not a JSON object.', line });
      continue;
    }
    const o = value as Record<string, unknown>;
    const missing = (['custom_id', 'method', 'url', 'body'] as const).find((k) => o[k] === undefined || o[k] === null);
    if (missing) {
      report({
        code: 'missing_required_parameter',
        message: `Missing required parameter: '${missing}'.`,
        line,
        param: missing,
      });
      continue;
    }
    if (typeof o.custom_id !== 'string' || o.custom_id === '') {
      report({
        code: 'invalid_custom_id',
        message: "'custom_id' must be a non-empty string.",
        line,
        param: 'custom_id',
      });
      continue;
    }
    if (seen.has(o.custom_id)) {
      report({
        code: 'duplicate_custom_id',
        message: `The custom_id '${o.custom_id}' appears more than once; each request needs its own.`,
        line,
        param: 'custom_id',
      });
      continue;
    }
    seen.add(o.custom_id);
    if (o.method !== 'POST') {
      report({ code: 'invalid_method', message: "'method' must be 'POST'.", line, param: 'method' });
      continue;
    }
    if (typeof o.url !== 'string' || !rules.urls.includes(o.url)) {
      report({
        code: 'invalid_url',
        message: `The url ${JSON.stringify(o.url)} does not match the batch's endpoint; expected ${rules.urls.map((u) => `'${u}'`).join(' or ')}.`,
        line,
        param: 'url',
      });
      continue;
    }
    if (typeof o.body !== 'object' || Array.isArray(o.body)) {
      report({ code: 'invalid_body', message: "'body' must be a JSON object.", line, param: 'body' });
      continue;
    }
    const body = o.body as Record<string, unknown>;
    const named = rules.modelOf(body) ?? null;
    if (model === undefined) model = named;
    else if (named !== model) {
      report({
        code: 'mismatched_model',
        message: `The model ${JSON.stringify(named)} differs from the ${JSON.stringify(model)} of the lines before; all requests in a batch must use the same model.`,
        line,
        param: 'body.model',
      });
      continue;
    }
    lines.push({ line, customId: o.custom_id, method: o.method, url: o.url, body });
  }
  if (dropped > 0)
    errors.push({ code: 'too_many_errors', message: `${dropped} more lines have errors too.`, line: null });
  if (errors.length > 0) return { ok: false, errors };
  if (lines.length === 0) return fail({ code: 'empty_file', message: 'The input file holds no request.', line: null });
  return { ok: true, lines, model: model ?? null };
}

function fail(error: LineError): Validated {
  return { ok: false, errors: [error] };
}
