/**
 * What an untrusted project file may still do (VS Code's restricted mode): set defaults that send nothing anywhere
 * and run nothing. It may define a new profile without a URL, credentials, auth, TLS or engine settings, and name a
 * default_profile that is yours, built in, or one of those; everything else it says is left out, and named.
 */
import type { ConfigFile, ProfileConfig } from './schema.js';

/** Fields that decide where requests go, as whom, how TLS is checked, or what runs on this machine. */
const SENSITIVE_FIELDS = [
  'url',
  'auth',
  'tls',
  'engine',
  'model_path',
  'model_name',
  'threads',
  'context_size',
  'gpu',
  'parallel',
  'upstream',
] as const;
/** Of those, the ones whose loss the user must hear about even with -q: credentials and TLS. */
const ALARMING_FIELDS = new Set<string>(['url', 'auth', 'tls']);

export interface Restricted {
  config: ConfigFile;
  /** What was left out, for one line: `profile "wx" (url, auth; the name of your profile)`. */
  ignored: string[];
  /** True when something left out concerned credentials or TLS: that line is not hidden by -q. */
  alarming: boolean;
}

/** The built-in profiles are `local` and `local-*` (src/config/resolve.ts); the whole family is reserved. */
const BUILT_IN_NAME = /^local/;

export function restrictUntrusted(config: ConfigFile, userProfiles: ReadonlySet<string>): Restricted {
  const kept: Record<string, ProfileConfig> = {};
  const ignored: string[] = [];
  let alarming = false;
  const dropped = new Set<string>();
  for (const [name, profile] of Object.entries(config.profiles ?? {})) {
    const fields = SENSITIVE_FIELDS.filter((f) => (profile as Record<string, unknown>)[f] !== undefined);
    const why: string[] = fields.length > 0 ? [fields.join(', ')] : [];
    if (BUILT_IN_NAME.test(name)) why.push('the name of a built-in profile');
    else if (userProfiles.has(name)) why.push('the name of your profile');
    if (why.length === 0) {
      kept[name] = profile;
      continue;
    }
    if (fields.some((f) => ALARMING_FIELDS.has(f))) alarming = true;
    dropped.add(name);
    ignored.push(`profile "${name}" (${why.join('; ')})`);
  }
  const restricted: ConfigFile = { profiles: kept };
  const def = config.default_profile;
  if (def !== undefined) {
    if (dropped.has(def)) ignored.push(`default_profile: ${def}`);
    else restricted.default_profile = def;
  }
  if (config.trusted_files !== undefined) ignored.push('trusted_files');
  return { config: restricted, ignored, alarming };
}
