/**
 * The completions routes of the embedded server: `/openai/deployments/{deployment}/completions?api-version=` (Azure)
 * and `/v1/completions` (OpenAI-compatible). Checks in the services' order (credentials, api-version, body, content
 * filter), then the engine's output as one `text_completion` or as data-only SSE ending with `data: [DONE]`.
 */
import type { CanonicalParameters } from '../../../src/contract/canonical.js';
import { runToEnd, type Engine } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import type { Fault } from '../../../src/emulator/core/types.js';
import { accessProblem } from './access.js';
import { StreamedChoice, wholeChoice, type BuiltChoice, type ChoiceOptions } from './choices.js';
import { contentFilterResults, PROMPT_FILTERED_MESSAGE, promptIsFiltered } from './content-filter.js';
import {
  completionsFaultWording,
  errorBody,
  invalidRequest,
  sendCompletionsError,
  stampRequestId,
  statusError,
  type CompletionsError,
  type Dialect,
  sendUnparsableBody,
} from './errors.js';
import { validateCompletionsBody, type CompletionsBody } from './validate.js';
import type { WireChoice, WireCompletion } from '../wire.js';
import { answerHex, answerSeconds } from '../../../src/emulator/core/answer-clock.js';

/** The service's default when max_tokens is absent or null. */
const DEFAULT_MAX_TOKENS = 16;

function completionId(): string {
  // randomUUID draws from a cached pool; randomBytes per answer was a measurable share of the server's time.
  return `cmpl-${answerHex(15).slice(0, 29)}`;
}

function streamWording(dialect: Dialect): StreamFaultWording {
  return {
    errorEvent: () => ({ data: JSON.stringify(errorBody(dialect, 500, statusError(500, undefined, undefined))) }),
    malformedEvent: () => ({ data: '{"id":"cmpl-broken","object":"text_completion","choices":[{"text":' }),
  };
}

/** The request's sampling settings in the engine's (canonical) vocabulary. */
function engineParameters(body: CompletionsBody): CanonicalParameters {
  const temperature = body.temperature ?? 1;
  const p: CanonicalParameters = {
    max_new_tokens: body.max_tokens ?? DEFAULT_MAX_TOKENS,
    include_stop_sequence: false,
  };
  if (temperature === 0) p.decoding_method = 'greedy';
  else {
    p.decoding_method = 'sample';
    p.temperature = temperature;
    if (body.top_p != null) p.top_p = body.top_p;
  }
  const stops = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : [...body.stop];
  // An insertion ends where the text after it begins: the suffix ends the completion like a stop sequence (and,
  // like one, is not part of the text). The engine takes it beside the four `stop` strings the service allows.
  if (body.suffix != null && body.suffix !== '') stops.push(body.suffix);
  if (stops.length > 0) p.stop_sequences = stops;
  // Same seed, prompt and settings → the same completion (OpenAI's "best effort" determinism, exact here).
  if (body.seed != null) p.random_seed = body.seed;
  // The engine knows one repetition penalty (≥ 1); positive presence/frequency penalties approximate it.
  const penalty = Math.max(body.presence_penalty ?? 0, body.frequency_penalty ?? 0);
  if (penalty > 0) p.repetition_penalty = 1 + penalty / 2;
  return p;
}

/** Candidate `j` of a prompt: with a seed, each candidate its own (seed + j), so `n` seeded choices still differ. */
function candidate(parameters: CanonicalParameters, j: number): CanonicalParameters {
  return parameters.random_seed === undefined || j === 0
    ? parameters
    : { ...parameters, random_seed: parameters.random_seed + j };
}

/** The prompts as text: strings as they are, token ids decoded; no prompt is generation from an empty document. */
async function promptsOf(engine: Engine, prompt: CompletionsBody['prompt']): Promise<string[] | CompletionsError> {
  if (prompt == null) return [''];
  if (typeof prompt === 'string') return [prompt];
  if (prompt.every((p) => typeof p === 'string')) return prompt as string[];
  const tokenizer = await engine.tokenizer();
  const lists = typeof prompt[0] === 'number' ? [prompt as number[]] : (prompt as number[][]);
  try {
    return lists.map((ids) => tokenizer.decode(ids));
  } catch {
    return invalidRequest('The prompt contains token ids outside the vocabulary', 'prompt');
  }
}

interface Prepared {
  body: CompletionsBody;
  prompts: string[];
  model: string;
  apiVersion: string | undefined;
}

/** Everything the service checks before it generates; answers the error itself and returns undefined on failure. */
async function prepare(ctx: RouteContext, dialect: Dialect): Promise<Prepared | undefined> {
  const problem = accessProblem(ctx, dialect, '2022-03-01-preview or 2024-10-21');
  if (problem) {
    sendCompletionsError(ctx, problem.status, problem.error);
    return undefined;
  }
  if (!('json' in ctx.request)) {
    sendUnparsableBody(ctx);
    return undefined;
  }
  const check = validateCompletionsBody(ctx.request.json, dialect);
  if (!check.ok) {
    sendCompletionsError(ctx, 400, check.error);
    return undefined;
  }
  const prompts = await promptsOf(ctx.server.engine, check.body.prompt);
  if (!Array.isArray(prompts)) {
    sendCompletionsError(ctx, 400, prompts);
    return undefined;
  }
  if (prompts.some(promptIsFiltered)) {
    sendCompletionsError(ctx, 400, {
      code: 'content_filter',
      message: PROMPT_FILTERED_MESSAGE,
      param: 'prompt',
      innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: contentFilterResults(true) },
    });
    return undefined;
  }
  const model = dialect === 'azure' ? ctx.params.deployment! : check.body.model!;
  return { body: check.body, prompts, model, apiVersion: ctx.request.query['api-version'] };
}

