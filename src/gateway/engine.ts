/**
 * The upstream engine of `serve --upstream PROFILE`: the Engine (src/emulator/engine/engine.ts) every route of a
 * front protocol calls, answered by another service through its profile's provider adapter and the call pipeline
 * (src/call/), so the front protocol's routes keep their own validation, wording and stream framing. What the routes
 * hand the engine is canonical (docs/design.md §3); this module maps it to the upstream's operation:
 *
 * - a prompt (`input`) → the upstream's generation; `messages` → its chat; a tool or response-format turn
 *   (`answerTurn`) → one whole chat call with the tools, whose tool calls and JSON the route then writes;
 * - every upstream event becomes one GenerationStep as it arrives (a queue, no buffering), and a last step with the
 *   stop reason; the summary holds the upstream's token counts when it gave them, serve's tokenizer's otherwise;
 * - `embed` → the upstream's embeddings of the text the route's token ids spell;
 * - a parameter the upstream cannot take is a 400 naming it (the CLI's own support checks: src/generation/support.ts,
 *   src/chat/support.ts), or, with `--ignore-unsupported`, dropped and named in the `X-Textgen-Ignored` header;
 * - every failure becomes an EngineFailure (failure.ts), which the server words in the front protocol.
 */
import type { CanonicalParameters, CanonicalRequest, GenerateResult, StopReason } from '../contract/canonical.js';
import type {
  ChatChunk,
  ChatMessage,
  ChatParameters,
  ChatRequest,
  ChatResult,
  FinishReason,
} from '../contract/chat.js';
import type { ChatOperation, GenerateOperation, GenerateTarget, ChatTarget } from '../contract/adapter.js';
import type { HttpResponse } from '../contract/http.js';
import type { Engine, EmbeddingRequest, EmbeddingResult } from '../emulator/engine/engine.js';
import { EngineFailure } from '../emulator/engine/failure.js';
import type { Tokenizer } from '../emulator/engine/tokenizer.js';
import type {
  ConversationMessage,
  EngineOptions,
  EngineRequest,
  Generation,
  GenerationStep,
  GenerationSummary,
  StructuredChoice,
  TurnPlan,
  TurnRequest,
} from '../emulator/engine/types.js';
import { withReadThrough } from '../contract/lazy-property.js';
import { failureFromAnswer, failureFromError } from './failure.js';
import { StepQueue } from './step-queue.js';
import type { Upstream } from './upstream.js';

/** The header that names what `--ignore-unsupported` dropped from a request. */
export const IGNORED_HEADER = 'x-textgen-ignored';

/** Large: the upstream enforces its own window, and answers in its own words when a prompt does not fit. */
const UPSTREAM_CONTEXT_WINDOW = 1_048_576;

export function upstreamEngine(up: Upstream): Engine {
  let tokenizer: Promise<Tokenizer> | undefined;
  const tokenizerOnce = (): Promise<Tokenizer> =>
    (tokenizer ??= import('../emulator/engine/tokenizer.js').then((m) => m.loadTokenizer()));
  const engine: Engine = {
    kind: 'upstream',
    modelName: up.profile.defaults.model,
    contextWindow: UPSTREAM_CONTEXT_WINDOW,
    embeddingDimensions: undefined,
    tokenizer: tokenizerOnce,
    startGeneration: (request, options = {}) => guarded(up, () => startGeneration(up, request, options, tokenizerOnce)),
    embed: (request) => guarded(up, () => embed(up, request, tokenizerOnce)),
    answerTurn: (request, options) => guarded(up, () => answerTurn(up, request, options)),
    tokenizeText: (text, options) => guarded(up, () => tokenizeText(up, text, options)),
    // The upstream's connections belong to serve's transport, which serve closes.
    close: async () => {},
  };
  return engine;
}

async function guarded<T>(up: Upstream, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw failureFromError(error, up.profile.name);
  }
}

/** Names what was dropped on the front answer (before the route writes its headers). */
function noteIgnored(options: EngineOptions, notices: readonly string[], responseOf: ResponseLookup): void {
  if (notices.length === 0) return;
  const res = responseOf(options.signal);
  if (res && !res.headersSent) res.setHeader(IGNORED_HEADER, notices.join('; '));
}

type ResponseLookup = (signal: AbortSignal | undefined) => import('node:http').ServerResponse | undefined;

