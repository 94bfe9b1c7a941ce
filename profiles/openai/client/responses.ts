/**
 * `chat` over OpenAI's Responses API, for a profile with `api: responses` (docs/protocols/responses.md):
 * `POST {url}/v1/responses` (OpenAI-compatible), or Azure's v1 `POST {endpoint}/openai/v1/responses` (the deployment
 * as `model`). The conversation goes as `input` items (messages, `function_call`, `function_call_output`), tools in
 * the Responses' flat shape, `response_format` as `text.format`, and `store: false` (the CLI keeps the conversation
 * itself). The answer's `output` items come back as the canonical choice: `output_text` → `message.content`,
 * `function_call` items → `message.tool_calls`, `status`/`incomplete_details` → `finish_reason`, usage in the
 * canonical names. Field names from openai 6's typings (node_modules/openai/resources/responses/responses.d.ts).
 */
import type { ChatMessage, ChatParameterName, ChatRequest } from '../../../src/contract/chat.js';
import type { ChatOperation, ChatTarget } from '../../../src/contract/adapter.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { chatHeaders, OPENAI_CHAT_FEATURES } from '../../common/chat-completions.js';
import { AZURE_MAX_STOP_SEQUENCES } from '../capabilities.js';
import { azureV1Url } from './azure-v1.js';
import { azureDeploymentOf, openAiModelOf } from './chat.js';
import { parseCompletionsError } from './errors.js';
import { parseResponse } from './responses-read.js';
import { createResponsesDecoder } from './responses-stream.js';

/** OpenAI refuses a smaller `max_output_tokens`; said before anything is sent. */
export const MIN_OUTPUT_TOKENS = 16;

/** What the Responses API carries of the canonical chat parameters: no stop, seed, n, penalties or logprobs. */
export const RESPONSES_PARAMETERS: Record<ChatParameterName, 'native' | 'unsupported'> = {
  max_tokens: 'native',
  temperature: 'native',
  top_p: 'native',
  stop: 'unsupported',
  seed: 'unsupported',
  n: 'unsupported',
  logprobs: 'unsupported',
  top_logprobs: 'unsupported',
  frequency_penalty: 'unsupported',
  presence_penalty: 'unsupported',
  time_limit: 'unsupported',
};

/** One canonical message as Responses input items (an assistant turn with calls is its text, then each call). */
function inputItems(m: ChatMessage): Record<string, unknown>[] {
  if (m.role === 'tool') return [{ type: 'function_call_output', call_id: m.tool_call_id ?? '', output: m.content }];
  const items: Record<string, unknown>[] = [];
  if (m.content !== '' || !m.tool_calls?.length) items.push({ role: m.role, content: m.content });
  for (const call of m.tool_calls ?? [])
    items.push({
      type: 'function_call',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  return items;
}

/** The body fields of a chat request; `model` and `stream` are the caller's. */
export function responsesFields(request: ChatRequest): Record<string, unknown> {
  const p = request.parameters;
  if (p.max_tokens !== undefined && p.max_tokens < MIN_OUTPUT_TOKENS)
    throw new UsageError(
      `the Responses API needs --max-tokens of at least ${MIN_OUTPUT_TOKENS} (max_output_tokens), got ${p.max_tokens}`,
    );
  const body: Record<string, unknown> = { input: request.messages.flatMap(inputItems) };
  if (p.max_tokens !== undefined) body.max_output_tokens = p.max_tokens;
  if (p.temperature !== undefined) body.temperature = p.temperature;
  if (p.top_p !== undefined) body.top_p = p.top_p;
  if (request.tools?.length)
    body.tools = request.tools.map((t) => ({
      type: 'function',
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      parameters: t.function.parameters ?? { type: 'object', properties: {} },
      // Responses makes function tools strict unless told: the chat APIs' default (not strict) is kept.
      strict: t.function.strict ?? false,
    }));
  const choice = request.tool_choice;
  if (choice !== undefined)
    body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.function };
  if (request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  const format = request.response_format;
  if (format !== undefined)
    body.text = {
      format:
        format.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: format.json_schema.name,
              schema: format.json_schema.schema,
              ...(format.json_schema.strict !== undefined ? { strict: format.json_schema.strict } : {}),
            }
          : { type: format.type },
    };
  body.store = false;
  return body;
}

function request(url: string, model: string, chat: ChatRequest, stream: boolean, extra?: Record<string, unknown>) {
  const body = { model, ...responsesFields(chat), ...(stream ? { stream: true } : {}), ...extra };
  return { method: 'POST', url, headers: chatHeaders(stream), body: JSON.stringify(body) } satisfies HttpRequestSpec;
}

export function buildOpenAiResponsesRequest(
  chat: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const model = openAiModelOf(target, profile);
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  return request(/\/v1$/.test(base) ? `${base}/responses` : `${base}/v1/responses`, model, chat, target.stream, extra);
}

export function buildAzureResponsesRequest(
  chat: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const deployment = azureDeploymentOf(target, profile);
  // Azure's Responses API is on the v1 routes only; the deployment name is the model.
  return request(azureV1Url(profile, '/responses'), deployment, chat, target.stream, extra);
}

// Tools, tool choice, parallel calls and formats all travel on the Responses wire (`tools`, `tool_choice`,
// `parallel_tool_calls`, `text.format`), as on chat completions.
const capabilities = {
  parameters: RESPONSES_PARAMETERS,
  features: OPENAI_CHAT_FEATURES,
  maxStop: AZURE_MAX_STOP_SEQUENCES,
};

export const openAiResponsesChat: ChatOperation = {
  kind: 'openai',
  displayName: 'OpenAI-compatible (Responses API)',
  capabilities,
  build: buildOpenAiResponsesRequest,
  parse: (body) => parseResponse('openai', body),
  decoder: () => createResponsesDecoder('openai'),
  parseError: (status, bodyText, headers) => parseCompletionsError('openai', status, bodyText, headers),
};

export const azureOpenAiResponsesChat: ChatOperation = {
  kind: 'azure-openai',
  displayName: 'Azure OpenAI (Responses API)',
  capabilities,
  build: buildAzureResponsesRequest,
  parse: (body) => parseResponse('azure-openai', body),
  decoder: () => createResponsesDecoder('azure-openai'),
  parseError: (status, bodyText, headers) => parseCompletionsError('azure-openai', status, bodyText, headers),
};
