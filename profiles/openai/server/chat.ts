/**
 * The chat routes of the local completions server (docs/protocols/chat.md): Azure's
 * `/openai/deployments/{deployment}/chat/completions?api-version=` and the OpenAI-compatible `/v1/chat/completions`.
 * Checks in the services' order (credentials, api-version, body, content filter), then the engine's answer written
 * from the whole conversation: one `chat.completion`, or `chat.completion.chunk` events ending with `data: [DONE]`.
 */
import * as z from 'zod';
import { finishAll, startChatTurn, type ChatSampling } from '../../../src/emulator/engine/conversation.js';
import {
  conversationMessages,
  planTurn,
  type TurnMessage,
  type TurnPlan,
} from '../../../src/emulator/engine/structured-answer.js';
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
import { openAiWording, readMessages, readToolFields, type ToolFields } from '../../server-common/chat-tools.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { accessProblem, apiVersionOf } from './access.js';
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
import { answerHex, answerSeconds } from '../../../src/emulator/core/answer-clock.js';
import { merged } from '../../../src/contract/spread.js';
import { withReadThrough } from '../../../src/contract/lazy-property.js';

interface ChatBody extends ChatSampling {
  model?: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown }>;
  n?: number | null;
  max_completion_tokens?: number | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
}

/** The first api-version with the chat route; older versions answer 404 for it, as Azure does. */
const FIRST_CHAT_VERSION = '2023-03-15';

type Schemas = Awaited<ReturnType<typeof buildSchema>>;
let schemas: Promise<Schemas> | undefined;

/** openai 6's ChatCompletionCreateParams, the fields a compatible server takes; nulls allowed as OpenAI allows them. */
async function buildSchema() {
  const n = <T extends import('zod').ZodType>(s: T) => s.nullable().optional();
  const message = z.looseObject({
    role: z.enum(['system', 'user', 'assistant', 'developer', 'tool']),
    content: z
      .union([z.string(), z.array(z.unknown())])
      .nullable()
      .optional(),
  });
  return z.strictObject({
    model: z.string().min(1).optional(),
    messages: z.array(message).min(1),
    frequency_penalty: n(z.number().min(-2).max(2)),
    logit_bias: n(z.record(z.string(), z.number())),
    logprobs: n(z.boolean()),
    top_logprobs: n(z.int().min(0).max(20)),
    max_tokens: n(z.int().min(1)),
    max_completion_tokens: n(z.int().min(1)),
    n: n(z.int().min(1).max(128)),
    presence_penalty: n(z.number().min(-2).max(2)),
    response_format: n(z.unknown()),
    seed: n(z.int()),
    stop: n(z.union([z.string(), z.array(z.string()).max(4)])),
    stream: n(z.boolean()),
    stream_options: n(z.strictObject({ include_usage: z.boolean().optional() })),
    temperature: n(z.number().min(0).max(2)),
    top_p: n(z.number().min(0).max(1)),
    user: z.string().optional(),
    tools: n(z.array(z.unknown())),
    tool_choice: n(z.unknown()),
    parallel_tool_calls: n(z.boolean()),
  });
}

/** The first problem, in OpenAI's wording ("… - 'temperature'"), with `param` naming the field. */
async function validate(
  json: unknown,
  dialect: Dialect,
): Promise<
  { ok: true; body: ChatBody; messages: TurnMessage[]; tools: ToolFields } | { ok: false; error: CompletionsError }
> {
  schemas ??= buildSchema();
  const parsed = (await schemas).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    const param = path.map(String).join('.') || null;
    const message =
      issue.code === 'unrecognized_keys'
        ? `Unrecognized request argument supplied: ${param}`
        : `Invalid value for '${param}': ${issue.message}`;
    return { ok: false, error: invalidRequest(message, param) };
  }
  const body = parsed.data as ChatBody;
  if (dialect === 'openai' && body.model === undefined)
    return { ok: false, error: invalidRequest('you must provide a model parameter', 'model') };
  if (body.top_logprobs != null && body.logprobs !== true) {
    return {
      ok: false,
      error: invalidRequest('logprobs must be set to true when top_logprobs is given', 'top_logprobs'),
    };
  }
  const messages = readMessages(body.messages);
  if (!messages.ok)
    return { ok: false, error: invalidRequest(openAiWording(messages.problem), messages.problem.param) };
  const tools = await readToolFields(json as Record<string, unknown>);
  if (!tools.ok) return { ok: false, error: invalidRequest(openAiWording(tools.problem), tools.problem.param) };
  return { ok: true, body, messages: messages.value, tools: tools.value };
}

