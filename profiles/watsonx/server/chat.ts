/**
 * The chat routes of the local watsonx server (docs/protocols/chat.md): `/ml/v1/text/chat[_stream]` (model, project
 * or space) and `/ml/v1/deployments/{id_or_name}/text/chat[_stream]`. Checks as the service makes them (credentials,
 * `version`, the body), then the engine's answer written from the whole conversation, whole or as SSE events.
 */
import * as z from 'zod';
import { finishAll, interleave, startChatTurn, type ChatSampling } from '../../../src/emulator/engine/conversation.js';
import {
  chatFinishReason,
  chatLogprob,
  pieceDelta,
  structuredMessage,
  structuredUsage,
} from '../../server-common/openai-chat.js';
import {
  readMessages,
  readToolFields,
  type ToolFieldProblem,
  type ToolFields,
} from '../../server-common/chat-tools.js';
import {
  choicePieces,
  conversationMessages,
  planTurn,
  type TurnMessage,
  type TurnPlan,
} from '../../../src/emulator/engine/structured-answer.js';
import type { GenerationSummary } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { fieldName, type Issue } from '../../../src/emulator/core/zod-issue.js';
import { sendWatsonxError, watsonxErrorBody, watsonxFaultWording } from './errors.js';
import { LOCAL_DEPLOYMENT_MODEL } from './generate.js';
import { findDeployment } from './model-catalog.js';
import { watsonxPrelude } from './prelude.js';
import { answerIso, answerSeconds, answerUuid } from '../../../src/emulator/core/answer-clock.js';
import { merged } from '../../../src/contract/spread.js';

type ChatKind = 'foundation' | 'deployment';

interface ChatBody extends ChatSampling {
  model_id?: string;
  max_completion_tokens?: number;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown }>;
  n?: number;
  tools?: unknown;
  tool_choice?: unknown;
  tool_choice_option?: string;
  response_format?: unknown;
  guided_json?: unknown;
}

const PREFIX = 'Json document validation error: ';
const MODEL_VERSION = '1.0.0';

type Schemas = Awaited<ReturnType<typeof buildSchemas>>;
let schemas: Promise<Schemas> | undefined;

/** The fields of @ibm-cloud/watsonx-ai's textChat / deploymentsTextChat bodies; anything else is refused. */
async function buildSchemas() {
  const message = z.looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool', 'control']),
    content: z
      .union([z.string(), z.array(z.unknown())])
      .nullable()
      .optional(),
  });
  const sampling = {
    tools: z.array(z.unknown()),
    tool_choice_option: z.enum(['none', 'auto', 'required']),
    tool_choice: z.unknown(),
    frequency_penalty: z.number().min(-2).max(2),
    logit_bias: z.record(z.string(), z.number()),
    logprobs: z.boolean(),
    top_logprobs: z.int().min(0).max(20),
    max_tokens: z.int().min(0),
    max_completion_tokens: z.int().min(0),
    n: z.int().min(1).max(16),
    presence_penalty: z.number().min(-2).max(2),
    response_format: z.unknown(),
    seed: z.int(),
    stop: z.array(z.string()).max(4),
    temperature: z.number().min(0).max(2),
    top_p: z.number().min(0).max(1),
    time_limit: z.int().gt(0),
    repetition_penalty: z.number(),
    length_penalty: z.number(),
    include_reasoning: z.boolean(),
    reasoning_effort: z.enum(['low', 'medium', 'high']),
  };
  const messages = z.array(message).min(1);
  const foundation = z
    .strictObject({
      model_id: z.string().min(1),
      messages,
      project_id: z.string(),
      space_id: z.string(),
      guided_choice: z.array(z.string()),
      guided_regex: z.string(),
      guided_grammar: z.string(),
      guided_json: z.unknown(),
      ...sampling,
    })
    .partial()
    .required({ model_id: true, messages: true });
  const deployment = z
    .strictObject({ messages, context: z.string(), ...sampling })
    .partial()
    .required({ messages: true });
  return { foundation, deployment };
}

