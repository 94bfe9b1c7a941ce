import type { CanonicalRequest, GenerateResult } from '../contract/canonical.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import type { HttpResponse } from '../contract/http.js';
import type { GenerateTarget, GenerateOperation } from '../contract/adapter.js';
import { readWhole, type WholeAnswer } from '../call/answer.js';
import { CallGuards } from '../call/guards.js';
import { printDryRun, sendOk } from '../call/send.js';
import { isEventStream, readStream } from '../call/stream.js';
import { Interrupted, UsageError } from '../contract/errors.js';
import { GenerationPresenter, type PresentOptions } from './present.js';
import { StreamAggregator } from './aggregate.js';
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
  guards: CallGuards;
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
  const canStream = provider.capabilities.streaming === 'native' || provider.profileStreams?.(profile) === true;
  // A client-side time limit is kept by streaming, so the text generated in time is not lost.
  const wireStream = canStream && (target.stream || deadlineMs !== undefined);
  const spec = provider.build(request, { ...target, stream: wireStream }, profile, inv.extra);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return 0;
  }

  // The time limit the CLI keeps itself, or the backstop behind the one the service keeps.
  const limitMs = deadlineMs ?? checked.client.timeLimitBackstopMs;
  const call: Call = {
    inv,
    request,
    guards: new CallGuards({ user: [ctx.signal], limitMs, silenceMs: profile.timeoutMs }),
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
  try {
    call.started = ctx.now();
    call.guards.start();
    let res: HttpResponse;
    try {
      res = await sendOk(ctx, profile, provider, spec, call.guards.signal);
    } catch (e) {
      if (e instanceof Interrupted && call.guards.timedOut()) return await timedOutBeforeAnswer(ctx, presenter, call);
      throw e;
    }
    const code =
      wireStream && isEventStream(res)
        ? await presentStream(ctx, call, res, presenter, spinner)
        : await presentWhole(ctx, call, res, presenter, spinner);
    spinner.stop();
    await writeSummary(ctx, call);
    return code;
  } finally {
    call.guards.dispose();
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
  let answer: WholeAnswer<GenerateResult>;
  try {
    answer = await readWhole(res, { kind: provider.kind, secrets: call.inv.profile.secrets }, (json) =>
      provider.parse(json, call.request, call.inv.target),
    );
  } catch (e) {
    if (e instanceof Interrupted && call.guards.timedOut()) return timedOutBeforeAnswer(ctx, presenter, call);
    throw e;
  }
  spinner.stop();
  warnAll(ctx, answer.result.system?.warnings);
  await presenter.finish(answer.result, { text: answer.text, json: answer.json });
  call.result = answer.result;
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
  const aggregator = new StreamAggregator();
  const end = await readStream({
    kind: provider.kind,
    res,
    decode: provider.decoder(call.request, call.inv.target),
    secrets: call.inv.profile.secrets,
    guards: call.guards,
    stopReason: provider.capabilities.statesStopReason ? 'without-end-marker' : 'never',
    what: 'generation',
    onChunk(chunk, wireBody) {
      spinner.stop();
      call.firstTokenAt ??= ctx.now();
      warnAll(ctx, aggregator.add(chunk));
      presenter.chunk(chunk, wireBody);
    },
    unfinished: () => aggregator.unfinished(),
    async stopped(reason) {
      spinner.stop();
      aggregator.markStopped(reason);
      await presenter.finish(aggregator.result());
    },
  });
  if (end === 'time_limit') {
    warnBackstop(ctx, call);
    aggregator.markStopped('time_limit');
  } else {
    aggregator.settle(call.request);
  }
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