function streamWording(dialect: Dialect): StreamFaultWording {
  return {
    errorEvent: () => ({ data: JSON.stringify(errorBody(dialect, 500, statusError(500, undefined, undefined))) }),
    malformedEvent: () => ({ data: '{"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"delta":' }),
  };
}

/** Answers the problem itself and returns false, or returns true when the request may be served. */
function checkAccess(ctx: RouteContext, dialect: Dialect): boolean {
  const problem = accessProblem(ctx, dialect, '2024-10-21');
  if (problem) {
    sendCompletionsError(ctx, problem.status, problem.error);
    return false;
  }
  const version = dialect === 'azure' ? apiVersionOf(ctx, '2024-10-21') : undefined;
  if (version && 'date' in version && version.date < FIRST_CHAT_VERSION) {
    sendCompletionsError(ctx, 404, {
      code: '404',
      message: `Resource not found: chat completions need api-version ${FIRST_CHAT_VERSION}-preview or later, got ${ctx.request.query['api-version']}`,
    });
    return false;
  }
  return true;
}

function chatRoute(dialect: Dialect): RouteHandler {
  return async (ctx: RouteContext) => {
    stampRequestId(ctx);
    if (!checkAccess(ctx, dialect)) return;
    if (!('json' in ctx.request)) return sendUnparsableBody(ctx);
    const checked = await validate(ctx.request.json, dialect);
    if (!checked.ok) return sendCompletionsError(ctx, 400, checked.error);
    const body = checked.body;
    if (dialect === 'azure' && checked.messages.some((m) => promptIsFiltered(m.content ?? ''))) {
      return sendCompletionsError(ctx, 400, {
        code: 'content_filter',
        message: PROMPT_FILTERED_MESSAGE,
        param: 'prompt',
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: contentFilterResults(true) },
      });
    }
    const stream = body.stream === true;
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, completionsFaultWording(ctx, ctx.request.query['api-version']))) return;

    const n = body.n ?? 1;
    const top = body.top_logprobs ?? 0;
    const wantLogprobs = body.logprobs === true;
    const sampling: ChatSampling = merged(body, { max_tokens: body.max_completion_tokens ?? body.max_tokens });
    const engineOptions = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
    const turn = { messages: checked.messages, sampling, ...checked.tools };
    const plan = await planTurn(ctx.server.engine, turn, merged(engineOptions, { n }));
    if (plan.kind !== 'text') return answerStructured(ctx, dialect, body, plan, fault);
    const messages = conversationMessages(checked.messages);
    const generations = await startChatTurn(ctx.server.engine, messages, sampling, n, engineOptions);
    // Read when the usage is written, not now: an upstream (serve --upstream) says its count by then, and serve's
    // tokenizer need not count a prompt the upstream counts.
    const promptTokens = (): number => generations[0]!.inputTokenCount;
    const model = dialect === 'azure' ? ctx.params.deployment! : body.model!;
    const envelope = {
      id: `chatcmpl-${answerHex(12)}`,
      created: answerSeconds(),
      model,
    };
    const azureFilter = dialect === 'azure' ? { content_filter_results: contentFilterResults(false) } : {};

    if (!stream) {
      const summaries = await finishAll(generations);
      if (ctx.signal.aborted) return;
      const choices = summaries.map((s, index) => ({
        index,
        message: { role: 'assistant', content: s.generatedText, refusal: null },
        logprobs: wantLogprobs ? { content: s.generatedTokens.map((t) => chatLogprob(t, top)), refusal: null } : null,
        finish_reason: chatFinishReason(s.stopReason),
        ...azureFilter,
      }));
      const filterAnnotation = promptFilterAnnotation(dialect);
      await sendAnswer(ctx, fault, {
        ...envelope,
        object: 'chat.completion',
        ...filterAnnotation,
        choices,
        usage: chatUsage(summaries, promptTokens()),
      });
      return;
    }

    const events = new EventStream(ctx, fault, streamWording(dialect));
    events.open();
    const send = (data: unknown) => events.send({ data: JSON.stringify(data) });
    const chunkText = chunkJson(envelope);
    const withUsage = body.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], usage: unknown = null) =>
      events.send({ data: chunkText(choices, withUsage ? usage : undefined) });
    if (dialect === 'azure') {
      const annotation = [{ prompt_index: 0, content_filter_results: contentFilterResults(false) }];
      if (!(await send({ id: '', object: '', created: 0, model: '', prompt_filter_results: annotation, choices: [] })))
        return;
    }
    const shape = {
      logprobsTop: wantLogprobs ? top : undefined,
      logprobsExtra: { refusal: null },
      choiceExtra: azureFilter,
      emptyDeltas: true,
    };
    const usage = body.stream_options?.include_usage
      ? withReadThrough({}, 'promptTokens', promptTokens) // lazy-property.ts: not a literal's getter
      : undefined;
    if (!(await streamChatChoices(generations, chunk, merged(shape, { usage })))) return;
    if (!(await events.send({ data: '[DONE]' }))) return;
    await events.end();
  };
}

