import type { ResolvedProfile } from '../../src/contract/profile.js';
import { UsageError } from '../../src/contract/errors.js';
import type { Authenticator } from '../../src/contract/adapter.js';

/**
 * Credentials that need no exchange: an `api-key` header (Azure), a bearer token, or nothing.
 * `invalidate` returns false: retrying a 401 with the same static secret cannot help.
 */
export function createStaticAuthenticator(profile: ResolvedProfile, placeholderVar: string): Authenticator {
  const auth = profile.auth;
  switch (auth.type) {
    case 'none':
      return { headers: async () => ({}), invalidate: async () => false, dryRunHeaders: () => ({}) };
    case 'api-key':
      return {
        headers: async () => ({ 'api-key': auth.key }),
        invalidate: async () => false,
        dryRunHeaders: () => ({ 'api-key': `\${${auth.keyEnv ?? placeholderVar}}` }),
      };
    case 'bearer':
      return {
        headers: async () => ({ authorization: `Bearer ${auth.token}` }),
        invalidate: async () => false,
        dryRunHeaders: () => ({ authorization: `Bearer \${${auth.tokenEnv ?? 'TEXTGEN_TOKEN'}}` }),
      };
    default:
      throw new UsageError(
        `auth type "${auth.type}" does not apply to provider ${profile.provider} (use api-key, bearer or none)`,
      );
  }
}
