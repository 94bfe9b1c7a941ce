import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import type { AnswerContext } from '../contract/errors.js';
import type { Callee } from './callee.js';
import { failFromResponse, isSuccess } from './status-error.js';
import { answerContext, answerJson } from './answer.js';
import type { HttpRequestSpec, HttpResponse } from '../contract/http.js';
import { rememberRequest } from './missing-route.js';
import { merged } from '../contract/spread.js';

export type { Callee } from './callee.js';

async function discard(res: HttpResponse): Promise<void> {
  try {
    await res.text();
  } catch {
    // The body is being thrown away anyway.
  }
}

/**
 * Sends with the profile's credentials; on a 401 refreshes an exchanged token once and tries again (docs/design.md §7).
 * Returns the response whatever its status.
 */
export async function sendAuthorized(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  spec: HttpRequestSpec,
  signal: AbortSignal = ctx.signal,
): Promise<HttpResponse> {
  const http = await ctx.http(profile);
  const auth = await ctx.authenticator(profile);
  for (let attempt = 0; ; attempt++) {
    const headers = merged(spec.headers, await auth.headers(signal));
    const res = await http.send({ ...spec, headers }, { signal, service: callee.kind });
    // Only a 404 reads it (missing-route.ts); an entry per answer kept every answer's request for the scavenger.
    if (res.status === 404) rememberRequest(res, spec);
    if (res.status === 401 && attempt === 0 && (await auth.invalidate())) {
      ctx.reporter.trace('* 401: refreshing the token and retrying once');
      await discard(res);
      continue;
    }
    return res;
  }
}

/** Sends with the profile's credentials (and the one 401 refresh); a non-2xx answer becomes its error. */
export async function sendOk(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  spec: HttpRequestSpec,
  signal: AbortSignal = ctx.signal,
): Promise<HttpResponse> {
  const res = await sendAuthorized(ctx, profile, callee, spec, signal);
  if (!isSuccess(res.status)) await failFromResponse(callee, res);
  return res;
}

/** --dry-run: the request as a runnable curl line on stdout, credentials as shell variables; nothing is sent. */
export async function printDryRun(ctx: Context, profile: ResolvedProfile, spec: HttpRequestSpec): Promise<void> {
  const auth = await ctx.authenticator(profile);
  const { toCurl } = await import('../http/curl.js');
  const { redactUrl } = await import('../contract/redact.js');
  const line = toCurl(
    { ...spec, url: redactUrl(spec.url), headers: { ...spec.headers, ...auth.dryRunHeaders() } },
    { insecure: profile.tls.insecure, ...(profile.tls.caCert ? { caCertPath: profile.tls.caCert } : {}) },
  );
  ctx.out.raw(`${ctx.secrets.redact(line)}\n`);
}

export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
  /** Who answered what, for an UnexpectedAnswer about this answer (the profile's secrets masked in its excerpt). */
  context: AnswerContext;
}

/**
 * One request → its JSON answer, for the commands that are not streamed generations (embed, tokenize, models, …):
 * credentials, the 401 refresh, errors with the provider's words, and a clear message when a 2xx is not JSON.
 */
export async function requestJson(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  spec: HttpRequestSpec,
): Promise<JsonAnswer> {
  const res = await sendOk(ctx, profile, callee, spec);
  const text = await res.text();
  const context = answerContext(callee.kind, res.status, text, profile.secrets);
  const json = answerJson(text, context, { emptyIsNull: true });
  return { status: res.status, headers: res.headers, text, json, context };
}
