/**
 * `POST /chat/completions` of the local Aleph Alpha server (docs/protocols/chat.md): PhariaInference's OpenAI-shaped
 * chat route. The service's rules are kept — one system message at most and first, then user and assistant taking
 * turns from a user message to a user message; known models only — and its errors are its own `{"error", "code"}`.
 */
import * as z from 'zod';
import { finishAll, startChatTurn, type ChatSampling } from '../../../src/emulator/engine/conversation.js';
import {
  chatFinishReason,
  chatLogprob,
  chunkJson,
  chatUsage,
  streamChatChoices,
  streamStructuredChoices,
  structuredMessage,
  structuredUsage,
} from '../../server-common/openai-chat.js';
import { readMessages, readToolFields, type ToolFieldProblem } from '../../server-common/chat-tools.js';
import { conversationMessages, planTurn } from '../../../src/emulator/engine/structured-answer.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { alephAlphaFaultWording, sendAlephAlphaError, upperSnake } from './errors.js';
import { isKnownModel } from './models.js';
import { alephAlphaPrelude } from './prelude.js';
import { answerSeconds, answerUuid } from '../../../src/emulator/core/answer-clock.js';
import { merged } from '../../../src/contract/spread.js';
import { withReadThrough } from '../../../src/contract/lazy-property.js';

/** Chat-capable model names the reference's examples use, beside the luminous and `-local` names. */
export const CHAT_MODELS = ['llama-3.1-8b-instruct', 'llama-3.1-70b-instruct', 'llama-3.3-70b-instruct'] as const;

interface ChatBody extends ChatSampling {
  model: string;
  messages: Array<{
    role: 'system' | 'user' | 'assistant' | 'tool';
    content?: string | null;
    tool_calls?: unknown;
    tool_call_id?: string;
  }>;
  n?: number;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
}

type Schemas = Awaited<ReturnType<typeof buildSchema>>;
let schema: Promise<Schemas> | undefined;

async function buildSchema() {
  return z.strictObject({
    model: z.string().min(1),
    messages: z
      .array(
        z.strictObject({
          role: z.enum(['system', 'user', 'assistant', 'tool']),
          content: z.string().nullable().optional(),
          name: z.string().optional(),
          tool_calls: z.array(z.unknown()).optional(),
          tool_call_id: z.string().optional(),
        }),
      )
      .min(1),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    logit_bias: z.record(z.string(), z.number()).optional(),
    logprobs: z.boolean().optional(),
    top_logprobs: z.int().min(0).max(20).optional(),
    max_tokens: z.int().min(1).optional(),
    n: z.int().min(1).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    stream: z.boolean().optional(),
    stream_options: z.strictObject({ include_usage: z.boolean() }).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    tools: z.array(z.unknown()).optional(),
    tool_choice: z.unknown().optional(),
    response_format: z.unknown().optional(),
  });
}

/**
 * The reference's order rule, or undefined when the conversation keeps it: `tool` results belong to the assistant
 * turn that called for them, so they follow it and may end the conversation.
 */
function orderProblem(messages: ChatBody['messages']): string | undefined {
  const offset = messages[0]?.role === 'system' ? 1 : 0;
  const turns: Array<{ role: string; at: number }> = [];
  for (const [i, m] of messages.slice(offset).entries()) {
    if (m.role === 'tool') {
      const previous = turns.at(-1);
      if (previous?.role !== 'assistant' && previous?.role !== 'tool')
        return `'messages[${i + offset}]' is a tool message that follows no assistant message`;
      turns.push({ role: 'tool', at: i + offset });
      continue;
    }
    turns.push({ role: m.role, at: i + offset });
  }
  const spoken = turns.filter((t) => t.role !== 'tool');
  if (spoken.length === 0) return "'messages' must hold a user message";
  for (const [i, t] of spoken.entries()) {
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    if (t.role !== expected)
      return `'messages[${t.at}]' is a ${t.role} message where a ${expected} message must be: after an optional system message, user and assistant messages alternate`;
  }
  const last = turns.at(-1)!.role;
  if (last !== 'user' && last !== 'tool') return "the last of 'messages' must be a user or tool message";
  return undefined;
}

function toolWording(problem: ToolFieldProblem): string {
  return problem.kind === 'missing'
    ? `Invalid request: '${problem.param}' is required`
    : `Invalid request: '${problem.param}' ${problem.reason}`;
}

const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    data: JSON.stringify({
      error: 'The model stopped while generating; the answer is incomplete',
      code: 'INTERNAL_ERROR',
    }),
  }),
  malformedEvent: () => ({ data: '{"id":"chat-broken","object":"chat.completion.chunk","choices":[{"delta":' }),
};

