/**
 * `health`: the cheapest real check of an endpoint — is it up, how fast, which version. Each provider says which
 * requests prove it (`profiles/<kind>/client/health.ts`); this module sends them, times them and turns the answers into
 * one report: healthy (exit 0), unhealthy (exit 4; 3 when the credentials were refused) or unreachable (exit 5).
 */
import type { ProviderKind, ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { AuthError, NetworkError, UnexpectedAnswer, type AnswerContext } from '../contract/errors.js';
import { redactUrl } from '../contract/redact.js';
import { answerContext } from '../call/answer.js';
import type { Callee } from '../call/callee.js';
import { sendProbe } from '../call/probe.js';
import { adapterFor } from '../../profiles/registry.js';
import type { HealthOperation, HealthProbe } from '../contract/adapter.js';

export type HealthStatus = 'healthy' | 'unhealthy' | 'unreachable';

export interface HealthCheck {
  name: string;
  method: string;
  path: string;
  /** Absent when no answer came. */
  http_status?: number;
  ok: boolean;
  latency_ms: number;
  /** Why it failed: the provider's error in its words, or the network failure. */
  message?: string;
}

/** `-o json`: keys in this order. */
export interface HealthReport {
  status: HealthStatus;
  provider: string;
  url: string;
  /** What the server says it runs (Aleph Alpha `/version`, Open Inference `GET /v2`). */
  version?: string;
  /** The API version date the check spoke (watsonx `version=`, Azure `api-version=`). */
  api_version?: string;
  /** Time spent waiting on the service across the probes (a token exchange before them is not counted). */
  latency_ms: number;
  /** The first failure, when not healthy. */
  message?: string;
  checks: HealthCheck[];
}

/** Every provider kind has a cheap check. */
export async function loadHealthOperation(kind: ProviderKind): Promise<HealthOperation> {
  return adapterFor(kind).health();
}

/** A CI gate must answer promptly: without --timeout a check waits at most this long for an answer. */
export const HEALTH_TIMEOUT_MS = 30_000;

/**
 * The profile a check runs with: no retries unless `--retries` was given (a retried check would hide the flakiness
 * it is there to show, and take minutes to say "down"), and at most HEALTH_TIMEOUT_MS unless `--timeout` was given.
 */
export function healthProfile(
  profile: ResolvedProfile,
  flags: { retries?: string | undefined; timeout?: string | undefined },
): ResolvedProfile {
  return {
    ...profile,
    retries: flags.retries === undefined ? 0 : profile.retries,
    timeoutMs: flags.timeout === undefined ? Math.min(profile.timeoutMs, HEALTH_TIMEOUT_MS) : profile.timeoutMs,
  };
}

/** What the verdict means as an exit code: 0 healthy, 3 credentials refused, 4 unhealthy, 5 unreachable. */
export function healthExitCode(report: HealthReport, authRefused: boolean): number {
  if (report.status === 'healthy') return 0;
  if (report.status === 'unreachable') return 5;
  return authRefused ? 3 : 4;
}

/** Runs the probes in order and judges them. Returns the report and whether credentials were refused. */
export async function checkHealth(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  op: HealthOperation,
): Promise<{ report: HealthReport; authRefused: boolean }> {
  const report: HealthReport = {
    status: 'healthy',
    provider: callee.kind,
    url: redactUrl(profile.url),
    latency_ms: 0,
    checks: [],
  };
  if (op.apiVersion) report.api_version = op.apiVersion(profile);
  let authRefused = false;
  // The first failure names the verdict; an unreachable service overrides an earlier bad answer. A hint (TLS
  // options, credentials) goes to stderr, as the top level prints it for other failures.
  const fail = (status: HealthStatus, message: string, hint?: string) => {
    if (report.status !== 'healthy' && status !== 'unreachable') return;
    report.status = status;
    report.message = message;
    if (hint !== undefined) ctx.reporter.info(`hint: ${hint}`);
  };

  // The HTTP client loads its transport on its first send: loaded here, that cost stays out of the first probe.
  await Promise.all([import('../http/node-transport.js'), import('../http/response.js')]);
  // A token exchange comes first, outside the clock: it measures the identity service, not this endpoint.
  const auth = await ctx.authenticator(profile);
  try {
    await auth.headers(ctx.signal);
  } catch (error) {
    if (error instanceof NetworkError) fail('unreachable', error.message, error.hint);
    else if (error instanceof AuthError) {
      authRefused = true;
      fail('unhealthy', error.message, error.hint);
    } else throw error;
    return { report: ordered(report), authRefused };
  }

  for (const probe of op.probes(profile)) {
    const started = ctx.now();
    const base = { name: probe.name, method: probe.request.method, path: new URL(probe.request.url).pathname };
    try {
      const answer = await sendProbe(ctx, profile, callee, probe.request);
      const { text } = answer;
      const check: HealthCheck = {
        ...base,
        http_status: answer.status,
        ok: answer.ok,
        latency_ms: ctx.now() - started,
      };
      report.latency_ms += check.latency_ms;
      const wrongShape = check.ok
        ? shapeProblem(probe, text, answerContext(callee.kind, answer.status, text, profile.secrets))
        : undefined;
      if (wrongShape !== undefined) {
        check.ok = false;
        check.message = wrongShape;
        if (probe.required) fail('unhealthy', `${probe.name}: ${wrongShape}`);
      } else if (answer.refusal === undefined) {
        const version = probe.version?.(text);
        if (version !== undefined) report.version = version;
      } else {
        check.message = answer.refusal.message;
        if (probe.required) {
          if (answer.refusal.credentials) authRefused = true;
          fail('unhealthy', `${probe.name}: ${check.message}`, answer.refusal.hint);
        }
      }
      report.checks.push(check);
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      const latency = ctx.now() - started;
      report.latency_ms += latency;
      report.checks.push({ ...base, ok: false, latency_ms: latency, message: error.message });
      if (!probe.required) continue;
      fail('unreachable', error.message, error.hint);
      // Nothing answers: further probes would only wait for the same timeout again.
      break;
    }
  }
  return { report: ordered(report), authRefused };
}

/** The message of the UnexpectedAnswer a probe's check raises for a 2xx answer, or undefined when it is the protocol's. */
function shapeProblem(probe: HealthProbe, text: string, context: AnswerContext): string | undefined {
  try {
    probe.check?.(text);
    return undefined;
  } catch (e) {
    if (e instanceof UnexpectedAnswer) return e.in(context).message;
    throw e;
  }
}

/** The report in its documented key order, whatever order the fields were learnt in. */
function ordered(r: HealthReport): HealthReport {
  return {
    status: r.status,
    provider: r.provider,
    url: r.url,
    ...(r.version !== undefined ? { version: r.version } : {}),
    ...(r.api_version !== undefined ? { api_version: r.api_version } : {}),
    latency_ms: r.latency_ms,
    ...(r.message !== undefined ? { message: r.message } : {}),
    checks: r.checks,
  };
}

/** The text line: `healthy  watsonx  http://…  api-version 2024-05-01  12 ms`, the reason last when not healthy. */
export function healthLine(r: HealthReport): string {
  const parts = [r.status, r.provider, r.url];
  if (r.version !== undefined) parts.push(`version ${r.version}`);
  if (r.api_version !== undefined) parts.push(`api-version ${r.api_version}`);
  parts.push(`${r.latency_ms} ms`);
  if (r.message !== undefined) parts.push(r.message);
  return `${parts.join('  ')}\n`;
}