function describe(issue: Issue): string[] {
  const field = issue.path.length > 0 ? `'${fieldName(issue.path)}'` : 'the request body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return (issue.keys ?? []).map((k) => `'${fieldName([...issue.path, k])}' is not a recognized field`);
    case 'invalid_type':
      return [
        issue.message.includes('received undefined')
          ? `${field} is required`
          : `${field} must be of type ${issue.expected ?? 'unknown'}`,
      ];
    case 'invalid_value':
      return [`${field} must be one of: ${(issue.values ?? []).map(String).join(', ')}`];
    case 'too_big':
      return [
        issue.origin === 'array'
          ? `${field} must have at most ${issue.maximum} items`
          : `${field} must be less than or equal to ${issue.maximum}`,
      ];
    case 'too_small':
      return [
        issue.origin === 'array'
          ? `${field} must have at least ${issue.minimum} items`
          : `${field} must be greater than or equal to ${issue.minimum}`,
      ];
    default:
      return [`${field}: ${issue.message}`];
  }
}

type Checked =
  | { ok: true; body: ChatBody; messages: TurnMessage[]; tools: ToolFields }
  | { ok: false; errors: { code: string; message: string }[] };

/** A tools or messages problem in watsonx's words. */
function toolProblem(problem: ToolFieldProblem): Checked {
  const message =
    problem.kind === 'missing' ? `'${problem.param}' is required` : `'${problem.param}' ${problem.reason}`;
  return { ok: false, errors: [{ code: 'json_validation_error', message: PREFIX + message }] };
}

async function validateChatBody(json: unknown, kind: ChatKind): Promise<Checked> {
  schemas ??= buildSchemas();
  const parsed = (await schemas)[kind].safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues
        .flatMap((i) => describe(i as Issue))
        .slice(0, 10)
        .map((m) => ({ code: 'json_validation_error', message: PREFIX + m })),
    };
  }
  const body = parsed.data as ChatBody & { project_id?: string; space_id?: string };
  if (kind === 'foundation' && (body.project_id === undefined) === (body.space_id === undefined)) {
    return {
      ok: false,
      errors: [
        {
          code: 'json_validation_error',
          message: `${PREFIX}exactly one of 'project_id' or 'space_id' must be given in the request body`,
        },
      ],
    };
  }
  if (body.tool_choice !== undefined && body.tool_choice_option !== undefined) {
    return {
      ok: false,
      errors: [
        {
          code: 'json_validation_error',
          message: `${PREFIX}only one of 'tool_choice_option' or 'tool_choice' may be given in the request body`,
        },
      ],
    };
  }
  const messages = readMessages(body.messages);
  if (!messages.ok) return toolProblem(messages.problem);
  // guided_json (a JSON Schema the answer must follow) is watsonx's older way to ask for what json_schema asks.
  // IBM's SDK types it as a string (the schema's JSON text); the REST API takes the object too.
  let guidedSchema = body.guided_json;
  if (typeof guidedSchema === 'string') {
    try {
      guidedSchema = JSON.parse(guidedSchema);
    } catch {
      return toolProblem({ kind: 'invalid', param: 'guided_json', reason: 'is not a JSON document' });
    }
  }
  const guided =
    guidedSchema !== undefined && body.response_format === undefined
      ? { type: 'json_schema', json_schema: { name: 'guided_json', schema: guidedSchema } }
      : body.response_format;
  const tools = await readToolFields({
    tools: body.tools,
    tool_choice: body.tool_choice ?? body.tool_choice_option,
    response_format: guided,
  });
  if (!tools.ok) {
    // The choice words came as tool_choice_option: name the field the request used.
    const { param } = tools.problem;
    const asOption = body.tool_choice_option !== undefined && param === 'tool_choice';
    return toolProblem(asOption ? { ...tools.problem, param: 'tool_choice_option' } : tools.problem);
  }
  return { ok: true, body, messages: messages.value, tools: tools.value };
}

/**
 * What a deployment makes of the conversation (IBM: `deploymentsTextChat`). A deployment of a prompt template must
 * have one whose `input_mode` is `chat`; it gives the model and the system prompt, so the messages may hold no
 * `system` message, and its `system_prompt` is put first. `context` goes into the last user message ("Today is
 * Wednesday. Who are you …?"), or becomes the system message when there is none. A deployment the catalog does
 * not know is answered as a plain chat deployment of the local engine.
 */
