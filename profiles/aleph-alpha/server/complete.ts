/**
 * `POST /complete` of the local Aleph Alpha server: checks as the service makes them (token, `nice`, body, model,
 * context size), then the engine's completions as one CompletionResponse, or — with `"stream": true` (1.19+) — as
 * data-only SSE: `stream_chunk`s, a `stream_summary` per completion, one `completion_summary`, then `data: [DONE]`.
 * A `stream-error` fault sends `data: {"error":"…","code":"INTERNAL_ERROR"}` and closes the stream.
 */
import type { CanonicalParameters } from '../../../src/contract/canonical.js';
import type { Engine, GenerationStep, GenerationSummary } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { alephAlphaFaultWording, sendAlephAlphaError } from './errors.js';
import { contextSize, isKnownModel, LUMINOUS_MODELS, MODEL_VERSION } from './models.js';
import {
  completionObject,
  finishReason,
  scoreOf,
  tokenFields,
  TokenRelease,
  wantsRaw,
  type TokenOptions,
} from './response.js';
import { validateCompletionRequest, type ValidCompletionRequest } from './validate.js';
import { alephAlphaPrelude } from './prelude.js';

/** Each image in a multimodal prompt counts as this many tokens. */
const IMAGE_TOKENS = 144;

const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    data: JSON.stringify({
      error: 'The model stopped while generating; the completion is incomplete',
      code: 'INTERNAL_ERROR',
    }),
  }),
  malformedEvent: () => ({ data: '{"type":"stream_chunk","index":0,"completion":' }),
};

type PromptText = { ok: true; text: string; imageTokens: number } | { ok: false; message: string };

/** The prompt as text for the engine: text items as they are, token ids decoded, images counted but not seen. */
async function promptText(engine: Engine, prompt: ValidCompletionRequest['prompt']): Promise<PromptText> {
  if (typeof prompt === 'string') return { ok: true, text: prompt, imageTokens: 0 };
  const tokenizer = await engine.tokenizer();
  let text = '';
  let imageTokens = 0;
  for (const [i, item] of prompt.entries()) {
    if (item.type === 'text') text += item.data;
    else if (item.type === 'image') imageTokens += IMAGE_TOKENS;
    else {
      try {
        text += tokenizer.decode(item.data);
      } catch {
        return { ok: false, message: `Invalid request: 'prompt[${i}].data' holds a token id the model does not know` };
      }
    }
  }
  return { ok: true, text, imageTokens };
}

/** AA sampling fields → engine parameters. All of temperature, top_k and top_p at their defaults is argmax. */
function engineParameters(b: ValidCompletionRequest): CanonicalParameters {
  const topK = b.top_k != null && b.top_k > 0 ? b.top_k : undefined;
  const topP = b.top_p != null && b.top_p > 0 ? b.top_p : undefined;
  const temperature = b.temperature ?? (topK !== undefined || topP !== undefined ? 1 : 0);
  // AA leaves the stop sequence out of the completion.
  const p: CanonicalParameters = { max_new_tokens: b.maximum_tokens, include_stop_sequence: false };
  if (b.minimum_tokens) p.min_new_tokens = b.minimum_tokens;
  if (b.stop_sequences && b.stop_sequences.length > 0) p.stop_sequences = b.stop_sequences;
  if (temperature === 0) p.decoding_method = 'greedy';
  else
    Object.assign(p, {
      decoding_method: 'sample',
      temperature,
      ...(topK !== undefined ? { top_k: topK } : {}),
      ...(topP !== undefined ? { top_p: topP } : {}),
    });
  return p;
}

/** best_of: the n completions with the highest log probability per token, best first; otherwise all, in order. */
function chosen<T extends { summary: GenerationSummary }>(runs: T[], n: number): T[] {
  if (runs.length === n) return runs;
  return [...runs].sort((a, b) => scoreOf(b.summary) - scoreOf(a.summary)).slice(0, n);
}