export function completionsRoute(dialect: Dialect): RouteHandler {
  return async (ctx: RouteContext) => {
    stampRequestId(ctx);
    const prepared = await prepare(ctx, dialect);
    if (!prepared) return;
    const stream = prepared.body.stream === true;
    // Faults hit only requests the service would have served, so a test's 429 never hides a 400.
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, completionsFaultWording(ctx, prepared.apiVersion))) return;
    if (stream) await streamCompletion(ctx, dialect, prepared, fault);
    else await wholeCompletion(ctx, prepared, fault);
  };
}

function choiceOptions(body: CompletionsBody, prompt: string): ChoiceOptions {
  return { echo: body.echo ? prompt : undefined, logprobs: body.logprobs ?? undefined };
}

/** best_of candidates per prompt, the best `n` by mean token logprob (ties keep generation order). */
async function wholeCompletion(
  ctx: RouteContext,
  { body, prompts, model }: Prepared,
  fault: Fault | undefined,
): Promise<void> {
  const n = body.n ?? 1;
  const candidates = Math.max(n, body.best_of ?? 1);
  const parameters = engineParameters(body);
  const engine = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
  const scoreInput = body.echo === true && body.logprobs != null;
  const choices: WireChoice[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  for (const [p, prompt] of prompts.entries()) {
    const summaries = await Promise.all(
      Array.from({ length: candidates }, (_, j) =>
        runToEnd(
          ctx.server.engine,
          // best_of ranks the candidates by their tokens' logprobs.
          {
            input: prompt,
            parameters: candidate(parameters, j),
            scoreInput,
            tokenScores: body.logprobs != null || candidates > n,
          },
          engine,
        ),
      ),
    );
    promptTokens += summaries[0]!.inputTokenCount;
    const built = summaries.map((s) => wholeChoice(s, choiceOptions(body, prompt)));
    completionTokens += built.reduce((acc, b) => acc + b.completionTokens, 0);
    const picked: BuiltChoice[] =
      candidates > n ? [...built].sort((a, b) => b.meanLogprob - a.meanLogprob).slice(0, n) : built;
    picked.forEach((b, j) => choices.push({ ...b.choice, index: p * n + j }));
  }
  if (ctx.signal.aborted) return;
  const answer: WireCompletion = {
    id: completionId(),
    object: 'text_completion',
    created: answerSeconds(),
    model,
    choices,
    usage: {
      completion_tokens: completionTokens,
      prompt_tokens: promptTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
  await sendAnswer(ctx, fault, answer);
}

/**
 * One message per step of each choice, choices taking turns as the services interleave them. The Azure path opens
 * with the prompt's content-filter annotation (`"choices": []`), as Azure does; `stream_options.include_usage` adds
 * a last `"choices": []` message with the usage.
 */
async function streamCompletion(
  ctx: RouteContext,
  dialect: Dialect,
  prepared: Prepared,
  fault: Fault | undefined,
): Promise<void> {
  const { body, prompts, model } = prepared;
  const n = body.n ?? 1;
  const parameters = engineParameters(body);
  const engine = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
  const choices: StreamedChoice[] = [];
  let promptTokens = 0;
  for (const [p, prompt] of prompts.entries()) {
    for (let j = 0; j < n; j++) {
      const generation = await ctx.server.engine.startGeneration(
        {
          input: prompt,
          parameters: candidate(parameters, j),
          scoreInput: body.echo === true && body.logprobs != null,
          tokenScores: body.logprobs != null,
        },
        engine,
      );
      if (j === 0) promptTokens += generation.inputTokenCount;
      choices.push(new StreamedChoice(generation, p * n + j, choiceOptions(body, prompt)));
    }
  }

  const events = new EventStream(ctx, fault, streamWording(dialect));
  events.open();
  const id = completionId();
  const created = answerSeconds();
  const send = (data: unknown) => events.send({ data: JSON.stringify(data) });
  const sendChoices = (list: WireChoice[]) => send({ id, object: 'text_completion', created, model, choices: list });

  if (dialect === 'azure') {
    const annotations = prompts.map((_, i) => ({
      prompt_index: i,
      content_filter_results: contentFilterResults(false),
    }));
    if (!(await send({ id: '', object: '', created: 0, model: '', prompt_filter_results: annotations, choices: [] })))
      return;
  }
  for (const choice of choices) {
    const opening = choice.opening();
    if (opening && !(await sendChoices([opening]))) return;
  }
  let active = choices;
  while (active.length > 0) {
    for (const choice of active) {
      const message = await choice.next();
      if (message && !(await sendChoices([message]))) return;
    }
    active = active.filter((c) => !c.done);
  }
  if (body.stream_options?.include_usage) {
    const completionTokens = choices.reduce((acc, c) => acc + c.completionTokens, 0);
    const usage = {
      completion_tokens: completionTokens,
      prompt_tokens: promptTokens,
      total_tokens: promptTokens + completionTokens,
    };
    if (!(await send({ id, object: 'text_completion', created, model, choices: [], usage }))) return;
  }
  if (!(await events.send({ data: '[DONE]' }))) return;
  await events.end();
}
