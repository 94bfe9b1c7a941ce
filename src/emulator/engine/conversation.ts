/**
 * Chat for the local model, protocol-neutral: every chat route of `serve` (watsonx, Azure OpenAI, OpenAI-compatible,
 * Aleph Alpha) lays its conversation out with `conversationPrompt`, maps its sampling fields with
 * `chatEngineParameters`, and runs the answers with `startChatTurn`, `interleave` and `finishAll`; the OpenAI-shaped wire words (finish
 * reasons, logprobs, usage, streamed choices) are profiles/server-common/openai-chat.ts. The answer is written from the
 * whole conversation, so a different history gives a different answer, and the same one at temperature 0 the same.
 */
import type { CanonicalParameters } from '../../contract/canonical.js';
import type { Engine } from './engine.js';
import type {
  ChatSampling,
  ConversationMessage,
  EngineOptions,
  Generation,
  GenerationStep,
  GenerationSummary,
} from './types.js';

export type { ConversationMessage } from './types.js';

export type { ChatSampling } from './types.js';

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

/**
 * Steps of several answers taking turns, one step each per round, as the services interleave choices in a stream.
 * An iterator written by hand rather than an async generator: a generator costs several promise turns per step,
 * and a stream has one step per token. Stopping early (`return()`) stops every answer that has not ended.
 */
export function interleave(generations: readonly Generation[]): AsyncIterableIterator<{
  index: number;
  step: GenerationStep;
}> {
  const iterators = generations.map((g) => g[Symbol.asyncIterator]());
  if (iterators.length === 1) return single(iterators[0]!);
  let active = iterators.map((it, index) => ({ it, index }));
  let still: typeof active = [];
  let at = 0;
  const next = async (): Promise<IteratorResult<{ index: number; step: GenerationStep }>> => {
    for (;;) {
      if (at >= active.length) {
        active = still;
        still = [];
        at = 0;
        if (active.length === 0) return { value: undefined, done: true };
      }
      const a = active[at++]!;
      const step = await a.it.next();
      if (step.done) continue;
      still.push(a);
      return { value: { index: a.index, step: step.value }, done: false };
    }
  };
  const self: AsyncIterableIterator<{ index: number; step: GenerationStep }> = {
    [Symbol.asyncIterator]: () => self,
    next,
    return: async () => {
      const open = [...active.slice(at), ...still];
      active = still = [];
      at = 0;
      await Promise.all(open.map((a) => a.it.return?.()));
      return { value: undefined, done: true };
    },
  };
  return self;
}

/** The common case, one answer: its steps as they are, each with index 0, no turn-taking. */
function single(it: AsyncIterator<GenerationStep>): AsyncIterableIterator<{ index: number; step: GenerationStep }> {
  const self: AsyncIterableIterator<{ index: number; step: GenerationStep }> = {
    [Symbol.asyncIterator]: () => self,
    next: () =>
      it
        .next()
        .then((r) => (r.done ? { value: undefined, done: true } : { value: { index: 0, step: r.value }, done: false })),
    return: async () => {
      await it.return?.();
      return { value: undefined, done: true };
    },
  };
  return self;
}

/** Runs every answer to its end (a whole, non-streamed answer). */
export async function finishAll(generations: readonly Generation[]): Promise<GenerationSummary[]> {
  for (const g of generations) for await (const step of g) void step;
  return generations.map((g) => g.summary());
}