export async function completeRoute(ctx: RouteContext): Promise<void> {
  const fail = (status: number, code: string, message: string) => sendAlephAlphaError(ctx.res, status, code, message);
  const prelude = alephAlphaPrelude(ctx, { nice: true });
  if (!prelude) return;
  const validation = await validateCompletionRequest(prelude.json);
  if (!validation.ok) return fail(400, 'BAD_REQUEST', validation.message);
  const body = validation.body;
  if (!isKnownModel(ctx.server.engine, body.model)) {
    return fail(
      404,
      'UNKNOWN_MODEL',
      `Unknown model '${body.model}': this server has ${LUMINOUS_MODELS.join(', ')} and any name ending in -local`,
    );
  }
  const prompt = await promptText(ctx.server.engine, body.prompt);
  if (!prompt.ok) return fail(400, 'BAD_REQUEST', prompt.message);
  const promptTokens = (await ctx.server.engine.tokenizer()).encode(prompt.text).length + prompt.imageTokens;
  const context = contextSize(ctx.server.engine, body.model);
  if (promptTokens + body.maximum_tokens > context) {
    return fail(
      400,
      'BAD_REQUEST',
      `Invalid request: the prompt (${promptTokens} tokens) plus 'maximum_tokens' (${body.maximum_tokens}) exceeds the ${context} tokens of ${body.model}`,
    );
  }

  const stream = body.stream === true;
  // Faults hit only requests the service would have served, so a test's 503 never hides a 400.
  const fault = takeFault(ctx, stream);
  if (await applyFault(fault, ctx, alephAlphaFaultWording(ctx.res))) return;

  const n = body.n ?? 1;
  const tasks = Math.max(n, body.best_of ?? 1);
  const opts: TokenOptions = {
    echo: body.echo === true,
    logProbs: body.log_probs,
    tokens: body.tokens === true,
    raw: body.raw_completion === true,
  };
  const run = {
    input: prompt.text,
    parameters: engineParameters(body),
    scoreInput: body.echo === true,
    // log_probs shows them; best_of ranks the completions by them.
    tokenScores: (body.log_probs !== null && body.log_probs !== undefined) || tasks > n,
  };
  const engine = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
  const totals = (summaries: GenerationSummary[]) => ({
    num_tokens_prompt_total: summaries.length * (summaries[0]!.inputTokenCount + prompt.imageTokens),
    num_tokens_generated: summaries.reduce((sum, s) => sum + s.generatedTokenCount, 0),
  });

  if (!stream) {
    const runs: Array<{ summary: GenerationSummary }> = [];
    for (let i = 0; i < tasks && !ctx.signal.aborted; i++) {
      const generation = await ctx.server.engine.startGeneration(run, engine);
      for await (const step of generation) void step;
      runs.push({ summary: generation.summary() });
    }
    await sendAnswer(ctx, fault, {
      model_version: MODEL_VERSION,
      completions: chosen(runs, n).map((r) => completionObject(r.summary, opts)),
      ...totals(runs.map((r) => r.summary)),
    });
    return;
  }

  const events = new EventStream(ctx, fault, streamWording);
  events.open();
  const send = (data: unknown) => events.send({ data: typeof data === 'string' ? data : JSON.stringify(data) });
  const summaries: GenerationSummary[] = [];

  /** Streams one completion from its steps (live, or replayed for best_of); false once the stream is over. */
  async function streamCompletion(
    index: number,
    summary: () => GenerationSummary,
    steps: AsyncIterable<GenerationStep> | GenerationStep[],
    echo: { text: string; tokens: GenerationSummary['inputTokens'] },
  ): Promise<boolean> {
    if (
      opts.echo &&
      !(await send({
        type: 'stream_chunk',
        index,
        completion: echo.text,
        ...tokenFields(echo.tokens, opts),
        ...(wantsRaw(opts) ? { raw_completion: echo.text } : {}),
      }))
    )
      return false;
    const release = new TokenRelease();
    const wantsTokens = opts.tokens || (opts.logProbs !== null && opts.logProbs !== undefined);
    for await (const step of steps) {
      const tokens = release.take(step.token ? [step.token] : [], step.text, step.stopReason !== undefined);
      if (step.text === '' && !(wantsTokens && tokens.length > 0)) continue;
      const chunk = {
        type: 'stream_chunk',
        index,
        completion: step.text,
        ...tokenFields(tokens, opts),
        ...(wantsRaw(opts) ? { raw_completion: step.text } : {}),
      };
      if (!(await send(chunk))) return false;
    }
    return send({
      type: 'stream_summary',
      index,
      model_version: MODEL_VERSION,
      finish_reason: finishReason(summary().stopReason),
    });
  }

  if (tasks > n) {
    // best_of has to see every completion before it can choose, so the chosen ones are replayed.
    const runs: Array<{ summary: GenerationSummary; steps: GenerationStep[] }> = [];
    for (let i = 0; i < tasks && !ctx.signal.aborted; i++) {
      const generation = await ctx.server.engine.startGeneration(run, engine);
      const steps: GenerationStep[] = [];
      for await (const step of generation) steps.push(step);
      runs.push({ summary: generation.summary(), steps });
    }
    if (ctx.signal.aborted) return;
    summaries.push(...runs.map((r) => r.summary));
    for (const [index, r] of chosen(runs, n).entries()) {
      if (
        !(await streamCompletion(index, () => r.summary, r.steps, {
          text: r.summary.inputText,
          tokens: r.summary.inputTokens,
        }))
      )
        return;
    }
  } else {
    for (let index = 0; index < n; index++) {
      const generation = await ctx.server.engine.startGeneration(run, engine);
      const live = await streamCompletion(index, () => generation.summary(), generation, {
        text: generation.inputText,
        tokens: generation.inputTokens,
      });
      if (!live) return;
      summaries.push(generation.summary());
    }
  }
  if (!(await send({ type: 'completion_summary', ...totals(summaries) }))) return;
  if (!(await send('[DONE]'))) return;
  await events.end();
}
