import type { ProfileConfig } from '../config/schema.js';
import { LITERAL_SECRET_FIELDS } from '../config/secrets.js';

/** A profile fit to print: literal secrets become `***`; `*_env` references stay, they are only names. */
export function redactProfile(profile: ProfileConfig): ProfileConfig {
  if (!profile.auth) return { ...profile };
  const auth: Record<string, unknown> = { ...profile.auth };
  for (const field of LITERAL_SECRET_FIELDS) if (auth[field] !== undefined) auth[field] = '***';
  return { ...profile, auth: auth as ProfileConfig['auth'] };
}
