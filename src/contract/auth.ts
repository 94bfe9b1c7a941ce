/** Credential forms both the profile resolver (src/config/secrets.ts) and an adapter's authenticator read. */
import type { ResolvedAuth } from './profile.js';

/** The ZenApiKey credential: base64 of "username:apikey", no trailing newline. */
export function zenApiKeyValue(username: string, apikey: string): string {
  return Buffer.from(`${username}:${apikey}`, 'utf8').toString('base64');
}

/**
 * A bearer auth that remembers which variable its token came from, so `--dry-run` can print `${THAT_VAR}`.
 * The extra field rides along on the ResolvedAuth object (ResolvedAuth has no place for it).
 */
export type BearerAuthWithSource = Extract<ResolvedAuth, { type: 'bearer' }> & { tokenEnv?: string };

/** The variable a bearer token was read from, when known. */
export function bearerTokenEnv(auth: ResolvedAuth): string | undefined {
  if (auth.type !== 'bearer') return undefined;
  const tokenEnv = (auth as BearerAuthWithSource).tokenEnv;
  return typeof tokenEnv === 'string' ? tokenEnv : undefined;
}
