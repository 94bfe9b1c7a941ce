/**
 * What went wrong upstream, as an EngineFailure the front protocol words (src/emulator/core/index.ts): the
 * upstream's status and its own words for an error answer (Retry-After kept), 502 for an answer it could not read or
 * a stream it cut, 504 when it went silent or did not answer in time, 400 for a request it cannot take. An upstream
 * 401/403 refused serve's credentials for it, not the front client's: that is a 502, so a client never thinks its
 * own key was wrong.
 */
import { EngineFailure } from '../emulator/engine/failure.js';
import {
  ApiError,
  AuthError,
  Interrupted,
  NetworkError,
  StreamError,
  UnexpectedAnswer,
  UsageError,
  isTextgenError,
} from '../contract/errors.js';
import type { Callee } from '../call/callee.js';
import type { HttpResponse } from '../contract/http.js';

const KEPT_HEADERS = ['retry-after', 'retry-after-ms', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens'];

/** A non-2xx upstream answer, in the upstream's words. */
export async function failureFromAnswer(callee: Callee, res: HttpResponse, upstream: string): Promise<EngineFailure> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // The status is enough.
  }
  const details = callee.parseError(res.status, text, res.headers);
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) if (res.headers[name] !== undefined) headers[name] = res.headers[name]!;
  const words = `upstream ${upstream} answered ${res.status}${details.code ? ` ${details.code}` : ''}: ${details.message}`;
  if (res.status === 401 || res.status === 403)
    return new EngineFailure(502, 'upstream_auth_failed', `${words} (check the upstream profile's credentials)`);
  return new EngineFailure(res.status, details.code ?? upstreamCode(res.status), words, headers);
}

function upstreamCode(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request';
}

/** A thrown error of the call pipeline (or of building the request) → the failure the front client gets. */
export function failureFromError(error: unknown, upstream: string): EngineFailure {
  if (error instanceof EngineFailure) return error;
  if (error instanceof UsageError) return new EngineFailure(400, 'invalid_parameter', error.message);
  if (error instanceof Interrupted) return new EngineFailure(499, 'cancelled', 'the request was cancelled');
  if (error instanceof StreamError) {
    const silent = /sent nothing for/.test(error.message);
    return new EngineFailure(
      silent ? 504 : 502,
      silent ? 'upstream_timeout' : 'upstream_stream_broke_off',
      error.message,
    );
  }
  if (error instanceof NetworkError) {
    const timedOut = /time[sd]? ?out|timed out/i.test(error.message);
    return new EngineFailure(
      timedOut ? 504 : 502,
      timedOut ? 'upstream_timeout' : 'upstream_unreachable',
      `upstream ${upstream}: ${error.message}`,
    );
  }
  if (error instanceof UnexpectedAnswer) return new EngineFailure(502, 'upstream_bad_answer', error.message);
  if (error instanceof AuthError) return new EngineFailure(502, 'upstream_auth_failed', error.message);
  if (error instanceof ApiError) return new EngineFailure(error.status, error.code ?? 'upstream_error', error.message);
  const message = isTextgenError(error) || error instanceof Error ? error.message : String(error);
  return new EngineFailure(502, 'upstream_error', `upstream ${upstream}: ${message}`);
}
