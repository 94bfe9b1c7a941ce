/**
 * One request of a batch line: the profile's credentials (one authenticator for the whole batch, so a token is
 * fetched once and shared), the 401 refresh, no retries in the HTTP client — the scheduler retries, so that a 429
 * can slow the whole batch — and every answer that is not 2xx turned into the error its record will carry.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import type { HttpRequestSpec, HttpResponse } from '../contract/http.js';
import { isRetryableStatus, retryAfterMs } from '../http/retry.js';
import { rememberRequest } from './missing-route.js';
import type { Callee } from './callee.js';
import { failFromResponse, isSuccess } from './status-error.js';
import { isRetryableNetworkError, RetryableFailure } from './retryable.js';
import type { TextgenError } from '../contract/errors.js';
import { merged } from '../contract/spread.js';

export interface LineSender {
  /** Credentials now, before the first line: a refused credential stops the batch before anything else is sent. */
  begin(signal: AbortSignal): Promise<void>;
  /** A 2xx response; throws RetryableFailure, AuthError, ApiError, NetworkError or Interrupted. */
  send(spec: HttpRequestSpec, signal: AbortSignal): Promise<HttpResponse>;
}

async function discard(res: HttpResponse): Promise<void> {
  try {
    await res.text();
  } catch {
    // The body is thrown away anyway.
  }
}

export async function createLineSender(ctx: Context, profile: ResolvedProfile, callee: Callee): Promise<LineSender> {
  const http = await ctx.http(profile);
  const auth = await ctx.authenticator(profile);
  const service = callee.kind;
  return {
    async begin(signal) {
      await auth.headers(signal);
    },
    async send(spec, signal) {
      for (let attempt = 0; ; attempt++) {
        const headers = merged(spec.headers, await auth.headers(signal));
        let res: HttpResponse;
        try {
          res = await http.send(
            { method: spec.method, url: spec.url, headers, ...(spec.body !== undefined ? { body: spec.body } : {}) },
            { signal, service, retries: 0, lean: true },
          );
        } catch (e) {
          if (isRetryableNetworkError(e)) throw new RetryableFailure(e, undefined, false);
          throw e;
        }
        if (isSuccess(res.status)) return res;
        if (res.status === 404) rememberRequest(res, spec);
        if (res.status === 401 && attempt === 0 && (await auth.invalidate())) {
          await discard(res);
          continue;
        }
        if (isRetryableStatus(res.status)) {
          const error = await failFromResponse(callee, res).catch((e: unknown) => e as TextgenError);
          throw new RetryableFailure(error, retryAfterMs(res.headers), res.status === 429);
        }
        return failFromResponse(callee, res);
      }
    },
  };
}
