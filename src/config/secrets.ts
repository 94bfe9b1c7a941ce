/**
 * Where secrets live in a config file, how `*_env` references are read, and the derived values that must be
 * redacted too. Light on purpose: imported by load.ts and resolve.ts on every run.
 */
import { AuthError } from '../contract/errors.js';
import { type BearerAuthWithSource, zenApiKeyValue } from '../contract/auth.js';
import type { ResolvedAuth } from '../contract/profile.js';
import type { AuthConfig, ProfileConfig } from './schema.js';

/** Auth fields that hold a secret written out in the file (each has a `<field>_env` twin). */
export const LITERAL_SECRET_FIELDS = ['apikey', 'password', 'token', 'key'] as const;
export type SecretField = (typeof LITERAL_SECRET_FIELDS)[number];

/** A literal secret in a config file: where it is (the field path under `profiles`), and how to avoid it. */
export interface LiteralSecret {
  path: string[];
  /** How to keep it out of a project file. */
  instead: string;
}

/** Does a URL carry a password (`https://user:pass@host`)? */
export function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

/** Every literal secret in a set of profiles: an auth field written out, or a password inside a profile's url. */
export function literalSecrets(profiles: Record<string, ProfileConfig>): LiteralSecret[] {
  const found: LiteralSecret[] = [];
  for (const [name, profile] of Object.entries(profiles)) {
    const auth = profile.auth as Record<string, unknown> | undefined;
    for (const field of LITERAL_SECRET_FIELDS) {
      if (auth !== undefined && typeof auth[field] === 'string')
        found.push({
          path: ['profiles', name, 'auth', field],
          instead: `use ${field}_env: VARIABLE and export VARIABLE`,
        });
    }
    if (typeof profile.url === 'string' && urlHasPassword(profile.url)) {
      found.push({
        path: ['profiles', name, 'url'],
        instead:
          'take the user:password@ out of the url and give the credential through the auth section (*_env: VARIABLE)',
      });
    }
  }
  return found;
}

/**
 * The value of one credential of a profile's auth block: the literal, or the variable it names.
 * Returns undefined when the block has neither; throws AuthError when the named variable is unset or empty.
 */
export function readSecret(
  auth: AuthConfig,
  field: SecretField,
  env: Record<string, string | undefined>,
  profileName: string,
): string | undefined {
  const fields = auth as Record<string, unknown>;
  const literal = fields[field];
  if (typeof literal === 'string') return literal;
  const varName = fields[`${field}_env`];
  if (typeof varName !== 'string') return undefined;
  const value = env[varName];
  if (value === undefined || value === '') {
    throw new AuthError(`profile "${profileName}" reads its ${SECRET_NOUN[field]} from ${varName}, which is not set`, {
      hint: `export ${varName}=… before running textgen, or pass ${field === 'token' ? '--token' : '--api-key'}`,
    });
  }
  return value;
}

const SECRET_NOUN: Record<SecretField, string> = {
  apikey: 'API key',
  password: 'password',
  token: 'token',
  key: 'API key',
};

export function bearerAuth(token: string, tokenEnv: string | undefined): ResolvedAuth {
  const auth: BearerAuthWithSource =
    tokenEnv === undefined ? { type: 'bearer', token } : { type: 'bearer', token, tokenEnv };
  return auth;
}

/** Every secret value an auth carries, including derived forms that appear on the wire. */
export function secretsOf(auth: ResolvedAuth): string[] {
  switch (auth.type) {
    case 'none':
      return [];
    case 'bearer':
      return [auth.token];
    case 'api-key':
      return [auth.key];
    case 'iam':
      return [auth.apikey];
    case 'cpd':
      return [auth.apikey, auth.password].filter((s): s is string => s !== undefined);
    case 'zenapikey':
      return [auth.apikey, zenApiKeyValue(auth.username, auth.apikey)];
  }
}
