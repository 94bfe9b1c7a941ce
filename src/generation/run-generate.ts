import type { CanonicalRequest, GenerateResult } from '../canonical.js';
import type { ResolvedProfile } from '../config/types.js';
import type { Context } from '../context.js';
import type { HttpResponse } from '../http/types.js';
import type { GenerateTarget, GenerateOperation } from '../../profiles/types.js';
import { answerJson, readAnswer } from '../requests/answer.js';
import { Interrupted, NetworkError, StreamError, UsageError, isTextgenError } from '../errors.js';
import { failFromResponse, printDryRun, sendAuthorized } from '../requests/send.js';
import { GenerationPresenter, type PresentOptions } from './present.js';
import { StreamAggregator } from './aggregate.js';
import { StreamShape } from './stream-shape.js';
import { checkSupport, fillPromptVariables } from './support.js';
import { startSpinner, type Spinner } from '../output/spinner.js';
import { renderGenerationSummary, type GenerationStats } from '../output/generation-summary.js';

export interface GenerateInvocation {
  provider: GenerateOperation;
  profile: ResolvedProfile;
  request: CanonicalRequest;
  /** `stream` is what the user asked for; the wire may differ (client deadline, a server that cannot stream). */
  target: GenerateTarget;
  extra?: Record<string, unknown> | undefined;
  present: Omit<PresentOptions, 'live'>;
  ignoreUnsupported: boolean;
}

/** One call as it goes on the wire, after capabilities and client-side work. */
interface Call {
  inv: GenerateInvocation;
  request: CanonicalRequest;
  wireStream: boolean;
  signal: AbortSignal;
  /** Aborted by the stream watchdog: no event for --timeout (keep-alive comments do not count). */
  silence: AbortController;
  /** Set when the client-side time limit (not the user) cut the call short. */
  timedOut(): boolean;
  /** The time limit was the service's, and it did not keep it: say so when the CLI stops waiting. */
  backstop: boolean;
  /** ctx.now() when the request was sent, and when the first streamed text arrived: for the summary line. */
  started: number;
  firstTokenAt?: number;
  /** The result printed, once the generation ended without an error. */
  result?: GenerateResult;
}

function warnAll(ctx: Context, warnings: Array<{ id?: string; message: string }> | undefined): void {
  for (const w of warnings ?? []) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
}

