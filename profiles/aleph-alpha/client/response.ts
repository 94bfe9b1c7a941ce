import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { GenerateTarget } from '../../../src/contract/adapter.js';
import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  ServiceWarning,
} from '../../../src/contract/canonical.js';
import type { ApiErrorDetails } from '../../../src/contract/errors.js';
import { serverWords } from '../../common/error-words.js';
import { canonicalStopReason, requestedStops, stopSequenceFix } from './finish-reason.js';
import { modelOf } from './request-model.js';
import { echoLength, tokenInfos } from './token-data.js';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/** The parts of one AA completion the canonical item is made of (shared with the stream decoder). */
export interface CompletionParts {
  completion: string;
  finishReason: unknown;
  completionTokens: unknown;
  logProbs: unknown;
}

/** One AA completion → one canonical result item, plus a warning when include_stop_sequence could not be honoured. */
export function completionItem(
  parts: CompletionParts,
  request: CanonicalRequest | undefined,
  index: number,
): { item: GenerateResultItem; warning?: ServiceWarning } {
  const ro = request?.parameters?.return_options ?? {};
  const prompt = request?.input ?? '';
  const skip = ro.input_text ? echoLength(parts.completion, prompt) : 0;
  let text = parts.completion.slice(skip);
  const stopReason = canonicalStopReason(parts.finishReason, text, requestedStops(request));
  let warning: ServiceWarning | undefined;
  if (stopReason === 'stop_sequence') {
    const fix = stopSequenceFix(text, parts.finishReason, request, index);
    text = text.slice(0, text.length - fix.cut) + fix.append;
    warning = fix.warning;
  }
  const item: GenerateResultItem = { generated_text: text, stop_reason: stopReason };
  if (ro.input_text) item.input_text = parts.completion.slice(0, skip) || prompt;
  const tokens = tokenInfos(parts.completionTokens, parts.logProbs, ro.top_n_tokens ?? 0, skip);
  if (tokens !== undefined) item.generated_tokens = tokens;
  return warning ? { item, warning } : { item };
}

/**
 * `CompletionResponse` → canonical result, one item per completion. AA reports token counts only for the whole
 * call, summed over `n` (and `best_of`); they go on the first result, so the counts summed over the results are
 * what the service reported (and billed). The other results carry no counts.
 */
export function parseAlephAlphaGenerateResponse(
  body: unknown,
  request?: CanonicalRequest,
  target?: GenerateTarget,
): GenerateResult {
  if (!isRecord(body) || !Array.isArray(body.completions))
    throw new UnexpectedAnswer('the answer has no "completions" array');
  if (body.completions.length === 0) throw new UnexpectedAnswer('the answer has no completions');
  const warnings: ServiceWarning[] = [];
  const results = body.completions.map((c: unknown, i: number) => {
    if (!isRecord(c) || typeof c.completion !== 'string')
      throw new UnexpectedAnswer(`completion ${i} has no "completion" string`);
    const { item, warning } = completionItem(
      {
        completion: c.completion,
        finishReason: c.finish_reason,
        completionTokens: c.completion_tokens,
        logProbs: c.log_probs,
      },
      request,
      i,
    );
    if (warning) warnings.push(warning);
    return item;
  });
  const first = results[0]!;
  const generated = count(body.num_tokens_generated);
  const input = count(body.num_tokens_prompt_total);
  if (generated !== undefined) first.generated_token_count = generated;
  if (input !== undefined) first.input_token_count = input;

  const result: GenerateResult = { created_at: new Date().toISOString(), results };
  const model = modelOf(target);
  if (model !== undefined) result.model_id = model;
  if (typeof body.model_version === 'string') result.model_version = body.model_version;
  if (warnings.length > 0) result.system = { warnings };
  return result;
}

/** The request id headers AA and the proxies in front of it use. */
export function traceIdFrom(headers: Record<string, string>): string | undefined {
  return headers['x-request-id'] ?? headers['x-trace-id'] ?? headers['trace-id'];
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** `{"error","code"}` (and the shapes proxies use, or plain text) → the fields of ApiError. */
export function parseAlephAlphaError(
  status: number,
  bodyText: string,
  headers: Record<string, string>,
): ApiErrorDetails {
  const traceId = traceIdFrom(headers);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  if (isRecord(body)) {
    const nested = isRecord(body.error) ? body.error : undefined;
    const message = text(body.error) ?? text(nested?.message) ?? text(body.message) ?? text(body.detail);
    const code = text(body.code) ?? text(nested?.code);
    if (message !== undefined) return { provider: 'aleph-alpha', status, code, message, traceId };
  }
  return {
    provider: 'aleph-alpha',
    status,
    code: undefined,
    message: bodyText.trim() === '' ? httpReason(status) : serverWords(bodyText, status),
    traceId,
  };
}

function httpReason(status: number): string {
  const reasons: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    402: 'Payment Required (out of credits)',
    403: 'Forbidden',
    404: 'Not Found',
    408: 'Request Timeout',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return reasons[status] ?? 'error';
}
