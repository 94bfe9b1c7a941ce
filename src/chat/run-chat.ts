/**
 * One chat turn, from the checked request to stdout: --dry-run's curl line, or the request sent with the profile's
 * credentials and the answer shown whole or as it streams. A stream that breaks off keeps the text it brought
 * (exit 6); Ctrl-C keeps it too (exit 130). Sending and reading go through the call pipeline (src/call/), as for
 * generations. Used by `chat`, its interactive loop and nothing else: batches read whole answers with
 * src/chat/batch.ts.
 */
import type { Context } from '../context.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { HttpResponse } from '../contract/http.js';
import { renderGenerationSummary } from '../output/generation-summary.js';
import { startSpinner, type Spinner } from '../output/spinner.js';
import { readWhole } from '../call/answer.js';
import { CallGuards } from '../call/guards.js';
import { printDryRun, sendOk } from '../call/send.js';
import { isEventStream, readStream } from '../call/stream.js';
import type { ChatOperation, ChatTarget } from '../contract/adapter.js';
import { ChatAggregator } from './aggregate.js';
import type { ChatRequest, ChatResult } from '../contract/chat.js';
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
  /** Hold the output until the caller says (sendChatTurn's `present`): nothing streams to stdout. */
  hold?: boolean;
}

interface Timing {
  started: number;
  firstTokenAt?: number;
}

/** The answer, or undefined after --dry-run. */
export async function runChatTurn(ctx: Context, turn: ChatTurn): Promise<ChatResult | undefined> {
  const answer = await sendChatTurn(ctx, turn);
  if (answer === undefined) return undefined;
  await answer.present();
  return answer.result;
}

/** An answer whose output is held back until the caller has checked it (a tool round, a schema check). */
export interface HeldAnswer {
  result: ChatResult;
  /** Writes what the answer owes stdout, as runChatTurn would have. */
  present(): Promise<void>;
}

/**
 * One request and its answer, with the output held: nothing reaches stdout as it arrives (the presenter is not
 * live), so a round that leads to another (tool calls to run, an answer to ask again) prints nothing. A stream that
 * breaks off still shows what came and fails (exit 6). Undefined after --dry-run.
 */
export async function sendChatTurn(ctx: Context, turn: ChatTurn): Promise<HeldAnswer | undefined> {
  const { op, profile, target } = turn;
  const spec = op.build(turn.request, target, profile, turn.extra);
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return undefined;
  }
  const guards = new CallGuards({
    user: turn.signal ? [ctx.signal, turn.signal] : [ctx.signal],
    silenceMs: profile.timeoutMs,
  });
  const presenter = new ChatPresenter(ctx, { ...turn.present, live: target.stream && turn.hold !== true });
  const spinner = await startSpinner(
    ctx,
    target.stream ? `waiting for the first token from ${op.displayName}…` : `waiting for ${op.displayName}…`,
  );
  const timing: Timing = { started: ctx.now() };
  try {
    const res = await sendOk(ctx, profile, op, spec, guards.signal);
    const streamed = target.stream && isEventStream(res);
    const answer = streamed
      ? await presentStream(ctx, turn, res, presenter, spinner, timing, guards)
      : await presentWhole(ctx, turn, res, presenter, spinner);
    spinner.stop();
    return {
      result: answer.result,
      present: async () => {
        await answer.present();
        await writeSummary(ctx, answer.result, timing);
      },
    };
  } finally {
    guards.dispose();
    spinner.stop();
  }
}

function warnAll(ctx: Context, result: { warnings?: Array<{ id?: string; message: string }> }): void {
  for (const w of result.warnings ?? []) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
}

async function presentWhole(
  ctx: Context,
  turn: ChatTurn,
  res: HttpResponse,
  presenter: ChatPresenter,
  spinner: Spinner,
): Promise<HeldAnswer> {
  const answer = await readWhole(res, { kind: turn.op.kind, secrets: turn.profile.secrets }, (json) =>
    turn.op.parse(json, turn.request),
  );
  spinner.stop();
  warnAll(ctx, answer.result);
  return {
    result: answer.result,
    present: () => presenter.finish(answer.result, { text: answer.text, json: answer.json }),
  };
}

async function presentStream(
  ctx: Context,
  turn: ChatTurn,
  res: HttpResponse,
  presenter: ChatPresenter,
  spinner: Spinner,
  timing: Timing,
  guards: CallGuards,
): Promise<HeldAnswer> {
  const { op } = turn;
  const aggregator = new ChatAggregator(op.kind);
  await readStream({
    kind: op.kind,
    res,
    decode: op.decoder(turn.request),
    secrets: turn.profile.secrets,
    guards,
    stopReason: 'always',
    what: 'answer',
    onChunk(chunk, wireBody) {
      spinner.stop();
      timing.firstTokenAt ??= ctx.now();
      for (const w of aggregator.add(chunk)) ctx.reporter.warn(w.id ? `[${w.id}] ${w.message}` : w.message);
      presenter.chunk(chunk, wireBody);
    },
    unfinished: () => aggregator.unfinished(),
    async stopped(reason) {
      spinner.stop();
      aggregator.markStopped(reason);
      const partial = aggregator.result();
      await presenter.finish(partial);
      turn.onPartial?.(partial);
    },
  });
  const result = aggregator.result();
  return { result, present: () => presenter.finish(result) };
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