/** A JSON or tool-call answer (structured-answer.ts), whole or streamed, in the same envelope as a text answer. */
async function answerStructured(
  ctx: RouteContext,
  dialect: Dialect,
  body: ChatBody,
  plan: Exclude<TurnPlan, { kind: 'text' }>,
  fault: ReturnType<typeof takeFault>,
): Promise<void> {
  const envelope = {
    id: `chatcmpl-${answerHex(12)}`,
    created: answerSeconds(),
    model: dialect === 'azure' ? ctx.params.deployment! : body.model!,
  };
  const azureFilter = dialect === 'azure' ? { content_filter_results: contentFilterResults(false) } : {};
  if (body.stream !== true) {
    if (ctx.signal.aborted) return;
    const choices = plan.choices.map((c, index) => ({
      index,
      message: { ...structuredMessage(c), refusal: null },
      logprobs: null,
      finish_reason: c.finish_reason,
      ...azureFilter,
    }));
    const filterAnnotation = promptFilterAnnotation(dialect);
    await sendAnswer(ctx, fault, {
      ...envelope,
      object: 'chat.completion',
      ...filterAnnotation,
      choices,
      usage: structuredUsage(plan),
    });
    return;
  }
  const events = new EventStream(ctx, fault, streamWording(dialect));
  events.open();
  const send = (data: unknown) => events.send({ data: JSON.stringify(data) });
  const includeUsage = body.stream_options?.include_usage === true;
  const chunkText = chunkJson(envelope);
  const chunk = (choices: unknown[], usage: unknown = null) =>
    events.send({ data: chunkText(choices, includeUsage ? usage : undefined) });
  if (dialect === 'azure') {
    const annotation = [{ prompt_index: 0, content_filter_results: contentFilterResults(false) }];
    if (!(await send({ id: '', object: '', created: 0, model: '', prompt_filter_results: annotation, choices: [] })))
      return;
  }
  const usage = includeUsage ? { promptTokens: plan.prompt_tokens } : undefined;
  if (!(await streamStructuredChoices(plan, chunk, { choiceExtra: azureFilter, usage }))) return;
  if (!(await events.send({ data: '[DONE]' }))) return;
  await events.end();
}

export const azureOpenAiChatProtocol: ProtocolModule = {
  name: 'azure-openai-chat',
  prefixes: [],
  routes: [
    { method: 'POST', pattern: '/openai/deployments/:deployment/chat/completions', handler: chatRoute('azure') },
    { method: 'POST', pattern: '/v1/chat/completions', handler: chatRoute('openai') },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};

/** Azure annotates a whole answer with its prompt's (here always clean) content-filter results; OpenAI does not. */
function promptFilterAnnotation(dialect: Dialect): Record<string, unknown> {
  return dialect === 'azure'
    ? { prompt_filter_results: [{ prompt_index: 0, content_filter_results: contentFilterResults(false) }] }
    : {};
}