async function responses(): Promise<ResponseLookup> {
  return (await import('../emulator/core/responses.js')).responseOf;
}

/** Sends with the upstream profile's credentials; a non-2xx answer is the upstream's failure. */
async function send(
  up: Upstream,
  op: GenerateOperation | ChatOperation,
  spec: import('../contract/http.js').HttpRequestSpec,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const { sendAuthorized } = await import('../call/send.js');
  const res = await sendAuthorized(up.ctx, up.profile, op, spec, signal);
  if (res.status < 200 || res.status >= 300) throw await failureFromAnswer(op, res, up.profile.name);
  return res;
}

/** The chat sampling a route's canonical parameters stand for (chatEngineParameters in reverse). */
function chatParameters(p: CanonicalParameters | undefined): ChatParameters {
  const out: ChatParameters = {};
  if (!p) return out;
  if (p.max_new_tokens !== undefined) out.max_tokens = p.max_new_tokens;
  if (p.decoding_method === 'greedy') out.temperature = 0;
  else if (p.temperature !== undefined) out.temperature = p.temperature;
  if (p.top_p !== undefined) out.top_p = p.top_p;
  if (p.random_seed !== undefined) out.seed = p.random_seed;
  if (p.stop_sequences !== undefined && p.stop_sequences.length > 0) out.stop = p.stop_sequences;
  if (p.time_limit !== undefined) out.time_limit = p.time_limit;
  if (p.repetition_penalty !== undefined && p.repetition_penalty > 1)
    out.presence_penalty = (p.repetition_penalty - 1) * 2;
  return out;
}

function chatMessage(m: ConversationMessage): ChatMessage {
  const role = m.role === 'system' || m.role === 'assistant' ? m.role : 'user';
  return { role, content: m.content };
}

/** A chat finish reason in the canonical stop reason's words (what every route maps back to its own). */
function stopReasonOf(finish: FinishReason | undefined): StopReason {
  switch (finish) {
    case 'stop':
    case 'tool_calls':
      return 'eos_token';
    case 'length':
      return 'max_tokens';
    case undefined:
      return 'eos_token';
    default:
      return finish;
  }
}

interface Piece {
  text: string;
  stopReason?: StopReason | undefined;
  inputTokens?: number | undefined;
  generatedTokens?: number | undefined;
}

function generatePiece(chunk: GenerateResult): Piece {
  const item = chunk.results[0];
  if (!item) return { text: '' };
  return {
    text: item.generated_text,
    stopReason: item.stop_reason === 'not_finished' ? undefined : item.stop_reason,
    inputTokens: item.input_token_count,
    generatedTokens: item.generated_token_count,
  };
}

function chatPiece(chunk: ChatChunk | ChatResult): Piece {
  const choice = chunk.choices.find((c) => c.index === 0) ?? chunk.choices[0];
  const text = choice === undefined ? '' : 'message' in choice ? choice.message.content : choice.content;
  const finish = choice?.finish_reason;
  return {
    text,
    stopReason: finish === undefined || finish === 'not_finished' ? undefined : stopReasonOf(finish),
    inputTokens: chunk.usage?.prompt_tokens,
    generatedTokens: chunk.usage?.completion_tokens,
  };
}

