/**
 * What a Responses request is answered with, decided by the engine primitive every chat route shares
 * (src/emulator/engine/structured-answer.ts): the engine's text, a JSON document for `text.format` (`json_schema` /
 * `json_object`), or function calls from `tools` and `tool_choice`. The Responses shapes are mapped to the chat
 * vocabulary there and back: flat function tools, `{type: "function", name}` choices, `text.format`. The stop
 * reason decides the status: cut by the token budget is `incomplete` (`incomplete_details.reason:
 * "max_output_tokens"`), any other end `completed`.
 */
import type { ChatTool, ResponseFormat, ToolChoice } from '../../../src/contract/chat.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { startChatTurn } from '../../../src/emulator/engine/conversation.js';
import { conversationMessages, planTurn, type TurnMessage } from '../../../src/emulator/engine/structured-answer.js';
import { outputText, responseUsage, responsesId, type OutputItem, type ResponseAnswer } from './responses-object.js';
import type { ResponsesBody, ResponsesToolChoice } from './responses-validate.js';

function chatTools(body: ResponsesBody): ChatTool[] {
  return (body.tools ?? []).map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description != null ? { description: t.description } : {}),
      ...(t.parameters != null ? { parameters: t.parameters } : {}),
      ...(t.strict != null ? { strict: t.strict } : {}),
    },
  }));
}

function chatToolChoice(choice: ResponsesToolChoice | undefined): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { function: choice.name };
}

function chatResponseFormat(body: ResponsesBody): ResponseFormat | undefined {
  const format = body.text?.format;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.strict != null ? { strict: format.strict } : {}),
    },
  };
}

/**
 * The answer to `turn` (the conversation, `instructions` first): planned whole when it is JSON or calls, else a
 * generation to stream or run to its end.
 */
export async function planResponse(
  ctx: RouteContext,
  body: ResponsesBody,
  turn: TurnMessage[],
): Promise<ResponseAnswer> {
  const sampling = { max_tokens: body.max_output_tokens, temperature: body.temperature, top_p: body.top_p };
  const options = { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs };
  const toolChoice = chatToolChoice(body.tool_choice);
  const format = chatResponseFormat(body);
  const plan = await planTurn(
    ctx.server.engine,
    {
      messages: turn,
      sampling,
      tools: chatTools(body),
      ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
      ...(body.parallel_tool_calls != null ? { parallel_tool_calls: body.parallel_tool_calls } : {}),
      ...(format !== undefined ? { response_format: format } : {}),
    },
    options,
  );
  if (plan.kind === 'text') {
    const [generation] = await startChatTurn(ctx.server.engine, conversationMessages(turn), sampling, 1, options);
    return { kind: 'text', generation: generation!, messageId: responsesId('msg') };
  }
  const choice = plan.choices[0]!;
  const status = choice.finish_reason === 'length' ? 'incomplete' : 'completed';
  const output: OutputItem[] =
    plan.kind === 'json'
      ? [
          {
            id: responsesId('msg'),
            type: 'message',
            status,
            role: 'assistant',
            content: [outputText(choice.content)],
          },
        ]
      : choice.tool_calls.map((call) => ({
          id: responsesId('fc'),
          type: 'function_call',
          status: 'completed',
          arguments: call.function.arguments,
          call_id: call.id,
          name: call.function.name,
        }));
  return { kind: 'structured', output, status, usage: responseUsage(plan.prompt_tokens, choice.completion_tokens) };
}
