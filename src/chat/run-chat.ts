/**
 * One chat turn, from the checked request to stdout: --dry-run's curl line, or the request sent with the profile's
 * credentials and the answer shown whole or as it streams. A stream that breaks off keeps the text it brought
 * (exit 6); Ctrl-C keeps it too (exit 130). Used by `chat`, its interactive loop and nothing else: batches read
 * whole answers with src/chat/batch.ts.
 */
import type { Context } from '../context.js';
import type { ResolvedProfile } from '../config/types.js';
import { Interrupted, NetworkError, StreamError, isTextgenError } from '../errors.js';
import type { HttpResponse } from '../http/types.js';
import { renderGenerationSummary } from '../output/generation-summary.js';
import { startSpinner, type Spinner } from '../output/spinner.js';
import { answerJson, readAnswer } from '../call/answer.js';
import { failFromResponse, printDryRun, sendAuthorized } from '../call/send.js';
import type { ChatOperation, ChatTarget } from '../../profiles/types.js';
import { ChatAggregator } from './aggregate.js';
import type { ChatRequest, ChatResult } from './canonical.js';
import { ChatPresenter, type ChatPresentOptions } from './present.js';

export interface ChatTurn {
  op: ChatOperation;
  profile: ResolvedProfile;
  /** Parameters already checked against the provider. */
  request: ChatRequest;
  target: ChatTarget;
  extra?: Record<string, unknown> | undefined;
  present: Omit<ChatPresentOptions, 'live'>;
  /** Aborts this turn only (the interactive loop's Ctrl-C); the command's signal always aborts it too. */
  signal?: AbortSignal;
  /** Called with what arrived before a stream broke off or was interrupted. */
  onPartial?: (result: ChatResult) => void;
}

interface Timing {
  started: number;
  firstTokenAt?: number;
}

/** The answer, or undefined after --dry-run. */
export async function runChatTurn(ctx: Context, turn: ChatTurn): Promise<ChatResult | undefined> {
  const { op, profile, target } = turn;
  const spec = op.buildChatRequest(turn.request, target, profile, turn.extra);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return undefined;
  }
  const signal = turn.signal ? AbortSignal.any([ctx.signal, turn.signal]) : ctx.signal;
  const presenter = new ChatPresenter(ctx, { ...turn.present, live: target.stream });
  const spinner = await startSpinner(
    ctx,
    target.stream ? `waiting for the first token from ${op.displayName}…` : `waiting for ${op.displayName}…`,
  );
  const timing: Timing = { started: ctx.now() };
  try {
    const res = await sendAuthorized(ctx, profile, op, spec, signal);
    if (res.status < 200 || res.status >= 300) await failFromResponse(op, res);
    const streamed = target.stream && (res.headers['content-type'] ?? '').includes('text/event-stream');
    const result = streamed
      ? await readStream(ctx, turn, res, presenter, spinner, timing, signal)
      : await readWhole(ctx, turn, res, presenter, spinner);
    spinner.stop();
    await writeSummary(ctx, result, timing);
    return result;
  } finally {
    spinner.stop();
  }
}

function warnAll(ctx: Context, result: { warnings?: Array<{ id?: string; message: string }> }): void {
  for (const w of result.warnings ?? []) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
}

async function readWhole(
  ctx: Context,
  turn: ChatTurn,
  res: HttpResponse,
  presenter: ChatPresenter,
  spinner: Spinner,
): Promise<ChatResult> {
  const text = await res.text();
  spinner.stop();
  const answer = { provider: turn.op.kind, status: res.status, body: text };
  const json = answerJson(text, answer);
  const result = readAnswer(() => turn.op.parseChatResponse(json, turn.request), answer);
  warnAll(ctx, result);
  await presenter.finish(result, { text, json });
  return result;
}

async function readStream(
  ctx: Context,
  turn: ChatTurn,
  res: HttpResponse,
  presenter: ChatPresenter,
  spinner: Spinner,
  timing: Timing,
  signal: AbortSignal,
): Promise<ChatResult> {
  const { op } = turn;
  const { parseSse } = await import('../http/sse-parser.js');
  const decode = op.createChatStreamDecoder(turn.request);
  const aggregator = new ChatAggregator(op.kind);
  const brokenOff = async (reason: 'error' | 'cancelled'): Promise<void> => {
    aggregator.markStopped(reason);
    const partial = aggregator.result();
    await presenter.finish(partial);
    turn.onPartial?.(partial);
  };
  try {
    for await (const event of parseSse(res.body)) {
      const step = decode(event);
      if (step.type === 'ignore') continue;
      if (step.type === 'end') break;
      spinner.stop();
      timing.firstTokenAt ??= ctx.now();
      if (step.type === 'error') {
        await brokenOff('error');
        throw new StreamError(`${op.kind} stream broke off:${step.code ? ` ${step.code}` : ''} ${step.message}`);
      }
      for (const w of aggregator.add(step.chunk)) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
      presenter.chunk(step.chunk, step.raw);
    }
  } catch (e) {
    if (e instanceof StreamError) throw e;
    if (e instanceof Interrupted || signal.aborted) {
      await brokenOff('cancelled');
      throw e instanceof Interrupted ? e : new Interrupted();
    }
    await brokenOff('error');
    const why = isTextgenError(e) ? e.message : (e as Error).message;
    throw new StreamError(`${op.kind} stream broke off: ${why}`, {
      cause: e,
      ...(e instanceof NetworkError && e.hint ? { hint: e.hint } : {}),
    });
  }
  // Some services end a stream without a closing marker; every answer must then have said why it ended.
  if (aggregator.unfinished()) {
    await brokenOff('error');
    throw new StreamError(
      `${op.kind} stream broke off: the stream ended before the service said the answer was finished`,
    );
  }
  const result = aggregator.result();
  await presenter.finish(result);
  return result;
}

/** After an answer on a terminal, one dim line on stderr (never on a pipe, never with -q). */
async function writeSummary(ctx: Context, result: ChatResult, timing: Timing): Promise<void> {
  if (!ctx.terminal.stderrIsTTY || ctx.reporter.quiet) return;
  await ctx.out.flush();
  ctx.stderr.write(
    renderGenerationSummary(
      {
        stopReasons: result.choices.map((c) => c.finish_reason),
        inputTokens: result.usage?.prompt_tokens,
        generatedTokens: result.usage?.completion_tokens,
        firstTokenMs: timing.firstTokenAt === undefined ? undefined : timing.firstTokenAt - timing.started,
        totalMs: ctx.now() - timing.started,
      },
      ctx.terminal.colorLevel,
    ),
  );
}