async function startGeneration(
  up: Upstream,
  request: EngineRequest,
  options: EngineOptions,
  tokenizerOf: () => Promise<Tokenizer>,
): Promise<Generation> {
  const { profile, adapter } = up;
  const notices: string[] = [];
  const warn = (m: string) => notices.push(m);
  const support = { ignoreUnsupported: up.ignoreUnsupported, warn };
  const model = profile.defaults.model;
  // The front request's end ends the upstream call; so does the route's stopping (guards.cancel() below).
  const stops = options.signal ? [options.signal] : [];
  const tokenizer = await tokenizerOf();
  let op: GenerateOperation | ChatOperation;
  let spec: import('../contract/http.js').HttpRequestSpec;
  let inputText: string;
  let toPiece: (chunk: unknown) => Piece;
  let decoder: (
    event: import('../contract/http.js').SseEvent,
  ) => import('../contract/adapter.js').StreamStepOf<unknown>;
  let parse: (json: unknown) => unknown;
  let statesStop: boolean;
  let isChat = false;
  const { conversationPrompt } = await import('../emulator/engine/conversation.js');
  if (request.messages !== undefined && adapter.chat) {
    const chat = await adapter.chat(profile.chatApi);
    refuseUnavailable(chat, up);
    const { checkChatSupport } = await import('../chat/support.js');
    const parameters = checkChatSupport(chatParameters(request.parameters), chat.capabilities, adapter.kind, support);
    const chatRequest: ChatRequest = { messages: request.messages.map(chatMessage), parameters };
    const target: ChatTarget = model !== undefined ? { model, stream: true } : { stream: true };
    spec = chat.build(chatRequest, target, profile);
    op = chat;
    inputText = conversationPrompt(request.messages);
    toPiece = (c) => chatPiece(c as ChatChunk | ChatResult);
    decoder = chat.decoder(chatRequest, target);
    parse = (json) => chat.parse(json, chatRequest, target);
    statesStop = true;
    isChat = true;
  } else {
    const generate = await adapter.generate();
    const target: GenerateTarget = {
      ...(model !== undefined ? { model } : {}),
      stream: generate.capabilities.streaming === 'native' || generate.profileStreams?.(profile) === true,
    };
    const { checkSupport } = await import('../generation/support.js');
    // An upstream without a chat API (Open Inference) continues the conversation laid out as a transcript.
    const prompt = request.messages === undefined ? request.input : conversationPrompt(request.messages);
    const input: CanonicalRequest = {
      input: prompt,
      ...(request.parameters ? { parameters: routeDefaultsDropped(request.parameters, generate) } : {}),
      ...(request.moderations ? { moderations: request.moderations } : {}),
    };
    const checked = checkSupport(input, generate, profile, target, support).request;
    spec = generate.build(checked, target, profile);
    op = generate;
    inputText = input.input!;
    toPiece = (c) => generatePiece(c as GenerateResult);
    decoder = generate.decoder(checked, target);
    parse = (json) => generate.parse(json, checked, target);
    statesStop = generate.capabilities.statesStopReason;
  }
  noteIgnored(options, notices, await responses());

  const { CallGuards } = await import('../call/guards.js');
  const guards = new CallGuards({ user: stops, silenceMs: profile.timeoutMs });
  guards.start();
  let res: HttpResponse;
  try {
    res = await send(up, op, spec, guards.signal);
  } catch (error) {
    guards.dispose();
    throw error;
  }

  // The route's steps, made as the upstream's pieces arrive (each pull is one promise, not a piece's then a step's).
  const queue = new StepQueue<GenerationStep>();
  let text = '';
  let stopReason: StopReason | undefined;
  let inputTokens: number | undefined;
  let generatedTokens: number | undefined;
  let steps = 0;
  let finished = false;
  const take = (piece: Piece): void => {
    text += piece.text;
    if (piece.inputTokens !== undefined) inputTokens = piece.inputTokens;
    if (piece.generatedTokens !== undefined) generatedTokens = piece.generatedTokens;
    if (piece.stopReason !== undefined) stopReason = piece.stopReason;
    if (piece.text !== '') queue.push({ token: undefined, text: piece.text, generatedTokenCount: ++steps });
  };
  const { isEventStream } = await import('../call/stream.js');
  const who = { kind: adapter.kind, secrets: profile.secrets };
  const reading = isEventStream(res)
    ? (async () => {
        const { readStream } = await import('../call/stream.js');
        await readStream<unknown>({
          kind: who.kind,
          secrets: who.secrets,
          res,
          decode: decoder,
          guards,
          stopReason: isChat ? 'always' : statesStop ? 'without-end-marker' : 'never',
          what: isChat ? 'answer' : 'generation',
          onChunk: (chunk) => take(toPiece(chunk)),
          unfinished: () => stopReason === undefined,
          stopped: () => {},
        });
      })()
    : (async () => {
        const { readWhole } = await import('../call/answer.js');
        take(toPiece((await readWhole(res, who, parse)).result));
      })();
  // Counted once, and only when the upstream did not say (a route reads it before the upstream's usage comes).
  let counted: number | undefined;
  const localInputCount = (): number => (counted ??= tokenizer.encode(inputText).length);
  const generatedCount = (): number => generatedTokens ?? tokenizer.encode(text).length;
  reading.then(
    () => {
      guards.dispose();
      // The upstream has said all: the last step states why it stopped, with the count it gave (or ours).
      finished = true;
      queue.push({
        token: undefined,
        text: '',
        generatedTokenCount: generatedCount(),
        stopReason: stopReason ?? 'eos_token',
      });
      queue.end();
    },
    (error: unknown) => {
      guards.dispose();
      queue.fail(failureFromError(error, profile.name));
    },
  );

  const summary = (): GenerationSummary => {
    if (!finished) throw new Error('the generation has not finished');
    return {
      generatedText: text,
      generatedTokenCount: generatedCount(),
      generatedTokens: [],
      stopReason: stopReason ?? 'eos_token',
      inputText,
      inputTokenCount: inputTokens ?? localInputCount(),
      inputTokens: [],
      seed: request.parameters?.random_seed,
      moderations: undefined,
    };
  };
  // Written by hand rather than as an async generator (a generator costs several promise turns per step, one step
  // per upstream event); a route that stops reading (its client went away, a filter cut the answer) stops the
  // upstream call too.
  const steps$ = queue[Symbol.asyncIterator]();
  const iterable: AsyncIterator<GenerationStep> = {
    next: () => steps$.next(),
    return: () => {
      if (!finished) guards.cancel();
      queue.drop();
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  // The count reads through (the upstream says it late, if at all); withReadThrough, not a literal's getter, which
  // would pin this whole call's state until a full GC (lazy-property.ts).
  return withReadThrough(
    {
      [Symbol.asyncIterator]: () => iterable,
      inputText,
      inputTokens: [],
      seed: request.parameters?.random_seed,
      summary,
    },
    'inputTokenCount',
    () => inputTokens ?? localInputCount(),
  );
}

/**
 * Routes set `include_stop_sequence: false` on every chat turn and some generations (the engines' default is to keep
 * the sequence): it is their default, not the client's ask, so it is not worth a 400 from an upstream that cannot say
 * it (Open Inference takes it only as a listed extra).
 */
function routeDefaultsDropped(parameters: CanonicalParameters, op: GenerateOperation): CanonicalParameters {
  if (parameters.include_stop_sequence !== false || op.capabilities.parameters.include_stop_sequence === 'native')
    return parameters;
  const { include_stop_sequence: _dropped, ...rest } = parameters;
  return rest;
}

async function embed(
  up: Upstream,
  request: EmbeddingRequest,
  tokenizerOf: () => Promise<Tokenizer>,
): Promise<EmbeddingResult> {
  const { profile, adapter } = up;
  if (!adapter.embed) return { ok: false, reason: `upstream ${profile.name} (${adapter.kind}) has no embeddings` };
  const op = await adapter.embed();
  const text = (await tokenizerOf()).decode(request.ids);
  const model = profile.defaults.model ?? '';
  // One vector per text: where the protocol also has per-layer embeddings (Aleph Alpha), ask for the semantic one.
  const settings: import('../contract/adapter.js').EmbedSettings = op.settings.includes('representation')
    ? { representation: 'symmetric' }
    : {};
  const embedRequest = { model, inputs: [text], settings };
  const spec = op.buildRequest([text], embedRequest, profile);
  const { requestJson } = await import('../call/send.js');
  const { calleeFor } = await import('../call/callee.js');
  const callee = await calleeFor(profile.provider);
  let answer: Awaited<ReturnType<typeof requestJson>>;
  try {
    answer = await requestJson(up.ctx, profile, callee, spec);
  } catch (error) {
    throw failureFromError(error, profile.name);
  }
  const vector = firstVector(op.parseResponse(answer.json, [text], embedRequest).embeddings[0]?.embedding);
  if (vector === undefined) return { ok: false, reason: `upstream ${profile.name} sent no vector` };
  return { ok: true, vector };
}

/** A profile whose server has no chat route (an Aleph Alpha profile without `chat: true`) says why. */
function refuseUnavailable(chat: ChatOperation, up: Upstream): void {
  const why = chat.unavailable?.(up.profile);
  if (why) throw new EngineFailure(400, 'unsupported', `upstream ${up.profile.name}: ${why.message}`);
}

/** The upstream's own count, when its protocol has a tokenization API; undefined: serve's tokenizer counts. */
async function tokenizeText(
  up: Upstream,
  text: string,
  options: { tokens: boolean; signal?: AbortSignal | undefined },
): Promise<{ count: number; tokens?: string[] | undefined } | undefined> {
  const { profile, adapter } = up;
  if (!adapter.tokenize || options.signal?.aborted) return undefined;
  const op = await adapter.tokenize();
  const request = { model: profile.defaults.model ?? '', text, tokens: options.tokens, ids: false };
  const spec = op.buildTokenizeRequest(request, profile);
  const { requestJson } = await import('../call/send.js');
  const { calleeFor } = await import('../call/callee.js');
  const answer = await requestJson(up.ctx, profile, await calleeFor(profile.provider), spec);
  const result = op.parseTokenizeResponse(answer.json, request);
  return { count: result.token_count, tokens: result.tokens };
}

/** A vector, or the first one of a layer → pooling → vector map. */
function firstVector(embedding: unknown): number[] | undefined {
  if (Array.isArray(embedding)) return embedding as number[];
  if (embedding === null || typeof embedding !== 'object') return undefined;
  for (const inner of Object.values(embedding)) {
    const found = firstVector(inner);
    if (found) return found;
  }
  return undefined;
}

/** A tool or response-format turn, answered whole by the upstream's chat. */
async function answerTurn(
  up: Upstream,
  request: TurnRequest,
  options: EngineOptions & { n?: number | undefined },
): Promise<TurnPlan> {
  const { profile, adapter } = up;
  if (!adapter.chat)
    throw new EngineFailure(400, 'unsupported', `upstream ${profile.name} (${adapter.kind}) has no chat API`);
  const chat = await adapter.chat(profile.chatApi);
  refuseUnavailable(chat, up);
  const notices: string[] = [];
  const support = { ignoreUnsupported: up.ignoreUnsupported, warn: (m: string) => notices.push(m) };
  const { checkChatSupport, checkChatFeatures } = await import('../chat/support.js');
  const s = request.sampling;
  const wanted: ChatParameters = {};
  if (s.max_tokens != null) wanted.max_tokens = s.max_tokens;
  if (s.temperature != null) wanted.temperature = s.temperature;
  if (s.top_p != null) wanted.top_p = s.top_p;
  if (s.stop != null) wanted.stop = typeof s.stop === 'string' ? [s.stop] : s.stop;
  if (s.seed != null) wanted.seed = s.seed;
  if (s.frequency_penalty != null) wanted.frequency_penalty = s.frequency_penalty;
  if (s.presence_penalty != null) wanted.presence_penalty = s.presence_penalty;
  if (s.time_limit != null) wanted.time_limit = s.time_limit;
  if ((options.n ?? 1) > 1) wanted.n = options.n;
  const parameters = checkChatSupport(wanted, chat.capabilities, adapter.kind, support);
  const features = checkChatFeatures(
    {
      tools: request.tools ? [...request.tools] : undefined,
      tool_choice: request.tool_choice,
      parallel_tool_calls: request.parallel_tool_calls,
      response_format: request.response_format,
    },
    chat.capabilities,
    adapter.kind,
    support,
  );
  noteIgnored(options, notices, await responses());
  const chatRequest: ChatRequest = {
    messages: request.messages.map((m) => ({
      role: m.role === 'system' || m.role === 'assistant' || m.role === 'tool' ? m.role : 'user',
      content: m.content ?? '',
      ...(m.tool_calls && m.tool_calls.length > 0 ? { tool_calls: [...m.tool_calls] } : {}),
      ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
    })),
    parameters,
    ...Object.fromEntries(Object.entries(features).filter(([, v]) => v !== undefined)),
  };
  const model = profile.defaults.model;
  const target: ChatTarget = { ...(model !== undefined ? { model } : {}), stream: false };
  const spec = chat.build(chatRequest, target, profile);
  const res = await send(up, chat, spec, options.signal ?? new AbortController().signal);
  const { readWhole } = await import('../call/answer.js');
  const { result } = await readWhole(res, { kind: adapter.kind, secrets: profile.secrets }, (json) =>
    chat.parse(json, chatRequest, target),
  );
  const choices: StructuredChoice[] = result.choices.map((c) => ({
    content: c.message.content,
    tool_calls: c.message.tool_calls ?? [],
    finish_reason:
      (c.message.tool_calls ?? []).length > 0 ? 'tool_calls' : c.finish_reason === 'length' ? 'length' : 'stop',
    completion_tokens: result.usage?.completion_tokens ?? 0,
  }));
  const calls = choices.some((c) => c.tool_calls.length > 0);
  return { kind: calls ? 'tool_calls' : 'json', choices, prompt_tokens: result.usage?.prompt_tokens ?? 0 };
}
