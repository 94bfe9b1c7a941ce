/**
 * `user:password@` in a base URL (`--url`, `TEXTGEN_URL`, a profile's `url`): sent as HTTP Basic auth, as curl does
 * with the same URL, when it is the only credential; refused when the profile has another one, since which of the
 * two the service should see would be a guess. It used to be dropped without a word (undici ignores a URL's
 * userinfo) while `--dry-run` kept it. The password is a known secret already (resolve.ts), so it is masked in
 * traces, errors and `--dry-run`; so is the encoded header value added here.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import { UsageError } from '../contract/errors.js';
import { redactUrl } from '../contract/redact.js';
import type { Authenticator } from '../contract/adapter.js';

/** The user name and password of `url`, decoded; undefined when it has neither. */
export function urlCredentials(url: string): { user: string; password: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.username === '' && parsed.password === '') return undefined;
  return { user: decoded(parsed.username), password: decoded(parsed.password) };
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The authenticator to use for `profile`: `auth` itself, or — when the profile's URL carries `user:password@` and
 * no other credential is set — one that sends `Authorization: Basic`. `addSecret` learns the header's value.
 */
export function withUrlCredentials(
  profile: ResolvedProfile,
  auth: Authenticator,
  addSecret: (value: string) => void,
): Authenticator {
  const credentials = urlCredentials(profile.url);
  if (credentials === undefined) return auth;
  if (profile.auth.type !== 'none') {
    throw new UsageError(
      `the URL ${redactUrl(profile.url)} carries user:password@, and profile "${profile.name}" has a credential too (${profile.auth.type}): give one of them`,
      {
        hint: "take user:password@ out of the URL, or drop the other credential (--api-key, --token, TEXTGEN_API_KEY, TEXTGEN_TOKEN, the profile's auth section)",
      },
    );
  }
  const value = Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8').toString('base64');
  addSecret(value);
  return {
    headers: async () => ({ authorization: `Basic ${value}` }),
    invalidate: async () => false,
    // curl sends the URL's userinfo as Basic auth itself; the --dry-run line keeps it in the URL, password masked.
    dryRunHeaders: () => ({}),
  };
}
