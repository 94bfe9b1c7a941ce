import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  StopReason,
} from '../../../src/contract/canonical.js';
import type { ApiErrorDetails } from '../../../src/contract/errors.js';
import { serverWords } from '../../common/error-words.js';
import {
  endsWithStopSequence,
  errorOf,
  isRecord,
  numberField,
  stopReasonOf,
  textOutput,
  tokenInfoOf,
  wantsTokens,
} from './answer-fields.js';

/**
 * Some backends (vLLM under Triton without `exclude_input_in_output`) put the prompt in front of a non-streamed
 * `text_output`. It is removed when the output starts with the exact prompt, unless the returned tokens spell the
 * whole output, which proves the model itself generated those characters.
 */
function withoutPromptPrefix(
  text: string,
  prompt: string | undefined,
  tokens: Record<string, unknown>[] | undefined,
): string {
  if (prompt === undefined || prompt === '' || !text.startsWith(prompt)) return text;
  if (
    tokens !== undefined &&
    tokens.length > 0 &&
    tokens.map((t) => (typeof t.text === 'string' ? t.text : '')).join('') === text
  )
    return text;
  return text.slice(prompt.length);
}

/** Without a finish reason (servers that ignore `details`), the text and the count are all there is to go on. */
function inferredStopReason(text: string, count: number | undefined, request: CanonicalRequest): StopReason {
  if (endsWithStopSequence(text, request)) return 'stop_sequence';
  const max = request.parameters?.max_new_tokens;
  if (count !== undefined && max !== undefined && count >= max) return 'max_tokens';
  return 'eos_token';
}

/**
 * `{"text_output", "model_name", "model_version"?, "details"?: {finish_reason, logprobs[], generated_tokens?, seed?,
 * top_tokens?}}` → canonical result. Token counts: the server's own count (vLLM's `num_output_tokens`, TGI's
 * `details.generated_tokens`), else the number of tokens in `details.logprobs`, else absent; input_token_count is
 * `num_input_tokens` or the length of TGI's `details.prefill`, and 0 when the server does not say.
 */
export function parseOpenInferenceGenerateResponse(body: unknown, request: CanonicalRequest): GenerateResult {
  if (!isRecord(body)) throw new UnexpectedAnswer('the answer is not a JSON object');
  const failure = errorOf(body);
  if (failure) throw new UnexpectedAnswer(`the answer is an error: ${failure.message}`);
  const raw = textOutput(body);
  if (raw === undefined) throw new UnexpectedAnswer('the answer has no "text_output" string');

  const details = isRecord(body.details) ? body.details : undefined;
  const tokens = Array.isArray(details?.logprobs) ? details.logprobs.filter(isRecord) : undefined;
  const text = withoutPromptPrefix(raw, request.input, tokens);
  const count = numberField(body, 'num_output_tokens') ?? numberField(details, 'generated_tokens') ?? tokens?.length;

  const item: GenerateResultItem = {
    generated_text: text,
    stop_reason: stopReasonOf(details?.finish_reason, text, request) ?? inferredStopReason(text, count, request),
    input_token_count:
      numberField(body, 'num_input_tokens') ?? (Array.isArray(details?.prefill) ? details.prefill.length : 0),
  };
  if (count !== undefined) item.generated_token_count = count;
  const seed = numberField(details, 'seed');
  if (seed !== undefined) item.seed = seed;
  if (tokens !== undefined && wantsTokens(request)) {
    const top = Array.isArray(details?.top_tokens) ? details.top_tokens : [];
    item.generated_tokens = tokens.map((t, i) => tokenInfoOf(t, request, top[i]));
  }
  if (isRecord(details?.moderations)) item.moderations = details.moderations;

  const result: GenerateResult = { created_at: new Date().toISOString(), results: [item] };
  if (typeof body.model_name === 'string') result.model_id = body.model_name;
  if (typeof body.model_version === 'string') result.model_version = body.model_version;
  return result;
}

/** Trace id: the request id header, as KServe (through its gateway) and Triton's front ends send it. */
export function traceIdOf(headers: Record<string, string>): string | undefined {
  return headers['x-request-id'] ?? headers['triton-request-id'];
}

/** `{"error":"…"}` with any status, FastAPI's `{"detail": …}`, or a non-JSON body from a proxy → the fields of ApiError. */
export function parseOpenInferenceError(
  status: number,
  bodyText: string,
  headers: Record<string, string>,
): ApiErrorDetails {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  const base = { provider: 'open-inference', status, traceId: traceIdOf(headers) };
  const failure = errorOf(body);
  if (failure) return { ...base, code: failure.code, message: failure.message };
  if (isRecord(body) && body.detail !== undefined) {
    const d = body.detail;
    const message =
      typeof d === 'string'
        ? d
        : Array.isArray(d)
          ? d.map((x) => (isRecord(x) && typeof x.msg === 'string' ? x.msg : JSON.stringify(x))).join('; ')
          : JSON.stringify(d);
    return { ...base, message };
  }
  if (isRecord(body) && typeof body.message === 'string') return { ...base, message: body.message };
  return { ...base, message: serverWords(bodyText, status) };
}
