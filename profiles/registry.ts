import type { ResolvedProfile } from '../src/config/types.js';
import type { HttpClient } from '../src/http/types.js';
import type { TokenCache } from '../src/config/token-cache.js';
import type { Authenticator, ProviderProfile } from './types.js';

/** Loads the provider profile for a kind; each is imported only when used. */
export async function loadProviderProfile(kind: ResolvedProfile['provider']): Promise<ProviderProfile> {
  switch (kind) {
    case 'watsonx':
      return (await import('./watsonx/client/generate.js')).watsonxProfile;
    case 'azure-openai':
      return (await import('./azure-openai/client/generate.js')).azureOpenAiProfile;
    case 'openai':
      return (await import('./azure-openai/client/generate.js')).openAiProfile;
    case 'aleph-alpha':
      return (await import('./aleph-alpha/client/generate.js')).alephAlphaProfile;
    case 'open-inference':
      return (await import('./open-inference/client/generate.js')).openInferenceProfile;
  }
}

export async function createAuthenticator(
  profile: ResolvedProfile,
  http: HttpClient,
  cache: TokenCache,
  now: () => number,
): Promise<Authenticator> {
  if (profile.provider === 'watsonx') {
    const { createWatsonxAuthenticator } = await import('./watsonx/client/auth.js');
    return createWatsonxAuthenticator({ profile, http, cache, now });
  }
  const { createStaticAuthenticator } = await import('./common/static-auth.js');
  return createStaticAuthenticator(profile, profile.provider === 'azure-openai' ? 'AZURE_OPENAI_API_KEY' : 'TEXTGEN_TOKEN');
}
