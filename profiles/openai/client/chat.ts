/**
 * Chat completions for both adapters of this folder (docs/protocols/chat.md): Azure's
 * `/openai/deployments/{deployment}/chat/completions?api-version=…` (the deployment picks the model) and the
 * OpenAI-compatible `/v1/chat/completions` (the model in the body).
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
import { pathSegment } from '../../common/path-segment.js';
import { AZURE_MAX_STOP_SEQUENCES } from '../capabilities.js';
import { parseCompletionsError } from './errors.js';
import { azureChatUsesV1, azureV1Url } from './azure-v1.js';
import { azureSettings } from '../settings.js';

/**
 * The newest generally available data-plane inference version when this was written (Azure OpenAI REST reference:
 * "Data plane - inference, latest GA release 2024-10-21"). Completions keep the profile's `api_version`; chat uses
 * this unless --api-version, TEXTGEN_API_VERSION or the profile's `chat_api_version` says otherwise.
 */
export const AZURE_CHAT_DEFAULT_API_VERSION = '2024-10-21';

/** `stream_options` (usage at the end of a stream) is refused by versions before 2024-08-01-preview. */
const STREAM_OPTIONS_SINCE = '2024-08-01';

/** OpenAI's documented maximum of alternatives per token. */
const MAX_TOP_LOGPROBS = 20;

function streamFields(stream: boolean, usage: boolean): Record<string, unknown> {
  if (!stream) return {};
  return usage ? { stream: true, stream_options: { include_usage: true } } : { stream: true };
}

export function azureChatApiVersion(profile: ResolvedProfile): string {
  return azureSettings(profile).chatApiVersion ?? AZURE_CHAT_DEFAULT_API_VERSION;
}

/** The Azure deployment a chat request names (its chat-completions and Responses routes alike). */
export function azureDeploymentOf(target: ChatTarget, profile: ResolvedProfile): string {
  const deployment = target.deployment ?? target.model ?? profile.defaults.model;
  if (!deployment)
    throw new UsageError(
      `azure-openai needs a deployment: give --model (or --id-or-name), or set defaults.model in profile "${profile.name}"`,
    );
  return deployment;
}

/** The model an OpenAI-compatible chat request names (its chat-completions and Responses routes alike). */
export function openAiModelOf(target: ChatTarget, profile: ResolvedProfile): string {
  const model = target.model ?? target.deployment ?? profile.defaults.model;
  if (!model)
    throw new UsageError(`openai needs a model: give --model, or set defaults.model in profile "${profile.name}"`);
  return model;
}

export function buildAzureChatRequest(
  request: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const deployment = azureDeploymentOf(target, profile);
  if (azureChatUsesV1(profile)) {
    const body = {
      model: deployment,
      ...chatCompletionsFields(request),
      ...streamFields(target.stream, true),
      ...extra,
    };
    const url = azureV1Url(profile, '/chat/completions');
    return { method: 'POST', url, headers: chatHeaders(target.stream), body: JSON.stringify(body) };
  }
  const version = azureChatApiVersion(profile);
  const body = {
    ...chatCompletionsFields(request),
    ...streamFields(target.stream, version.slice(0, 10) >= STREAM_OPTIONS_SINCE),
    ...extra,
  };
  // Users paste the endpoint with or without Azure's `/openai` segment; either way it appears once.
  const base = profile.url.replace(/\/+$/, '').replace(/\/openai$/, '');
  return {
    method: 'POST',
    url: `${base}/openai/deployments/${pathSegment(deployment, 'deployment')}/chat/completions?api-version=${encodeURIComponent(version)}`,
    headers: chatHeaders(target.stream),
    body: JSON.stringify(body),
  };
}

export function buildOpenAiChatRequest(
  request: ChatRequest,
  target: ChatTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const model = openAiModelOf(target, profile);
  const body = { model, ...chatCompletionsFields(request), ...streamFields(target.stream, true), ...extra };
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  const url = /\/v1$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
  return { method: 'POST', url, headers: chatHeaders(target.stream), body: JSON.stringify(body) };
}

const capabilities = {
  parameters: OPENAI_CHAT_PARAMETERS,
  features: OPENAI_CHAT_FEATURES,
  maxStop: AZURE_MAX_STOP_SEQUENCES,
  maxTopLogprobs: MAX_TOP_LOGPROBS,
};

export const azureOpenAiChat: ChatOperation = {
  kind: 'azure-openai',
  displayName: 'Azure OpenAI',
  capabilities,
  build: buildAzureChatRequest,
  parse: (body) => parseChatCompletion('azure-openai', body),
  decoder: () => createChatCompletionsDecoder('azure-openai', openAiStyleError),
  parseError: (status, bodyText, headers) => parseCompletionsError('azure-openai', status, bodyText, headers),
};

export const openAiChat: ChatOperation = {
  kind: 'openai',
  displayName: 'OpenAI-compatible',
  capabilities,
  build: buildOpenAiChatRequest,
  parse: (body) => parseChatCompletion('openai', body),
  decoder: () => createChatCompletionsDecoder('openai', openAiStyleError),
  parseError: (status, bodyText, headers) => parseCompletionsError('openai', status, bodyText, headers),
};
