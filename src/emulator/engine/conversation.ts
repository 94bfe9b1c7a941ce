/**
 * Chat for the local model, protocol-neutral: every chat route of `serve` (watsonx, Azure OpenAI, OpenAI-compatible,
 * Aleph Alpha) lays its conversation out with `conversationPrompt`, maps its sampling fields with
 * `chatEngineParameters`, and words the engine's stop reason with `chatFinishReason`. The answer is written from the
 * whole conversation, so a different history gives a different answer, and the same one at temperature 0 the same.
 */
import type { CanonicalParameters, StopReason } from '../../contract/canonical.js';
import type { Engine } from './engine.js';
import type {
  ConversationMessage,
  EngineOptions,
  EngineToken,
  Generation,
  GenerationStep,
  GenerationSummary,
} from './types.js';

export type { ConversationMessage } from './types.js';

/** The sampling fields the chat APIs share (OpenAI's names). */
export interface ChatSampling {
  max_tokens?: number | null | undefined;
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  stop?: string | string[] | null | undefined;
  seed?: number | null | undefined;
  frequency_penalty?: number | null | undefined;
  presence_penalty?: number | null | undefined;
  time_limit?: number | null | undefined;
  logprobs?: boolean | null | undefined;
  top_logprobs?: number | null | undefined;
}

/** How long an answer may get when the request does not say. */
export const DEFAULT_CHAT_MAX_TOKENS = 100;

const LABELS: Record<string, string> = { system: 'System', user: 'User', assistant: 'Assistant' };

/** The conversation as a transcript that ends where the assistant's next turn begins. */
export function conversationPrompt(messages: readonly ConversationMessage[]): string {
  const turns = messages.map((m) => `${LABELS[m.role] ?? m.role}: ${m.content}`);
  return `${turns.join('\n\n')}\n\nAssistant:\n`;
}

/** `choice` > 0 of a seeded request gets its own seed, so `n` answers differ as they do on the services. */
export function chatEngineParameters(s: ChatSampling, choice = 0): CanonicalParameters {
  const temperature = s.temperature ?? 1;
  const p: CanonicalParameters = {
    max_new_tokens: s.max_tokens ?? DEFAULT_CHAT_MAX_TOKENS,
    include_stop_sequence: false,
  };
  if (temperature === 0) p.decoding_method = 'greedy';
  else {
    p.decoding_method = 'sample';
    p.temperature = temperature;
    if (s.top_p != null && s.top_p > 0) p.top_p = s.top_p;
    if (s.seed != null) p.random_seed = Math.max(1, s.seed + choice);
  }
  const stops = s.stop == null ? [] : typeof s.stop === 'string' ? [s.stop] : s.stop;
  if (stops.length > 0) p.stop_sequences = stops;
  // The engine knows one repetition penalty (≥ 1); positive presence/frequency penalties approximate it.
  const penalty = Math.max(s.presence_penalty ?? 0, s.frequency_penalty ?? 0);
  if (penalty > 0) p.repetition_penalty = 1 + penalty / 2;
  if (s.time_limit != null) p.time_limit = s.time_limit;
  if (s.logprobs === true || (s.top_logprobs ?? 0) > 0) {
    p.return_options = { generated_tokens: true, token_logprobs: true, top_n_tokens: Math.min(5, s.top_logprobs ?? 0) };
  }
  return p;
}

/** The engine's stop reason in the chat APIs' words. */
export function chatFinishReason(reason: StopReason): string {
  switch (reason) {
    case 'max_tokens':
    case 'token_limit':
      return 'length';
    case 'eos_token':
    case 'stop_sequence':
      return 'stop';
    default:
      return reason;
  }
}

export interface ChatLogprobEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

/** One generated token as OpenAI's `ChatCompletionTokenLogprob`. */
export function chatLogprob(token: EngineToken, top: number): ChatLogprobEntry {
  const bytes = (text: string) => [...Buffer.from(text, 'utf8')];
  return {
    token: token.text,
    logprob: token.logprob ?? 0,
    bytes: bytes(token.text),
    top_logprobs: (token.topTokens ?? [])
      .slice(0, top)
      .map((t) => ({ token: t.text, logprob: t.logprob, bytes: bytes(t.text) })),
  };
}

