import type { ResolvedProfile } from '../src/config/types.js';
import type { HttpClient } from '../src/http/types.js';
import type { TokenCache } from '../src/config/token-cache.js';
import { UsageError } from '../src/errors.js';
import type { Authenticator, ProviderProfile } from './types.js';

/** Loads the provider profile for a kind; each is imported only when used. */
export async function loadProviderProfile(kind: string): Promise<ProviderProfile> {
  switch (kind) {
    case 'watsonx':
      return (await import('./watsonx/index.js')).watsonxProfile;
    default:
      throw new UsageError(`provider "${kind}" is not supported by this version of textgen (supported: watsonx)`);
  }
}

export async function createAuthenticator(
  profile: ResolvedProfile,
  http: HttpClient,
  cache: TokenCache,
  now: () => number,
): Promise<Authenticator> {
  switch (profile.provider) {
    case 'watsonx': {
      const { createWatsonxAuthenticator } = await import('./watsonx/auth.js');
      return createWatsonxAuthenticator({ profile, http, cache, now });
    }
    default:
      throw new UsageError(`provider "${profile.provider}" is not supported by this version of textgen (supported: watsonx)`);
  }
}
