/**
 * The OpenAI-shaped chat wire words that several protocols' `serve` routes write (Azure OpenAI and OpenAI, Aleph
 * Alpha's chat route, watsonx's chat): the finish reason, a token's logprob, the usage, and the streamed
 * `chat.completion.chunk` choices. Server-side, shared by more than one protocol; the engine stays protocol-neutral.
 */
import type { StopReason } from '../../src/contract/canonical.js';
import { interleave } from '../../src/emulator/engine/conversation.js';
import type { EngineToken, Generation, GenerationSummary } from '../../src/emulator/engine/types.js';

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