/** One generation, streamed or not, from request to stdout. Returns the exit code. */
export async function runGenerate(ctx: Context, inv: GenerateInvocation): Promise<number> {
  const { provider, profile, target } = inv;
  const checked = checkSupport(inv.request, provider, profile, target, {
    ignoreUnsupported: inv.ignoreUnsupported,
    warn: (m) => ctx.reporter.warn(m),
  });
  const request = checked.request;
  if (checked.client.promptVariables) {
    // Here the client fills the {{name}} placeholders: only a service that keeps prompt templates does without input.
    if (request.input === undefined)
      throw new UsageError(
        `missing required option: --input (the prompt whose {{name}} placeholders the prompt variables fill; ${profile.provider} keeps no prompt templates)`,
      );
    request.input = fillPromptVariables(request.input, checked.client.promptVariables);
  }
  const deadlineMs = checked.client.timeLimitMs;
  const canStream = provider.capabilities.streaming === 'native' || profile.streaming;
  // A client-side time limit is kept by streaming, so the text generated in time is not lost.
  const wireStream = canStream && (target.stream || deadlineMs !== undefined);
  const spec = provider.buildGenerateRequest(request, { ...target, stream: wireStream }, profile, inv.extra);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return 0;
  }

  // The time limit the CLI keeps itself, or the backstop behind the one the service keeps.
  const limitMs = deadlineMs ?? checked.client.timeLimitBackstopMs;
  const deadline = new AbortController();
  // A stream that sends nothing but keep-alive comments for --timeout is silent: the watchdog ends it.
  const silence = new AbortController();
  const signal = AbortSignal.any([ctx.signal, deadline.signal, silence.signal]);
  const call: Call = {
    inv,
    request,
    wireStream,
    signal,
    silence,
    timedOut: () => deadline.signal.aborted && !ctx.signal.aborted,
    started: ctx.now(),
    backstop: deadlineMs === undefined && limitMs !== undefined,
  };
  const echo = request.parameters?.return_options?.input_text === true && request.input !== undefined;
  const presenter = new GenerationPresenter(ctx, {
    ...inv.present,
    live: target.stream,
    ...(echo ? { echoPrompt: request.input } : {}),
  });
  const spinner = await startSpinner(
    ctx,
    target.stream
      ? `waiting for the first token from ${provider.displayName}…`
      : `waiting for ${provider.displayName}…`,
  );
  let timer: NodeJS.Timeout | undefined;
  try {
    call.started = ctx.now();
    if (limitMs !== undefined)
      timer = setTimeout(() => deadline.abort(), Math.max(0, limitMs - (ctx.now() - call.started)));
    let res: HttpResponse;
    try {
      res = await sendAuthorized(ctx, profile, provider, spec, call.signal);
    } catch (e) {
      if (e instanceof Interrupted && call.timedOut()) return await timedOutBeforeAnswer(ctx, presenter, call);
      throw e;
    }
    if (res.status < 200 || res.status >= 300) await failFromResponse(provider, res);
    const contentType = res.headers['content-type'] ?? '';
    const code =
      wireStream && contentType.includes('text/event-stream')
        ? await presentStream(ctx, call, res, presenter, spinner)
        : await presentWhole(ctx, call, res, presenter, spinner);
    spinner.stop();
    await writeSummary(ctx, call);
    return code;
  } finally {
    if (timer) clearTimeout(timer);
    spinner.stop();
  }
}

async function timedOutBeforeAnswer(ctx: Context, presenter: GenerationPresenter, call: Call): Promise<number> {
  warnBackstop(ctx, call);
  ctx.reporter.warn('the time limit passed before any text arrived');
  await presenter.finish({
    results: [{ generated_text: '', generated_token_count: 0, input_token_count: 0, stop_reason: 'time_limit' }],
  });
  return 0;
}

async function presentWhole(
  ctx: Context,
  call: Call,
  res: HttpResponse,
  presenter: GenerationPresenter,
  spinner: Spinner,
): Promise<number> {
  const provider = call.inv.provider;
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    if (e instanceof Interrupted && call.timedOut()) return timedOutBeforeAnswer(ctx, presenter, call);
    throw e;
  }
  spinner.stop();
  const answer = { provider: provider.kind, status: res.status, body: text, secrets: call.inv.profile.secrets };
  const json = answerJson(text, answer);
  const result: GenerateResult = readAnswer(
    () => provider.parseGenerateResponse(json, call.request, call.inv.target),
    answer,
  );
  warnAll(ctx, result.system?.warnings);
  await presenter.finish(result, { text, json });
  call.result = result;
  return 0;
}