/** The `n` answers of one chat request, each from the same prompt (the engine's chat template). */
export async function startChatTurn(
  engine: Engine,
  messages: readonly ConversationMessage[],
  sampling: ChatSampling,
  n: number,
  options: EngineOptions,
): Promise<Generation[]> {
  const generations: Generation[] = [];
  for (let i = 0; i < n; i++)
    generations.push(
      await engine.startGeneration({ input: '', messages, parameters: chatEngineParameters(sampling, i) }, options),
    );
  return generations;
}

/** Steps of several answers taking turns, one step each per round, as the services interleave choices in a stream. */
export async function* interleave(
  generations: readonly Generation[],
): AsyncGenerator<{ index: number; step: GenerationStep }> {
  const iterators = generations.map((g) => g[Symbol.asyncIterator]());
  let active = iterators.map((it, index) => ({ it, index }));
  while (active.length > 0) {
    const still: typeof active = [];
    for (const a of active) {
      const next = await a.it.next();
      if (next.done) continue;
      still.push(a);
      yield { index: a.index, step: next.value };
    }
    active = still;
  }
}

/** Runs every answer to its end (a whole, non-streamed answer). */
export async function finishAll(generations: readonly Generation[]): Promise<GenerationSummary[]> {
  for (const g of generations) for await (const step of g) void step;
  return generations.map((g) => g.summary());
}

/** The `usage` of a chat answer in the chat APIs' words: the prompt once, the tokens of every choice. */
export function chatUsage(summaries: readonly GenerationSummary[], promptTokens: number) {
  const completion = summaries.reduce((sum, s) => sum + s.generatedTokenCount, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
}

/** How a server's `chat.completion.chunk` choices differ from the plain OpenAI shape. */
export interface ChatChunkShape {
  /** Per-token logprobs with this many alternatives; undefined when the request did not ask for them. */
  logprobsTop: number | undefined;
  /** Fields added to each logprobs object (OpenAI: `refusal: null`). */
  logprobsExtra?: Record<string, unknown>;
  /** Fields added to each content delta's choice (Azure: its content-filter results). */
  choiceExtra?: Record<string, unknown>;
  /** A step with a token but no text yet (part of a character) still gets its delta, as OpenAI sends one. */
  emptyDeltas: boolean;
  /** `stream_options.include_usage`: a last chunk with no choices and the usage (the prompt's tokens given here). */
  usage?: { promptTokens: number } | undefined;
}

/**
 * The choices of a streamed chat answer, one chunk at a time, as the OpenAI-shaped chat APIs stream them: each
 * choice's role, then the steps of all choices taking turns (text, and its logprob when asked), then each choice's
 * finish reason, and the usage when asked. `chunk` sends one chunk (its choices, and the usage on the last) and says
 * whether the client is still there; so does the result.
 */
export async function streamChatChoices(
  generations: readonly Generation[],
  chunk: (choices: unknown[], usage?: unknown) => Promise<boolean>,
  shape: ChatChunkShape,
): Promise<boolean> {
  for (let index = 0; index < generations.length; index++) {
    if (!(await chunk([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])))
      return false;
  }
  for await (const { index, step } of interleave(generations)) {
    if (step.text !== '' || (shape.emptyDeltas && step.token)) {
      const logprobs =
        shape.logprobsTop !== undefined && step.token
          ? { content: [chatLogprob(step.token, shape.logprobsTop)], ...shape.logprobsExtra }
          : null;
      const choice = { index, delta: { content: step.text }, logprobs, finish_reason: null, ...shape.choiceExtra };
      if (!(await chunk([choice]))) return false;
    }
    if (step.stopReason === undefined) continue;
    const last = { index, delta: {}, logprobs: null, finish_reason: chatFinishReason(step.stopReason) };
    if (!(await chunk([last]))) return false;
  }
  if (shape.usage === undefined) return true;
  return chunk(
    [],
    chatUsage(
      generations.map((g) => g.summary()),
      shape.usage.promptTokens,
    ),
  );
}
