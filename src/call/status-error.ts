/**
 * The one mapping of a service's non-2xx answer to what the user reads: AuthError (401/403, exit 3) or ApiError
 * (exit 4), in the provider's own words (its ErrorDialect), with a route the server lacks named. Only src/call/
 * imports this module (a rule in .dependency-cruiser.cjs): every command sends through sendOk, readWhole,
 * readStream, the batch line sender or, for `health`, sendProbe, so no command tests a status itself.
 */
import { ApiError, AuthError, formatApiMessage } from '../contract/errors.js';
import type { HttpResponse } from '../contract/http.js';
import type { Callee } from './callee.js';
import { withMissingRoute } from './missing-route.js';

/** What a 401 asks the user to check. */
export const CREDENTIALS_HINT = "check the profile's credentials (--api-key, --token, or its auth section)";

/** Whether a status is a 2xx. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Whether a status says the credentials were refused (401, 403): exit 3 rather than 4. */
export function refusesCredentials(status: number): boolean {
  return status === 401 || status === 403;
}

/**
 * A non-2xx answer the service reported inside a file (a provider batch's error file: one line's `status_code` and
 * `body`) → the same AuthError or ApiError a direct call would have thrown.
 */
export function errorOfAnswer(callee: Callee, status: number, text: string): AuthError | ApiError {
  const details = callee.parseError(status, text, {});
  if (refusesCredentials(status))
    return new AuthError(formatApiMessage(details), {
      status,
      ...(details.traceId ? { traceId: details.traceId } : {}),
    });
  return new ApiError(details, details.hint !== undefined ? { hint: details.hint } : {});
}

/** A non-2xx answer → AuthError (401/403, exit 3) or ApiError (exit 4) with the provider's code, message and trace. */
export async function failFromResponse(callee: Callee, res: HttpResponse): Promise<never> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // Keep the status even when the error body could not be read.
  }
  const details = withMissingRoute(callee.parseError(res.status, text, res.headers), res);
  if (refusesCredentials(res.status)) {
    throw new AuthError(formatApiMessage(details), {
      status: res.status,
      ...(details.traceId ? { traceId: details.traceId } : {}),
      ...(res.status === 401 ? { hint: CREDENTIALS_HINT } : {}),
    });
  }
  throw new ApiError(details, details.hint !== undefined ? { hint: details.hint } : {});
}