async function presentStream(
  ctx: Context,
  call: Call,
  res: HttpResponse,
  presenter: GenerationPresenter,
  spinner: Spinner,
): Promise<number> {
  const provider = call.inv.provider;
  const { parseSse } = await import('../http/sse-parser.js');
  const decode = provider.createStreamDecoder(call.request, call.inv.target);
  const aggregator = new StreamAggregator();
  const shape = new StreamShape();
  let ended = false;
  const timeoutMs = call.inv.profile.timeoutMs;
  let watchdog: NodeJS.Timeout | undefined;
  const rearm = () => {
    clearTimeout(watchdog);
    if (timeoutMs > 0) watchdog = setTimeout(() => call.silence.abort(), timeoutMs);
  };
  rearm();
  try {
    for await (const event of parseSse(res.body)) {
      rearm();
      const step = decode(event);
      shape.see(event, step);
      if (step.type === 'ignore') continue;
      if (step.type === 'end') {
        ended = true;
        break;
      }
      spinner.stop();
      call.firstTokenAt ??= ctx.now();
      if (step.type === 'error') {
        aggregator.markStopped('error');
        await presenter.finish(aggregator.result());
        const code = step.code ? ` ${step.code}` : '';
        throw new StreamError(`${provider.kind} stream broke off:${code} ${step.message}`);
      }
      warnAll(ctx, aggregator.add(step.chunk));
      presenter.chunk(step.chunk, step.raw);
    }
  } catch (e) {
    if (e instanceof StreamError) throw e;
    if (e instanceof Interrupted && call.silence.signal.aborted && !ctx.signal.aborted) {
      aggregator.markStopped('error');
      await presenter.finish(aggregator.result());
      throw new StreamError(
        `${provider.kind} stream broke off: ${provider.kind} sent nothing for ${timeoutMs / 1000} s but keep-alive comments, no event (--timeout)`,
      );
    }
    if (e instanceof Interrupted && call.timedOut()) {
      warnBackstop(ctx, call);
      aggregator.markStopped('time_limit');
      call.result = aggregator.result();
      await presenter.finish(call.result);
      return 0;
    }
    if (e instanceof Interrupted) {
      aggregator.markStopped('cancelled');
      await presenter.finish(aggregator.result());
      throw e;
    }
    aggregator.markStopped('error');
    await presenter.finish(aggregator.result());
    const why = isTextgenError(e) ? e.message : (e as Error).message;
    throw new StreamError(`${provider.kind} stream broke off: ${why}`, {
      cause: e,
      ...(e instanceof NetworkError && e.hint ? { hint: e.hint } : {}),
    });
  } finally {
    clearTimeout(watchdog);
  }
  const unexpected = shape.verdict(
    { provider: provider.kind, status: res.status, secrets: call.inv.profile.secrets },
    ended,
    provider.capabilities.statesStopReason,
  );
  if (unexpected) throw unexpected;
  if (!ended && provider.capabilities.statesStopReason && aggregator.unfinished()) {
    aggregator.markStopped('error');
    await presenter.finish(aggregator.result());
    throw new StreamError(
      `${provider.kind} stream broke off: the stream ended before the service said the generation was finished`,
    );
  }
  aggregator.settle(call.request);
  call.result = aggregator.result();
  await presenter.finish(call.result);
  return 0;
}

/** The service was asked to keep a time limit and did not: the CLI stopped waiting for it. */
function warnBackstop(ctx: Context, call: Call): void {
  if (!call.backstop) return;
  const limit = call.request.parameters?.time_limit;
  ctx.reporter.warn(
    `${call.inv.provider.kind} did not stop at its time limit (${limit} ms); textgen stopped waiting ${((ctx.now() - call.started) / 1000).toFixed(1)} s after sending`,
  );
}

/** After a generation on a terminal, one dim line on stderr (never on a pipe, never with -q). */
async function writeSummary(ctx: Context, call: Call): Promise<void> {
  if (!ctx.terminal.stderrIsTTY || ctx.reporter.quiet || call.result === undefined) return;
  await ctx.out.flush(); // on a shared screen the summary must follow the text
  const items = call.result.results;
  const counts = items.map((r) => r.generated_token_count).filter((n): n is number => typeof n === 'number');
  // A prompt has at least one token: 0 is a stream that never said (the aggregator's default), not a count.
  const input = items.find(
    (r) => typeof r.input_token_count === 'number' && r.input_token_count > 0,
  )?.input_token_count;
  const stats: GenerationStats = {
    stopReasons: items.map((r) => r.stop_reason),
    inputTokens: input,
    generatedTokens: counts.length > 0 ? counts.reduce((a, b) => a + b, 0) : undefined,
    firstTokenMs: call.firstTokenAt === undefined ? undefined : call.firstTokenAt - call.started,
    totalMs: ctx.now() - call.started,
  };
  ctx.stderr.write(renderGenerationSummary(stats, ctx.terminal.colorLevel));
}
