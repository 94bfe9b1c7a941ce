/**
 * OpenAI's Responses API in `serve` (docs/protocols/responses.md): `POST /v1/responses`, `GET` and `DELETE
 * /v1/responses/{id}`, and the same on Azure's v1 API (`/openai/v1/responses`, the deployment name as `model`).
 * Checks in the service's order (credentials, body, previous response), then the engine's answer through the shared
 * chat turn (src/emulator/engine/conversation.ts): one `response` object, or typed events (responses-stream.ts).
 * Kept responses (responses-store.ts) carry `previous_response_id` conversations and answer GET.
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { finishAll } from '../../../src/emulator/engine/conversation.js';
import type { TurnMessage } from '../../../src/emulator/engine/structured-answer.js';
import { unauthorized } from './access.js';
import { completionsAuthorized } from './auth.js';
import { azureV1Access } from './azure-v1-access.js';
import { completionsFaultWording, sendCompletionsError, stampRequestId, sendUnparsableBody } from './errors.js';
import { planResponse } from './responses-answer.js';
import { inputMessages } from './responses-input.js';
import {
  outputText,
  responseObject,
  responseStatusOf,
  responseUsage,
  responsesId,
  type MessageItem,
  type OutputItem,
  type ResponseHead,
} from './responses-object.js';
import { responsesStoreOf } from './responses-store.js';
import { streamResponse } from './responses-stream.js';
import { validateResponsesBody, type ResponsesBody } from './responses-validate.js';
import { answerSeconds } from '../../../src/emulator/core/answer-clock.js';

/** `/v1/responses` (OpenAI-compatible) or `/openai/v1/responses` (Azure's v1 API). */
export type ResponsesFlavour = 'openai' | 'azure-v1';

function accessOk(ctx: RouteContext, flavour: ResponsesFlavour): boolean {
  if (flavour === 'azure-v1') return azureV1Access(ctx);
  stampRequestId(ctx);
  if (completionsAuthorized(ctx, 'openai')) return true;
  sendCompletionsError(ctx, 401, unauthorized('openai'));
  return false;
}

/** One output item as the next turn reads it: the answer's text, or the call it made. */
function answerMessage(item: OutputItem): TurnMessage {
  return item.type === 'message'
    ? { role: 'assistant', content: item.content.map((c) => c.text).join('') }
    : {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } }],
      };
}

function keep(
  ctx: RouteContext,
  body: ResponsesBody,
  response: Record<string, unknown>,
  conversation: TurnMessage[],
  output: OutputItem[],
) {
  if (body.store === false) return;
  const items = new Map<string, Record<string, unknown>>();
  for (const item of output) items.set(item.id, item as unknown as Record<string, unknown>);
  responsesStoreOf(ctx.server).put(response.id as string, {
    response,
    conversation: [...conversation, ...output.map(answerMessage)],
    items,
  });
}

function createRoute(flavour: ResponsesFlavour): RouteHandler {
  return async (ctx) => {
    if (!accessOk(ctx, flavour)) return;
    if (!('json' in ctx.request)) return sendUnparsableBody(ctx);
    const checked = validateResponsesBody(ctx.request.json);
    if (!checked.ok) return sendCompletionsError(ctx, 400, checked.error);
    const body = checked.body;
    const store = responsesStoreOf(ctx.server);
    const previous = body.previous_response_id ? store.get(body.previous_response_id) : undefined;
    if (body.previous_response_id && previous === undefined) {
      return sendCompletionsError(ctx, 400, {
        message: `Previous response with id '${body.previous_response_id}' not found.`,
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      });
    }
    const own = inputMessages(body.input, store);
    if (!Array.isArray(own)) return sendCompletionsError(ctx, 400, own);
    const conversation = [...(previous?.conversation ?? []), ...own];
    if (conversation.length === 0)
      return sendCompletionsError(ctx, 400, {
        message:
          "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        type: 'invalid_request_error',
        param: 'input',
        code: 'empty_array',
      });
    const turn: TurnMessage[] = body.instructions
      ? [{ role: 'system', content: body.instructions }, ...conversation]
      : conversation;

    const stream = body.stream === true;
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, completionsFaultWording(ctx, ctx.request.query['api-version']))) return;

    const head: ResponseHead = {
      id: responsesId('resp'),
      created_at: answerSeconds(),
      model: body.model!,
      body,
    };
    const answer = await planResponse(ctx, body, turn);

    if (stream) {
      const streamed = await streamResponse(ctx, fault, head, answer);
      if (streamed) keep(ctx, body, streamed.response, conversation, streamed.output);
      return;
    }
    let response: Record<string, unknown>;
    let output: OutputItem[];
    if (answer.kind === 'structured') {
      output = answer.output;
      response = responseObject(head, answer.status, output, answer.usage);
    } else {
      const [summary] = await finishAll([answer.generation]);
      if (ctx.signal.aborted) return;
      const status = responseStatusOf(summary!.stopReason);
      const item: MessageItem = {
        id: answer.messageId,
        type: 'message',
        status: status === 'completed' ? 'completed' : 'incomplete',
        role: 'assistant',
        content: [outputText(summary!.generatedText)],
      };
      output = [item];
      response = responseObject(
        head,
        status,
        output,
        responseUsage(summary!.inputTokenCount, summary!.generatedTokenCount),
      );
    }
    keep(ctx, body, response, conversation, output);
    await sendAnswer(ctx, fault, response);
  };
}

function retrieveRoute(flavour: ResponsesFlavour): RouteHandler {
  return (ctx) => {
    if (!accessOk(ctx, flavour)) return;
    const kept = responsesStoreOf(ctx.server).get(ctx.params.id!);
    if (kept === undefined)
      return sendCompletionsError(ctx, 404, {
        message: `Response with id '${ctx.params.id}' not found.`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    sendJson(ctx.res, 200, kept.response);
  };
}

/** `DELETE /v1/responses/{id}`: `{id, object: "response", deleted: true}`, or the 404 of an unknown id. */
function deleteRoute(flavour: ResponsesFlavour): RouteHandler {
  return (ctx) => {
    if (!accessOk(ctx, flavour)) return;
    if (!responsesStoreOf(ctx.server).delete(ctx.params.id!))
      return sendCompletionsError(ctx, 404, {
        message: `Response with id '${ctx.params.id}' not found.`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
    sendJson(ctx.res, 200, { id: ctx.params.id, object: 'response', deleted: true });
  };
}

export const responsesProtocol: ProtocolModule = {
  name: 'openai-responses',
  prefixes: ['/v1/responses', '/openai/v1/'],
  routes: [
    { method: 'POST', pattern: '/v1/responses', handler: createRoute('openai') },
    { method: 'GET', pattern: '/v1/responses/:id', handler: retrieveRoute('openai') },
    { method: 'DELETE', pattern: '/v1/responses/:id', handler: deleteRoute('openai') },
    { method: 'POST', pattern: '/openai/v1/responses', handler: createRoute('azure-v1') },
    { method: 'GET', pattern: '/openai/v1/responses/:id', handler: retrieveRoute('azure-v1') },
    { method: 'DELETE', pattern: '/openai/v1/responses/:id', handler: deleteRoute('azure-v1') },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
