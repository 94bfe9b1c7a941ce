/**
 * Aleph Alpha's chat route (docs/protocols/chat.md): `POST /chat/completions`, OpenAI-compatible, on servers that
 * have it (PhariaInference; the older luminous API does not). The profile says so with `chat: true`; the built-in
 * local-aa profile has it. No `seed` on this route; errors come in the usual `{"error", "code"}` or OpenAI's nested
 * shape, both of which parseAlephAlphaError reads.
 */
import { UsageError } from '../../../src/contract/errors.js';
import type { ChatRequest } from '../../../src/contract/chat.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import type { ChatOperation, ChatTarget } from '../../../src/contract/adapter.js';
import {
  chatCompletionsFields,
  chatHeaders,
  createChatCompletionsDecoder,
  OPENAI_CHAT_FEATURES,
  OPENAI_CHAT_PARAMETERS,
  openAiStyleError,
  parseChatCompletion,
} from '../../common/chat-completions.js';
import { parseAlephAlphaError } from './response.js';
import { alephAlphaSettings } from '../settings.js';

/** The reference's limit on `top_logprobs`. */
const MAX_TOP_LOGPROBS = 20;

export function buildAlephAlphaChatRequest(
  request: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const model = target.model ?? target.deployment ?? profile.defaults.model;
  if (!model)
    throw new UsageError(`aleph-alpha needs a model: give --model, or set defaults.model in profile "${profile.name}"`);
  const stream = target.stream ? { stream: true, stream_options: { include_usage: true } } : {};
  const body = { model, ...chatCompletionsFields(request), ...stream, ...extra };
  return {
    method: 'POST',
    url: `${profile.url.replace(/\/+$/, '')}/chat/completions`,
    headers: chatHeaders(target.stream),
    body: JSON.stringify(body),
  };
}

export const alephAlphaChat: ChatOperation = {
  kind: 'aleph-alpha',
  displayName: 'Aleph Alpha',
  capabilities: {
    parameters: { ...OPENAI_CHAT_PARAMETERS, seed: 'unsupported' },
    // [P] documents tools, tool_choice and response_format (json_schema), but no parallel_tool_calls.
    features: { ...OPENAI_CHAT_FEATURES, parallel_tool_calls: 'unsupported' },
    maxTopLogprobs: MAX_TOP_LOGPROBS,
  },
  unavailable: (profile) =>
    alephAlphaSettings(profile).chat === true
      ? undefined
      : {
          message: `profile "${profile.name}" does not say its Aleph Alpha server has the chat route (/chat/completions)`,
          hint: 'servers with it (PhariaInference) take chat: true in the profile; older luminous-only servers have no chat',
        },
  build: buildAlephAlphaChatRequest,
  parse: (body) => parseChatCompletion('aleph-alpha', body),
  decoder: () => createChatCompletionsDecoder('aleph-alpha', openAiStyleError),
  parseError: parseAlephAlphaError,
};