function deploymentTurn(
  ctx: RouteContext,
  messages: readonly TurnMessage[],
  context: string | undefined,
): { ok: true; messages: TurnMessage[]; model?: string } | { ok: false; error: { code: string; message: string } } {
  const id = ctx.params.id ?? '';
  const deployment = findDeployment(id, ctx.server.engine);
  let out = [...messages];
  if (deployment?.promptTemplate !== undefined) {
    if (deployment.inputMode !== 'chat')
      return {
        ok: false,
        error: {
          code: 'invalid_input_argument',
          message: `Deployment '${id}' does not reference a prompt template with 'input_mode' 'chat'; use the text generation route for it`,
        },
      };
    const system = out.findIndex((m) => m.role === 'system');
    if (system >= 0)
      return {
        ok: false,
        error: {
          code: 'json_validation_error',
          message: `${PREFIX}'messages[${system}].role' cannot be 'system' for a prompt template deployment: its system prompt is the template's`,
        },
      };
    if (deployment.systemPrompt !== undefined) out = [{ role: 'system', content: deployment.systemPrompt }, ...out];
  }
  if (context !== undefined && context !== '') {
    const last = out.map((m) => m.role).lastIndexOf('user');
    const sentence = /[.!?]\s*$/.test(context) ? context.trimEnd() : `${context}.`;
    if (last >= 0) {
      const m = out[last] as TurnMessage;
      out[last] = { ...m, content: `${sentence} ${m.content ?? ''}` };
    } else out = [{ role: 'system', content: sentence }, ...out];
  }
  return { ok: true, messages: out, ...(deployment ? { model: deployment.baseModel } : {}) };
}

const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    event: 'error',
    data: JSON.stringify(
      watsonxErrorBody(500, [
        {
          code: 'internal_server_error',
          message: 'The model server stopped while generating; the partial output is incomplete',
        },
      ]),
    ),
  }),
  malformedEvent: () => ({ event: 'message', data: '{"id":"chat-broken","choices":[{"delta":{"content":' }),
};

function usageOf(summaries: readonly GenerationSummary[], promptTokens: number) {
  const completion = summaries.reduce((sum, s) => sum + s.generatedTokenCount, 0);
  return { completion_tokens: completion, prompt_tokens: promptTokens, total_tokens: promptTokens + completion };
}

function chatRoute(kind: ChatKind, streamRoute: boolean): RouteHandler {
  return async (ctx: RouteContext) => {
    const prelude = watsonxPrelude(ctx, { field: 'messages' });
    if (!prelude) return;
    const checked = await validateChatBody(prelude.json, kind);
    if (!checked.ok) return sendWatsonxError(ctx.res, 400, checked.errors);
    const body = checked.body;
    let turnMessages = checked.messages;
    let modelId = body.model_id ?? LOCAL_DEPLOYMENT_MODEL;
    if (kind === 'deployment') {
      const templated = deploymentTurn(ctx, checked.messages, (body as { context?: string }).context);
      if (!templated.ok) return sendWatsonxError(ctx.res, 400, [templated.error]);
      turnMessages = templated.messages;
      modelId = templated.model ?? modelId;
    }
    const fault = takeFault(ctx, streamRoute);
    if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

    const n = body.n ?? 1;
    const sampling: ChatSampling = merged(body, { max_tokens: body.max_completion_tokens ?? body.max_tokens });
    const top = body.top_logprobs ?? 0;
    const wantLogprobs = body.logprobs === true;
    const engineOptions = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
    const envelope = {
      id: `chat-${answerUuid()}`,
      model_id: modelId,
      model_version: MODEL_VERSION,
      created: answerSeconds(),
      created_at: answerIso(),
    };
    const turn = { messages: turnMessages, sampling, ...checked.tools };
    const plan = await planTurn(ctx.server.engine, turn, merged(engineOptions, { n }));
    if (plan.kind !== 'text') return answerStructured(ctx, envelope, plan, fault, streamRoute);
    const messages = conversationMessages(turnMessages);
    const generations = await startChatTurn(ctx.server.engine, messages, sampling, n, engineOptions);
    // Read when the usage is written, not now: an upstream (serve --upstream) says its count by then, and serve's
    // tokenizer need not count a prompt the upstream counts.
    const promptTokens = (): number => generations[0]!.inputTokenCount;

    if (!streamRoute) {
      const summaries = await finishAll(generations);
      if (ctx.signal.aborted) return;
      const choices = summaries.map((s, index) => ({
        index,
        message: { role: 'assistant', content: s.generatedText },
        finish_reason: chatFinishReason(s.stopReason),
        ...(wantLogprobs ? { logprobs: { content: s.generatedTokens.map((t) => chatLogprob(t, top)) } } : {}),
      }));
      await sendAnswer(ctx, fault, merged(envelope, { choices, usage: usageOf(summaries, promptTokens()) }));
      return;
    }

    const events = new EventStream(ctx, fault, streamWording);
    events.open();
    let id = 0;
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      events.send({
        id: String(++id),
        event: 'message',
        data: JSON.stringify(merged(merged(envelope, { choices }), extra)),
      });
    for (let index = 0; index < n; index++) {
      if (!(await send([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }]))) return;
    }
    let left = n;
    for await (const { index, step } of interleave(generations)) {
      const choice: Record<string, unknown> = {
        index,
        delta: { content: step.text },
        finish_reason: step.stopReason === undefined ? null : chatFinishReason(step.stopReason),
      };
      if (wantLogprobs && step.token) choice.logprobs = { content: [chatLogprob(step.token, top)] };
      if (step.stopReason !== undefined) left -= 1;
      // The last event carries the usage of the whole request.
      const extra =
        left === 0 && step.stopReason !== undefined
          ? {
              usage: usageOf(
                generations.map((g) => g.summary()),
                promptTokens(),
              ),
            }
          : {};
      if (!(await send([choice], extra))) return;
    }
    await events.end();
  };
}

