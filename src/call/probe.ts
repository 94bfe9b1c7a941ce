/**
 * One probe of `health`. Health reports reachability, so a non-2xx answer is a finding to put in the report, not an
 * error to throw: sendProbe hands over the status, the body and, for a non-2xx, the service's error in its own words
 * (the same mapping as every other command's, src/call/status-error.ts), so health.ts never tests a status itself.
 */
import type { Context } from '../context.js';
import { formatApiMessage } from '../contract/errors.js';
import type { HttpRequestSpec } from '../contract/http.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { Callee } from './callee.js';
import { sendAuthorized } from './send.js';
import { CREDENTIALS_HINT, isSuccess, refusesCredentials } from './status-error.js';

export interface ProbeAnswer {
  status: number;
  /** A 2xx. */
  ok: boolean;
  /** The body; empty when it was cut short (the status has been had, a cut body only loses detail). */
  text: string;
  /** A non-2xx: the service's error message, whether it refused the credentials (401/403) and what to check. */
  refusal?: { message: string; credentials: boolean; hint?: string };
}

/** Sends one probe with the profile's credentials (and the one 401 refresh); never throws for a status. */
export async function sendProbe(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  spec: HttpRequestSpec,
): Promise<ProbeAnswer> {
  const res = await sendAuthorized(ctx, profile, callee, spec);
  let text = '';
  try {
    text = await res.text();
  } catch {
    // The status has been had; a body cut short only loses detail.
  }
  const ok = isSuccess(res.status);
  if (ok) return { status: res.status, ok, text };
  return {
    status: res.status,
    ok,
    text,
    refusal: {
      message: formatApiMessage(callee.parseError(res.status, text, res.headers)),
      credentials: refusesCredentials(res.status),
      ...(res.status === 401 ? { hint: CREDENTIALS_HINT } : {}),
    },
  };
}
