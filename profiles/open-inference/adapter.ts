import type { ProviderAdapter } from '../../src/contract/adapter.js';

/** The Open Inference Protocol's generate extension (Triton, KServe): generation, health and the model repository. */
export const openInferenceAdapter: ProviderAdapter = {
  kind: 'open-inference',
  displayName: 'Open Inference',
  auth: {
    types: ['bearer', 'none'],
    alsoAccepted: ['api-key'],
    bareKey: 'bearer',
    otherTypesHint: 'use bearer, or pass --token',
    create: async ({ profile }) =>
      (await import('../common/static-auth.js')).createStaticAuthenticator(profile, 'TEXTGEN_TOKEN'),
  },
  local: { profile: 'local-oip', model: 'demo' },
  missingChatHint:
    'Triton and KServe serve chat through their OpenAI-compatible front ends: point a profile with provider openai at it, e.g. textgen --provider openai --url http://HOST:9000 chat -m MODEL "Hello" (KServe: --url http://HOST/openai)',
  errors: async () => ({ parseError: (await import('./client/response.js')).parseOpenInferenceError }),
  generate: async () => (await import('./client/generate.js')).openInferenceGenerate,
  models: async () => (await import('./client/models.js')).openInferenceModels,
  health: async () => (await import('./client/health.js')).openInferenceHealth,
};
