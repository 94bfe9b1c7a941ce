import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { CanonicalRequest, GenerateResult, GenerateResultItem } from '../../../src/contract/canonical.js';
import type { ApiErrorDetails } from '../../../src/contract/errors.js';
import { serverWords } from '../../common/error-words.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** watsonx answers in the canonical shape already; check the parts the CLI relies on. */
export function parseWatsonxGenerateResponse(body: unknown, _request?: CanonicalRequest): GenerateResult {
  if (!isRecord(body) || !Array.isArray(body.results)) {
    throw new UnexpectedAnswer('the answer has no "results" array');
  }
  for (const item of body.results as unknown[]) {
    if (!isRecord(item) || typeof item.generated_text !== 'string') {
      throw new UnexpectedAnswer('a result has no "generated_text" string');
    }
  }
  const result = body as unknown as GenerateResult;
  for (const item of result.results as GenerateResultItem[]) {
    if (typeof item.stop_reason !== 'string') item.stop_reason = 'not_finished';
  }
  return result;
}

/** A trace id from the body (`trace`) or the usual headers. */
export function traceIdFrom(body: unknown, headers: Record<string, string>): string | undefined {
  if (isRecord(body) && typeof body.trace === 'string') return body.trace;
  return headers['x-global-transaction-id'] ?? headers['x-request-id'] ?? headers['x-correlation-id'];
}

/** What to do about the service's codes for a name it does not know: see what it does know. */
const HINTS: Record<string, string> = {
  model_not_supported: 'run "textgen models" to list the model ids this service offers',
  model_no_support_for_function: 'run "textgen models" to see what each model can do (FUNCTIONS)',
  deployment_does_not_exist:
    'run "textgen models --deployments" to list the deployments of your space or project (by id or serving name)',
  deployment_not_found:
    'run "textgen models --deployments" to list the deployments of your space or project (by id or serving name)',
};

/** `{"errors":[{code,message}],"trace","status_code"}` → the fields of ApiError. Tolerates non-JSON bodies. */
export function parseWatsonxError(status: number, bodyText: string, headers: Record<string, string>): ApiErrorDetails {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  const traceId = traceIdFrom(body, headers);
  if (isRecord(body) && Array.isArray(body.errors) && body.errors.length > 0) {
    const errors = body.errors.filter(isRecord);
    const first = errors[0] ?? {};
    const message = errors.map((e) => (typeof e.message === 'string' ? e.message : JSON.stringify(e))).join('; ');
    const code = typeof first.code === 'string' ? first.code : undefined;
    const hint = code !== undefined && Object.hasOwn(HINTS, code) ? HINTS[code] : undefined;
    return { provider: 'watsonx', status, code, message, traceId, ...(hint !== undefined ? { hint } : {}) };
  }
  if (isRecord(body) && typeof body.message === 'string') {
    return {
      provider: 'watsonx',
      status,
      code: typeof body.code === 'string' ? body.code : undefined,
      message: body.message,
      traceId,
    };
  }
  return { provider: 'watsonx', status, message: serverWords(bodyText, status), traceId };
}