export async function chatRoute(ctx: RouteContext): Promise<void> {
  const fail = (status: number, code: string, message: string) => sendAlephAlphaError(ctx.res, status, code, message);
  const prelude = alephAlphaPrelude(ctx, { nice: true });
  if (!prelude) return;
  schema ??= buildSchema();
  const parsed = (await schema).safeParse(prelude.json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = (issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path)
      .map(String)
      .join('.');
    return fail(
      400,
      'BAD_REQUEST',
      issue.code === 'unrecognized_keys'
        ? `Invalid request: unknown field '${field}'`
        : `Invalid request: '${field}': ${issue.message}`,
    );
  }
  const body = parsed.data as ChatBody;
  const problem = orderProblem(body.messages);
  if (problem) return fail(400, 'BAD_REQUEST', `Invalid request: ${problem}`);
  const history = readMessages(body.messages);
  if (!history.ok) return fail(400, 'BAD_REQUEST', toolWording(history.problem));
  const tools = await readToolFields(parsed.data);
  if (!tools.ok) return fail(400, 'BAD_REQUEST', toolWording(tools.problem));
  if (!isKnownModel(ctx.server.engine, body.model) && !(CHAT_MODELS as readonly string[]).includes(body.model)) {
    return fail(
      404,
      'UNKNOWN_MODEL',
      `Unknown model '${body.model}': this server chats with ${CHAT_MODELS.join(', ')}, the luminous models and any name ending in -local`,
    );
  }
  const stream = body.stream === true;
  const fault = takeFault(ctx, stream);
  if (await applyFault(fault, ctx, alephAlphaFaultWording(ctx.res))) return;

  const n = body.n ?? 1;
  const top = body.top_logprobs ?? 0;
  const wantLogprobs = body.logprobs === true;
  const engineOptions = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
  const envelope = {
    id: `chat-${answerUuid()}`,
    created: answerSeconds(),
    model: body.model,
    system_fingerprint: 'textgen-local',
  };
  const plan = await planTurn(
    ctx.server.engine,
    { messages: history.value, sampling: body, ...tools.value },
    merged(engineOptions, { n }),
  );
  if (plan.kind !== 'text') {
    if (!stream) {
      if (ctx.signal.aborted) return;
      const choices = plan.choices.map((c, index) => ({
        index,
        message: structuredMessage(c),
        logprobs: null,
        finish_reason: c.finish_reason,
      }));
      return sendAnswer(
        ctx,
        fault,
        merged(envelope, { object: 'chat.completion', choices, usage: structuredUsage(plan) }),
      );
    }
    const events = new EventStream(ctx, fault, streamWording);
    events.open();
    const chunk = chunkWriter(events, envelope);
    const usage = body.stream_options?.include_usage ? { promptTokens: plan.prompt_tokens } : undefined;
    if (!(await streamStructuredChoices(plan, chunk, { usage }))) return;
    if (!(await events.send({ data: '[DONE]' }))) return;
    return events.end();
  }
  const generations = await startChatTurn(
    ctx.server.engine,
    conversationMessages(history.value),
    body,
    n,
    engineOptions,
  );
  // Read when the usage is written, not now: an upstream (serve --upstream) says its count by then, and serve's
  // tokenizer need not count a prompt the upstream counts.
  const promptTokens = (): number => generations[0]!.inputTokenCount;

  if (!stream) {
    const summaries = await finishAll(generations);
    if (ctx.signal.aborted) return;
    const choices = summaries.map((s, index) => ({
      index,
      message: { role: 'assistant', content: s.generatedText },
      logprobs: wantLogprobs ? { content: s.generatedTokens.map((t) => chatLogprob(t, top)) } : null,
      finish_reason: chatFinishReason(s.stopReason),
    }));
    await sendAnswer(ctx, fault, {
      ...envelope,
      object: 'chat.completion',
      choices,
      usage: chatUsage(summaries, promptTokens()),
    });
    return;
  }

  const events = new EventStream(ctx, fault, streamWording);
  events.open();
  const chunk = chunkWriter(events, envelope);
  const shape = { logprobsTop: wantLogprobs ? top : undefined, emptyDeltas: false };
  const usage = body.stream_options?.include_usage
    ? withReadThrough({}, 'promptTokens', promptTokens) // lazy-property.ts: not a literal's getter
    : undefined;
  if (!(await streamChatChoices(generations, chunk, merged(shape, { usage })))) return;
  if (!(await events.send({ data: '[DONE]' }))) return;
  await events.end();
}

export const alephAlphaChatProtocol: ProtocolModule = {
  name: 'aleph-alpha-chat',
  prefixes: ['/chat/'],
  routes: [{ method: 'POST', pattern: '/chat/completions', handler: chatRoute }],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};

/** Writes one `chat.completion.chunk` event in this answer's envelope (the usage only where given). */
function chunkWriter(events: EventStream, envelope: Record<string, unknown>) {
  const chunkText = chunkJson(envelope);
  return (choices: unknown[], usage?: unknown) => events.send({ data: chunkText(choices, usage) });
}