/**
 * A JSON or tool-call answer in watsonx's chat shape (the SDK's TextChatResultMessage has OpenAI's `tool_calls`);
 * streamed, each event one delta (the first of a call with index, id, type and name), the last with the usage.
 */
async function answerStructured(
  ctx: RouteContext,
  envelope: Record<string, unknown>,
  plan: Exclude<TurnPlan, { kind: 'text' }>,
  fault: ReturnType<typeof takeFault>,
  streamRoute: boolean,
): Promise<void> {
  if (!streamRoute) {
    if (ctx.signal.aborted) return;
    const choices = plan.choices.map((c, index) => {
      const message = structuredMessage(c);
      // watsonx leaves content out, rather than null, when the model calls tools.
      return {
        index,
        message: message.content === null ? { role: message.role, tool_calls: message.tool_calls } : message,
        finish_reason: c.finish_reason,
      };
    });
    await sendAnswer(ctx, fault, merged(envelope, { choices, usage: structuredUsage(plan) }));
    return;
  }
  const events = new EventStream(ctx, fault, streamWording);
  events.open();
  let id = 0;
  const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    events.send({
      id: String(++id),
      event: 'message',
      data: JSON.stringify(merged(merged(envelope, { choices }), extra)),
    });
  for (const [index, choice] of plan.choices.entries()) {
    if (!(await send([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }]))) return;
    for (const piece of choicePieces(choice)) {
      if (!(await send([{ index, delta: { role: 'assistant', ...pieceDelta(piece) }, finish_reason: null }]))) return;
    }
    const last = index === plan.choices.length - 1 ? { usage: structuredUsage(plan) } : {};
    if (!(await send([{ index, delta: { role: 'assistant' }, finish_reason: choice.finish_reason }], last))) return;
  }
  await events.end();
}

export const watsonxChatProtocol: ProtocolModule = {
  name: 'watsonx-chat',
  prefixes: [],
  routes: [
    { method: 'POST', pattern: '/ml/v1/text/chat', handler: chatRoute('foundation', false) },
    { method: 'POST', pattern: '/ml/v1/text/chat_stream', handler: chatRoute('foundation', true) },
    { method: 'POST', pattern: '/ml/v1/deployments/:id/text/chat', handler: chatRoute('deployment', false) },
    { method: 'POST', pattern: '/ml/v1/deployments/:id/text/chat_stream', handler: chatRoute('deployment', true) },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
