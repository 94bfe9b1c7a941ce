import type { ProfileConfig } from '../config/schema.js';
import { LITERAL_SECRET_FIELDS } from '../config/secrets.js';
import { redactUrl } from '../contract/redact.js';

/**
 * A profile fit to print: literal secrets and a password inside the url become `***`; `*_env` references stay,
 * they are only names.
 */
export function redactProfile(profile: ProfileConfig): ProfileConfig {
  const shown = profile.url === undefined ? { ...profile } : { ...profile, url: redactUrl(profile.url) };
  if (!profile.auth) return shown;
  const auth: Record<string, unknown> = { ...profile.auth };
  for (const field of LITERAL_SECRET_FIELDS) if (auth[field] !== undefined) auth[field] = '***';
  return { ...shown, auth: auth as ProfileConfig['auth'] };
}
