import type { ProviderAdapter } from '../../src/contract/adapter.js';
import { LOCAL_SPACE_ID, resolveWatsonxSettings } from './settings.js';

/** watsonx.ai on IBM Cloud and Cloud Pak for Data: the canonical vocabulary of the whole CLI. */
export const watsonxAdapter: ProviderAdapter = {
  kind: 'watsonx',
  displayName: 'watsonx.ai',
  auth: {
    types: ['iam', 'cpd', 'zenapikey', 'bearer', 'none'],
    bareKey: 'exchanged',
    otherTypesHint: 'use auth type iam (IBM Cloud), cpd or zenapikey (Cloud Pak for Data), or bearer',
    create: async (options) => (await import('./client/auth.js')).createWatsonxAuthenticator(options),
  },
  local: { profile: 'local', model: 'ibm/granite-4-h-small', entries: { space_id: LOCAL_SPACE_ID } },
  settings: resolveWatsonxSettings,
  missingModelHint: 'give a foundation model id, or use "deployment text-generate --id-or-name" for a deployment',
  errors: async () => ({ parseError: (await import('./client/response.js')).parseWatsonxError }),
  generate: async () => (await import('./client/generate.js')).watsonxGenerate,
  models: async () => (await import('./client/models.js')).watsonxModels,
  health: async () => (await import('./client/health.js')).watsonxHealth,
  chat: async () => (await import('./client/chat.js')).watsonxChat,
  embed: async () => (await import('./client/embed.js')).watsonxEmbed,
  tokenize: async () => (await import('./client/tokenize.js')).watsonxTokenize,
  rerank: async () => (await import('./client/rerank.js')).watsonxRerank,
  wxText: async () => (await import('./client/wx-text.js')).watsonxWxText,
  wxAi: async () => (await import('./client/wx-ai.js')).watsonxWxAi,
};
