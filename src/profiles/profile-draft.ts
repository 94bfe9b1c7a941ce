/**
 * `profiles add`: from flags, and on a terminal answers to questions, to the ProfileConfig written to the user file.
 * Without a terminal every missing flag is named in one usage error.
 */
import { UsageError } from '../contract/errors.js';
import type { AuthConfig, ProfileConfig } from '../config/schema.js';
import { PROVIDER_KINDS, type ProviderKind } from '../contract/profile.js';
import { adapterFor } from '../../profiles/registry.js';
import type { Prompter } from '../prompt/prompter.js';
import { NOT_HTTP_URL, urlProblem as checkBaseUrl } from '../config/base-url.js';

export type AuthType = AuthConfig['type'];

export interface AddFlags {
  name?: string | undefined;
  provider?: string | undefined;
  url?: string | undefined;
  authType?: string | undefined;
  apikeyEnv?: string | undefined;
  tokenEnv?: string | undefined;
  apiKey?: string | undefined;
  token?: string | undefined;
  username?: string | undefined;
  apiVersion?: string | undefined;
  /** Set (to its name) when the file to write is a project file: no literal secret may go into it. */
  projectFile?: string | undefined;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** C0 and C1 controls and DEL: a pasted newline would be saved and break every later request with this profile. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function checkSecret(what: string, value: string): string {
  if (CONTROL.test(value))
    throw new UsageError(`${what} must not contain a newline or other control character`, {
      hint: 'paste the secret alone on one line, without a trailing newline',
    });
  return value;
}

/** The auth types each provider speaks, the usual one first. */
export function authTypesFor(provider: ProviderKind): AuthType[] {
  return [...adapterFor(provider).auth.types];
}

/** The secret field of an auth type: `apikey` → `apikey` / `apikey_env`. */
function secretField(type: AuthType): 'apikey' | 'token' | 'key' | undefined {
  if (type === 'iam' || type === 'cpd' || type === 'zenapikey') return 'apikey';
  if (type === 'bearer') return 'token';
  if (type === 'api-key') return 'key';
  return undefined;
}

const AUTH_LABELS: Record<AuthType, string> = {
  iam: 'iam — IBM Cloud API key',
  cpd: 'cpd — Cloud Pak for Data user and API key',
  zenapikey: 'zenapikey — Cloud Pak for Data ZenApiKey',
  bearer: 'bearer — a bearer token',
  'api-key': 'api-key — an api-key header',
  none: 'none — no credentials',
};

function checkName(name: string): string {
  if (!PROFILE_NAME.test(name))
    throw new UsageError(
      `profile name "${name}": use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  return name;
}

function checkProvider(value: string): ProviderKind {
  const kind = PROVIDER_KINDS.find((k) => k === value);
  if (!kind) throw new UsageError(`--provider must be one of ${PROVIDER_KINDS.join(', ')}, got "${value}"`);
  return kind;
}

/** The same check a saved profile's URL gets when it is used, so `add` never saves one that every later command refuses. */
function urlProblem(value: string): string | undefined {
  const problem = checkBaseUrl(value);
  if (problem === undefined) return undefined;
  return problem.reason ? `${NOT_HTTP_URL}: ${problem.reason}` : NOT_HTTP_URL;
}

function checkEnvName(flag: string, value: string): string {
  if (!ENV_NAME.test(value))
    throw new UsageError(`${flag} must be an environment variable name (letters, digits and _), got "${value}"`);
  return value;
}

/**
 * Builds the profile. `prompter` is given only on a terminal; without it a missing value is a usage error.
 */
export async function draftProfile(
  flags: AddFlags,
  prompter: Prompter | undefined,
): Promise<{ name: string; profile: ProfileConfig }> {
  const envRef = flags.apikeyEnv ?? flags.tokenEnv;
  const literal = flags.apiKey ?? flags.token;
  const given = [
    flags.apikeyEnv !== undefined && '--apikey-env',
    flags.tokenEnv !== undefined && '--token-env',
    flags.apiKey !== undefined && '--api-key',
    flags.token !== undefined && '--token',
  ].filter((f): f is string => f !== false);
  if (given.length > 1)
    throw new UsageError(`${given.join(' and ')} cannot be used together: give the credential one way`);
  if (literal === '') throw new UsageError(`${given[0]} must not be empty`);
  if (literal !== undefined) checkSecret(given[0]!, literal);
  if (literal !== undefined && flags.projectFile !== undefined)
    throw new UsageError(
      `${given[0]} would write a literal secret into ${flags.projectFile}, a project config file, which textgen refuses to load with one`,
      {
        hint: `give ${given[0] === '--token' ? '--token-env' : '--apikey-env'} VAR instead, or drop --config to save it in the user file`,
      },
    );

  if (!prompter) {
    const missing = [
      flags.name === undefined && 'NAME',
      flags.provider === undefined && '--provider',
      flags.url === undefined && '--url',
    ].filter((f): f is string => f !== false);
    if (missing.length > 0)
      throw new UsageError(
        `missing required ${missing.length === 1 ? 'argument' : 'arguments'}: ${missing.join(', ')}`,
        { hint: 'textgen profiles add NAME --provider KIND --url URL [--apikey-env VAR]' },
      );
  }

  const name = checkName(
    flags.name ??
      (await prompter!.text('Profile name:', {
        validate: (v) => PROFILE_NAME.test(v) || 'letters, digits, ".", "_" and "-", starting with a letter or digit',
      })),
  );
  const provider =
    flags.provider !== undefined
      ? checkProvider(flags.provider)
      : await prompter!.select(
          'Provider:',
          PROVIDER_KINDS.map((k) => ({ value: k })),
        );
  let url = flags.url;
  if (url === undefined) url = await prompter!.text('Base URL:', { validate: (v) => urlProblem(v) ?? true });
  const bad = urlProblem(url);
  if (bad) throw new UsageError(`--url ${bad}, got "${url}"`);

  const types = authTypesFor(provider);
  let type: AuthType;
  if (flags.authType !== undefined) {
    const t = types.find((k) => k === flags.authType);
    if (!t)
      throw new UsageError(`--auth-type for ${provider} must be one of ${types.join(', ')}, got "${flags.authType}"`);
    type = t;
  } else if (flags.token !== undefined || flags.tokenEnv !== undefined) type = 'bearer';
  else if (flags.apiKey !== undefined || flags.apikeyEnv !== undefined) {
    // A key is sent the way the provider takes a bare key (OpenAI: Authorization: Bearer; Azure: its api-key header).
    const { bareKey } = adapterFor(provider).auth;
    type = bareKey === 'exchanged' ? (flags.username !== undefined ? 'cpd' : 'iam') : bareKey;
  } else if (prompter)
    type = await prompter.select(
      'Authentication:',
      types.map((t) => ({ value: t, name: AUTH_LABELS[t] })),
    );
  else type = 'none';

  let username = flags.username;
  const needsUser = type === 'cpd' || type === 'zenapikey';
  if (needsUser && username === undefined) {
    if (!prompter)
      throw new UsageError(`missing required option: --username (auth type ${type} needs the Cloud Pak for Data user)`);
    username = await prompter.text('User name:');
  }

  const auth: Record<string, string> = { type };
  if (needsUser) auth.username = username!;
  const field = secretField(type);
  if (field === undefined) {
    if (given.length > 0) throw new UsageError(`${given[0]} has no use with auth type none`);
  } else if (envRef !== undefined) {
    auth[`${field}_env`] = checkEnvName(given[0]!, envRef);
  } else if (literal !== undefined) {
    auth[field] = literal;
  } else if (prompter && flags.projectFile !== undefined) {
    // A project file may name the variable only (the loader refuses a literal secret in it).
    auth[`${field}_env`] = await prompter.text('Variable that holds the secret:', {
      validate: (v) => ENV_NAME.test(v) || 'letters, digits and _',
    });
  } else if (prompter) {
    const how = await prompter.select('Where is the secret kept?', [
      { value: 'env', name: 'in an environment variable (recommended)' },
      { value: 'file', name: 'in the user config file (stored 0600)' },
    ]);
    if (how === 'env')
      auth[`${field}_env`] = await prompter.text('Variable name:', {
        validate: (v) => ENV_NAME.test(v) || 'letters, digits and _',
      });
    else
      auth[field] = checkSecret(
        type === 'bearer' ? 'the token' : 'the API key',
        await prompter.password(type === 'bearer' ? 'Token:' : 'API key:'),
      );
  } else {
    throw new UsageError(
      `missing credentials for auth type ${type}: give --apikey-env VAR or --token-env VAR (or --api-key / --token)`,
    );
  }

  const profile: ProfileConfig = { provider, url: url.replace(/\/+$/, ''), auth: auth as AuthConfig };
  if (flags.apiVersion !== undefined) {
    if (flags.apiVersion === '') throw new UsageError('--api-version must not be empty');
    profile.api_version = flags.apiVersion;
  }
  return { name, profile };
}
