import type { CanonicalRequest, GenerateResult } from '../canonical.js';
import type { ResolvedProfile } from '../config/types.js';
import type { Context } from '../context.js';
import type { HttpRequestSpec, HttpResponse } from '../http/types.js';
import type { Authenticator, GenerateTarget, ProviderProfile } from '../../profiles/types.js';
import { ApiError, AuthError, Interrupted, NetworkError, StreamError, formatApiMessage, isTextgenError } from '../errors.js';
import { GenerationPresenter, type PresentOptions } from './present.js';
import { StreamAggregator } from './aggregate.js';

export interface GenerateInvocation {
  provider: ProviderProfile;
  profile: ResolvedProfile;
  request: CanonicalRequest;
  target: GenerateTarget;
  extra?: Record<string, unknown> | undefined;
  present: PresentOptions;
}

async function discard(res: HttpResponse): Promise<void> {
  try {
    await res.text();
  } catch {
    // The body is being thrown away anyway.
  }
}

/** Sends with credentials; on 401 refreshes an exchanged token once and tries again (DESIGN §7). */
async function sendAuthorized(ctx: Context, inv: GenerateInvocation, spec: HttpRequestSpec, auth: Authenticator): Promise<HttpResponse> {
  const http = await ctx.http(inv.profile);
  for (let attempt = 0; ; attempt++) {
    const headers = { ...spec.headers, ...(await auth.headers(ctx.signal)) };
    const res = await http.send({ ...spec, headers }, { signal: ctx.signal, service: inv.provider.displayName });
    if (res.status === 401 && attempt === 0 && (await auth.invalidate())) {
      ctx.reporter.trace('* 401: refreshing the token and retrying once');
      await discard(res);
      continue;
    }
    return res;
  }
}

async function failFromResponse(inv: GenerateInvocation, res: HttpResponse): Promise<never> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // Keep the status even when the error body could not be read.
  }
  const details = inv.provider.parseError(res.status, text, res.headers);
  if (res.status === 401 || res.status === 403) {
    throw new AuthError(formatApiMessage(details), {
      status: res.status,
      ...(details.traceId ? { traceId: details.traceId } : {}),
      hint: res.status === 401 ? 'check the credentials of the profile (--api-key, --token, or the profile\'s auth)' : undefined,
    } as { status: number; traceId?: string; hint?: string });
  }
  throw new ApiError(details);
}

function warnAll(ctx: Context, warnings: Array<{ id?: string; message: string }> | undefined): void {
  for (const w of warnings ?? []) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
}

/** One generation, streamed or not, from request to stdout. Returns the exit code. */
export async function runGenerate(ctx: Context, inv: GenerateInvocation): Promise<number> {
  const spec = inv.provider.buildGenerateRequest(inv.request, inv.target, inv.profile, inv.extra);
  const auth = await ctx.authenticator(inv.profile);

  if (ctx.globals.dryRun) {
    const { toCurl } = await import('../http/curl.js');
    const line = toCurl(
      { ...spec, headers: { ...spec.headers, ...auth.dryRunHeaders() } },
      { insecure: inv.profile.tls.insecure, ...(inv.profile.tls.caCert ? { caCertPath: inv.profile.tls.caCert } : {}) },
    );
    ctx.out.write(`${line}\n`);
    return 0;
  }

  const res = await sendAuthorized(ctx, inv, spec, auth);
  if (res.status < 200 || res.status >= 300) await failFromResponse(inv, res);

  const presenter = new GenerationPresenter(ctx, inv.present);
  const contentType = res.headers['content-type'] ?? '';
  if (!inv.target.stream || !contentType.includes('text/event-stream')) {
    return presentWhole(ctx, inv, res, presenter);
  }
  return presentStream(ctx, inv, res, presenter);
}

async function presentWhole(ctx: Context, inv: GenerateInvocation, res: HttpResponse, presenter: GenerationPresenter): Promise<number> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError({ provider: inv.provider.displayName, status: res.status, message: `the answer is not JSON: ${excerpt(text)}` });
  }
  let result: GenerateResult;
  try {
    result = inv.provider.parseGenerateResponse(json, inv.request);
  } catch (e) {
    throw new ApiError({ provider: inv.provider.displayName, status: res.status, message: `unexpected answer: ${(e as Error).message}` });
  }
  warnAll(ctx, result.system?.warnings);
  await presenter.finish(result, { text, json });
  return 0;
}

async function presentStream(ctx: Context, inv: GenerateInvocation, res: HttpResponse, presenter: GenerationPresenter): Promise<number> {
  const { parseSse } = await import('../http/sse-parser.js');
  const decode = inv.provider.createStreamDecoder(inv.request);
  const aggregator = new StreamAggregator();
  try {
    for await (const event of parseSse(res.body)) {
      const step = decode(event);
      if (step.type === 'ignore') continue;
      if (step.type === 'end') break;
      if (step.type === 'error') {
        aggregator.markStopped('error');
        await presenter.finishPartial(aggregator.result());
        const code = step.code ? ` ${step.code}` : '';
        throw new StreamError(`${inv.provider.displayName} stream broke off:${code} ${step.message}`);
      }
      warnAll(ctx, aggregator.add(step.chunk));
      await presenter.chunk(step.chunk, step.raw);
    }
  } catch (e) {
    if (e instanceof StreamError) throw e;
    if (e instanceof Interrupted) {
      aggregator.markStopped('cancelled');
      await presenter.finishPartial(aggregator.result());
      throw e;
    }
    aggregator.markStopped('error');
    await presenter.finishPartial(aggregator.result());
    const why = isTextgenError(e) ? e.message : (e as Error).message;
    throw new StreamError(`${inv.provider.displayName} stream broke off: ${why}`, {
      cause: e,
      ...(e instanceof NetworkError && e.hint ? { hint: e.hint } : {}),
    });
  }
  await presenter.finish(aggregator.result());
  return 0;
}

function excerpt(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 120 ? `${t.slice(0, 120)}…` : t || '(empty body)';
}
