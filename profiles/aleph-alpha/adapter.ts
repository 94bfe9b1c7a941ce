import type { ProviderAdapter } from '../../src/contract/adapter.js';
import { resolveAlephAlphaSettings } from './settings.js';

/** Aleph Alpha's API: completion with multimodal prompts, embeddings, tokens, and the evaluate/explain/qa/summarize tasks. */
export const alephAlphaAdapter: ProviderAdapter = {
  kind: 'aleph-alpha',
  displayName: 'Aleph Alpha',
  auth: {
    types: ['bearer', 'none'],
    alsoAccepted: ['api-key'],
    bareKey: 'bearer',
    otherTypesHint: 'use bearer, or pass --token',
    create: async ({ profile }) =>
      (await import('../common/static-auth.js')).createStaticAuthenticator(profile, 'TEXTGEN_TOKEN'),
  },
  local: { profile: 'local-aa', model: 'luminous-base', entries: { chat: true } },
  settings: resolveAlephAlphaSettings,
  errors: async () => ({ parseError: (await import('./client/response.js')).parseAlephAlphaError }),
  generate: async () => (await import('./client/generate.js')).alephAlphaGenerate,
  models: async () => (await import('./client/models.js')).alephAlphaModels,
  health: async () => (await import('./client/health.js')).alephAlphaHealth,
  chat: async () => (await import('./client/chat.js')).alephAlphaChat,
  embed: async () => (await import('./client/embed.js')).alephAlphaEmbed,
  tokenize: async () => (await import('./client/tokenize.js')).alephAlphaTokenize,
  tasks: {
    evaluate: async () => (await import('./client/evaluate.js')).alephAlphaEvaluate,
    explain: async () => (await import('./client/explain.js')).alephAlphaExplain,
    qa: async () => (await import('./client/qa.js')).alephAlphaQa,
    summarize: async () => (await import('./client/summarize.js')).alephAlphaSummarize,
  },
  prompts: async () => (await import('./client/prompts.js')).alephAlphaPrompts,
};
