/**
 * The OpenAI-shaped chat wire words that several protocols' `serve` routes write (Azure OpenAI and OpenAI, Aleph
 * Alpha's chat route, watsonx's chat): the finish reason, a token's logprob, the usage, and the streamed
 * `chat.completion.chunk` choices. Server-side, shared by more than one protocol; the engine stays protocol-neutral.
 */
import type { StopReason } from '../../src/contract/canonical.js';
import type { ToolCall } from '../../src/contract/chat.js';
import { interleave } from '../../src/emulator/engine/conversation.js';
import { choicePieces, type StructuredChoice, type TurnPiece } from '../../src/emulator/engine/structured-answer.js';
import type { EngineToken, Generation, GenerationStep, GenerationSummary } from '../../src/emulator/engine/types.js';

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

/**
 * A stream's `chat.completion.chunk` events as JSON text: `{...envelope, object, choices, usage?}`, the envelope
 * serialised once per stream instead of spread and serialised again for every event (one event per token). The
 * same bytes as JSON.stringify of that object; `usage` undefined leaves the field out.
 */
export function chunkJson(envelope: Record<string, unknown>): (choices: unknown, usage?: unknown) => string {
  if ('choices' in envelope || 'usage' in envelope)
    return (choices, usage) =>
      JSON.stringify({
        ...envelope,
        object: 'chat.completion.chunk',
        choices,
        ...(usage !== undefined ? { usage } : {}),
      });
  const head = JSON.stringify({ ...envelope, object: 'chat.completion.chunk' });
  const prefix = `${head.slice(0, -1)},"choices":`;
  return (choices, usage) =>
    usage === undefined
      ? `${prefix}${JSON.stringify(choices)}}`
      : `${prefix}${JSON.stringify(choices)},"usage":${JSON.stringify(usage)}}`;
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
  chunk: (choices: unknown[], usage?: unknown) => boolean | Promise<boolean>,
  shape: ChatChunkShape,
): Promise<boolean> {
  for (let index = 0; index < generations.length; index++) {
    const sent = chunk([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    if (sent !== true && !(await sent)) return false;
  }
  // A choice literal with a spread of nothing is a runtime call per token; without extra fields, none is made.
  const extra =
    shape.choiceExtra !== undefined && Object.keys(shape.choiceExtra).length > 0 ? shape.choiceExtra : undefined;
  /** One step's chunks: its text (and logprob), then its finish reason when it is the choice's last. */
  const emit = (index: number, step: GenerationStep): boolean | Promise<boolean> => {
    let sent: boolean | Promise<boolean> = true;
    if (step.text !== '' || (shape.emptyDeltas && step.token)) {
      const logprobs =
        shape.logprobsTop !== undefined && step.token
          ? { content: [chatLogprob(step.token, shape.logprobsTop)], ...shape.logprobsExtra }
          : null;
      const choice =
        extra === undefined
          ? { index, delta: { content: step.text }, logprobs, finish_reason: null }
          : { index, delta: { content: step.text }, logprobs, finish_reason: null, ...extra };
      // Most chunks are written at once (a boolean, not a promise): awaited only when the socket is full.
      sent = chunk([choice]);
    }
    if (step.stopReason === undefined) return sent;
    const last = { index, delta: {}, logprobs: null, finish_reason: chatFinishReason(step.stopReason) };
    if (sent === true) return chunk([last]);
    if (sent === false) return false;
    return sent.then((ok) => ok && chunk([last]));
  };
  // One choice (the common case) is read straight from its generation: interleave() would add a promise per step.
  if (generations.length === 1) {
    for await (const step of generations[0]!) {
      const sent = emit(0, step);
      if (sent !== true && !(await sent)) return false;
    }
  } else
    for await (const { index, step } of interleave(generations)) {
      const sent = emit(index, step);
      if (sent !== true && !(await sent)) return false;
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

/** A structured choice's `message` in the OpenAI-shaped chat APIs: `content` null when it calls tools. */
export function structuredMessage(choice: StructuredChoice): {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
} {
  if (choice.tool_calls.length === 0) return { role: 'assistant', content: choice.content };
  return { role: 'assistant', content: null, tool_calls: choice.tool_calls };
}

/** The usage of a structured answer: the prompt once, the tokens of every choice. */
export function structuredUsage(plan: { choices: readonly StructuredChoice[]; prompt_tokens: number }) {
  const completion = plan.choices.reduce((sum, c) => sum + c.completion_tokens, 0);
  return {
    prompt_tokens: plan.prompt_tokens,
    completion_tokens: completion,
    total_tokens: plan.prompt_tokens + completion,
  };
}

/** One streamed piece as an OpenAI-shaped delta: content text, or one `tool_calls` entry. */
export function pieceDelta(piece: TurnPiece): Record<string, unknown> {
  if (piece.type === 'text') return { content: piece.text };
  const { index, id, name, arguments: args } = piece.delta;
  const call: Record<string, unknown> = { index };
  if (id !== undefined) Object.assign(call, { id, type: 'function' });
  call.function = name !== undefined ? { name, arguments: args ?? '' } : { arguments: args ?? '' };
  return { tool_calls: [call] };
}

/**
 * The choices of a streamed structured answer (JSON or tool calls) as the OpenAI-shaped chat APIs stream them: per
 * choice its role (content '' for JSON, null for calls), then its pieces (JSON fragments, or per call a first delta
 * with index, id, type, name and empty arguments, then argument fragments), then its finish reason; then the usage
 * when asked. `chunk` says whether the client is still there; so does the result.
 */
export async function streamStructuredChoices(
  plan: { choices: readonly StructuredChoice[]; prompt_tokens: number },
  chunk: (choices: unknown[], usage?: unknown) => boolean | Promise<boolean>,
  shape: Pick<ChatChunkShape, 'choiceExtra' | 'usage'>,
): Promise<boolean> {
  for (const [index, choice] of plan.choices.entries()) {
    const content = choice.tool_calls.length > 0 ? null : '';
    if (!(await chunk([{ index, delta: { role: 'assistant', content }, logprobs: null, finish_reason: null }])))
      return false;
    for (const piece of choicePieces(choice)) {
      const delta = pieceDelta(piece);
      if (!(await chunk([{ index, delta, logprobs: null, finish_reason: null, ...shape.choiceExtra }]))) return false;
    }
    if (!(await chunk([{ index, delta: {}, logprobs: null, finish_reason: choice.finish_reason }]))) return false;
  }
  if (shape.usage === undefined) return true;
  return chunk([], structuredUsage(plan));
}
