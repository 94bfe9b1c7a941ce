/**
 * watsonx.ai chat (docs/protocols/chat.md): `POST /ml/v1/text/chat` (model + project or space) and
 * `/ml/v1/deployments/{id_or_name}/text/chat`, with `…_stream` twins that answer in SSE. The body is OpenAI's chat
 * shape with `model_id` for `model`; answers name the model `model_id` and errors are watsonx's `errors` array.
 */
import { UsageError } from '../../../src/contract/errors.js';
import type { ChatOperation, ChatTarget } from '../../../src/contract/adapter.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { ChatRequest } from '../../../src/contract/chat.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import {
  chatCompletionsFields,
  chatHeaders,
  createChatCompletionsDecoder,
  OPENAI_CHAT_FEATURES,
  OPENAI_CHAT_PARAMETERS,
  parseChatCompletion,
} from '../../common/chat-completions.js';
import { pathSegment } from '../../common/path-segment.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { parseWatsonxError } from './response.js';
import { watsonxScope } from './scope.js';
import { errorFromBody } from './stream.js';

function chatPath(target: ChatTarget): string {
  const route = target.stream ? 'chat_stream' : 'chat';
  if (target.deployment !== undefined)
    return `/ml/v1/deployments/${pathSegment(target.deployment, 'deployment')}/text/${route}`;
  return `/ml/v1/text/${route}`;
}

export function buildWatsonxChatRequest(
  request: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const body: Record<string, unknown> = {};
  if (target.deployment === undefined) {
    const model = target.model ?? profile.defaults.model;
    if (!model)
      throw new UsageError(
        'a model is required for chat: give --model, or --id-or-name for a deployment, or set defaults.model in the profile',
      );
    body.model_id = model;
    Object.assign(body, watsonxScope(profile, 'chat with a foundation model'));
  }
  Object.assign(body, chatCompletionsFields(request, 'watsonx'), extra);
  const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${profile.url}${chatPath(target)}?version=${encodeURIComponent(version)}`,
    headers: chatHeaders(target.stream),
    body: JSON.stringify(body),
  };
}

export const watsonxChat: ChatOperation = {
  kind: 'watsonx',
  displayName: 'watsonx.ai',
  // time_limit is watsonx's own; the rest are the OpenAI-shaped fields the chat API shares.
  capabilities: {
    parameters: { ...OPENAI_CHAT_PARAMETERS, time_limit: 'native' },
    // [W] `TextChatParameters` has tools, tool_choice_option / tool_choice and response_format on both chat
    // routes, and no parallel_tool_calls.
    features: { ...OPENAI_CHAT_FEATURES, parallel_tool_calls: 'unsupported' },
  },
  build: buildWatsonxChatRequest,
  parse: (body) => parseChatCompletion('watsonx', body),
  decoder: () => createChatCompletionsDecoder('watsonx', errorFromBody),
  parseError: parseWatsonxError,
};
