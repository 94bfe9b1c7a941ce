import type { ResolvedProfile } from '../src/config/types.js';
import type { HttpClient } from '../src/http/types.js';
import type { TokenCache } from '../src/config/token-cache.js';
import type { Authenticator, ProviderProfile } from './types.js';

/** Loads the provider profile for a kind; each is imported only when used. */
export async function loadProviderProfile(kind: ResolvedProfile['provider']): Promise<ProviderProfile> {
  switch (kind) {
    case 'watsonx':
      return (await import('./watsonx/index.js')).watsonxProfile;
    case 'azure-openai':
      return (await import('./azure-openai/index.js')).azureOpenAiProfile;
    case 'openai':
      return (await import('./azure-openai/index.js')).openAiProfile;
    case 'aleph-alpha':
      return (await import('./aleph-alpha/index.js')).alephAlphaProfile;
    case 'open-inference':
      return (await import('./open-inference/index.js')).openInferenceProfile;
  }
}

export async function createAuthenticator(
  profile: ResolvedProfile,
  http: HttpClient,
  cache: TokenCache,
  now: () => number,
  warn?: (message: string) => void,
): Promise<Authenticator> {
  if (profile.provider === 'watsonx') {
    const { createWatsonxAuthenticator } = await import('./watsonx/auth.js');
    return createWatsonxAuthenticator({ profile, http, cache, now, ...(warn ? { warn } : {}) });
  }
  const { createStaticAuthenticator } = await import('./static-auth.js');
  return createStaticAuthenticator(profile, profile.provider === 'azure-openai' ? 'AZURE_OPENAI_API_KEY' : 'TEXTGEN_TOKEN');
}
