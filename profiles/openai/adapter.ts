import type { ProviderAdapter } from '../../src/contract/adapter.js';
import { resolveAzureSettings } from './settings.js';

/** Both adapters word errors alike; the kind names the service in the message. */
const errors =
  (kind: 'azure-openai' | 'openai'): ProviderAdapter['errors'] =>
  async () => {
    const { parseCompletionsError } = await import('./client/errors.js');
    return { parseError: (status, bodyText, headers) => parseCompletionsError(kind, status, bodyText, headers) };
  };

const staticAuth =
  (keyVariable: string): ProviderAdapter['auth']['create'] =>
  async ({ profile }) =>
    (await import('../common/static-auth.js')).createStaticAuthenticator(profile, keyVariable);

/** Azure OpenAI completions: the deployment in the path, `api-version` in the query. */
export const azureOpenAiAdapter: ProviderAdapter = {
  kind: 'azure-openai',
  displayName: 'Azure OpenAI',
  auth: {
    types: ['api-key', 'bearer', 'none'],
    bareKey: 'api-key',
    otherTypesHint: 'use api-key or bearer, or pass --api-key / --token',
    create: staticAuth('AZURE_OPENAI_API_KEY'),
  },
  local: { profile: 'local-azure', model: 'gpt-35-turbo-instruct' },
  settings: resolveAzureSettings,
  errors: errors('azure-openai'),
  generate: async () => (await import('./client/generate.js')).azureOpenAiGenerate,
  models: async () => (await import('./client/models.js')).azureOpenAiModels,
  health: async () => (await import('./client/health.js')).azureOpenAiHealth,
  chat: async (api) =>
    api === 'responses'
      ? (await import('./client/responses.js')).azureOpenAiResponsesChat
      : (await import('./client/chat.js')).azureOpenAiChat,
  chatApis: ['chat-completions', 'responses'],
  embed: async () => (await import('./client/embed.js')).azureOpenAiEmbed,
};

/** The same wire format on `/v1/…` (OpenAI, vLLM, llama.cpp's server, Ollama): the model in the body. */
export const openAiAdapter: ProviderAdapter = {
  kind: 'openai',
  displayName: 'OpenAI-compatible',
  auth: {
    // OpenAI and the servers that copy it take `Authorization: Bearer`; an api-key header only behind some proxies.
    types: ['bearer', 'api-key', 'none'],
    bareKey: 'bearer',
    otherTypesHint: 'use api-key or bearer, or pass --api-key / --token',
    create: staticAuth('TEXTGEN_TOKEN'),
  },
  local: { profile: 'local-openai', model: 'gpt-3.5-turbo-instruct' },
  errors: errors('openai'),
  generate: async () => (await import('./client/generate.js')).openAiGenerate,
  models: async () => (await import('./client/models.js')).openAiModels,
  health: async () => (await import('./client/health.js')).openAiHealth,
  chat: async (api) =>
    api === 'responses'
      ? (await import('./client/responses.js')).openAiResponsesChat
      : (await import('./client/chat.js')).openAiChat,
  chatApis: ['chat-completions', 'responses'],
  embed: async () => (await import('./client/embed.js')).openAiEmbed,
  rerank: async () => (await import('./client/rerank.js')).openAiRerank,
};
