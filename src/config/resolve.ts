/**
 * Turns the loaded config, the environment and the global flags into the one profile a command talks to.
 * Precedence, lowest first (docs/design.md §2): built-in defaults < profile < environment < flags. It is applied here and
 * nowhere else.
 */
import path from 'node:path';
import { AuthError, UsageError } from '../contract/errors.js';
import { servedModelName, type LocalEngineSettings } from '../contract/local-engine.js';
import { adapterFor, allAdapters, kindsWith } from '../../profiles/registry.js';
import { urlPasswords } from '../contract/redact.js';
import { displayPath, homeDir, type LoadedConfig } from './load.js';
import type { AuthConfig, ProfileConfig } from './schema.js';
import { bearerAuth, readSecret, secretsOf, type SecretField } from './secrets.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, MAX_RETRIES } from '../contract/call-defaults.js';
import { NOT_HTTP_URL, urlProblem } from './base-url.js';
import {
  DEFAULT_PROVIDER,
  PROVIDER_KINDS,
  SERVER_PARAMETER_NAMES,
  type ProfileDefaults,
  type ProviderKind,
  type ResolvedAuth,
  type ResolvedProfile,
} from '../contract/profile.js';
import type { GlobalOptions } from '../global-options.js';
import { parseIntegerFlag } from '../options/integer-flag.js';

/**
 * The built-in profiles: the embedded server, spoken to in each protocol (docs/design.md §9), each with a default model
 * so `complete "…"` works with no flags at all.
 */
export const LOCAL_PROFILES: Record<string, ProfileConfig> = Object.fromEntries(
  allAdapters().map(({ kind, local }): [string, ProfileConfig] => [
    local.profile,
    {
      provider: kind,
      // The provider's own entries (a watsonx space, Aleph Alpha's chat route): the config schema checks their types.
      ...(local.entries as Partial<ProfileConfig> | undefined),
      defaults: { model: local.model },
      auth: { type: 'none' },
    },
  ]),
);

export const AD_HOC_PROFILE = '(ad hoc)';
export const DEFAULT_IAM_URL = 'https://iam.cloud.ibm.com/identity/token';

export interface ResolveProfileOptions {
  globals: GlobalOptions;
  env: Record<string, string | undefined>;
  config: LoadedConfig;
  /** Base for a relative --ca-cert; without it the path is passed on as given. */
  cwd?: string;
  /** Told when a project profile's credentials are held back (their URL was overridden); not hidden by -q. */
  alert?: (message: string) => void;
}

/** Configured profile names plus the built-in `local`, sorted. */
export function knownProfileNames(config: LoadedConfig): string[] {
  return [...new Set([...Object.keys(config.profiles), ...Object.keys(LOCAL_PROFILES)])].sort();
}

/** A value and where it came from ("--url", "TEXTGEN_URL", "profiles.wx.url in ~/…"), for messages. */
interface Sourced<T> {
  value: T;
  from: string;
}

function first<T>(...candidates: Array<[T | undefined, string]>): Sourced<T> | undefined {
  for (const [value, from] of candidates) if (value !== undefined) return { value, from };
  return undefined;
}

/** The profile the layers start from, before environment and flags. */
interface Base {
  name: string;
  profile: ProfileConfig | undefined;
  file: string | undefined;
  builtIn: boolean;
  source: string;
}

type Credential = { kind: 'apikey' | 'token'; value: string; envName?: string };

export async function resolveProfile(opts: ResolveProfileOptions): Promise<ResolvedProfile> {
  const { globals, config } = opts;
  // An exported-but-empty variable means "not set", as shells treat it.
  const env = (name: string) => (opts.env[name] === '' ? undefined : opts.env[name]);
  const home = homeDir(opts.env);

  const providerIn = first([globals.provider, '--provider'], [env('TEXTGEN_PROVIDER'), 'TEXTGEN_PROVIDER']);
  const urlIn = first([globals.url, '--url'], [env('TEXTGEN_URL'), 'TEXTGEN_URL']);
  const explicit = first([globals.profile, '--profile'], [env('TEXTGEN_PROFILE'), 'TEXTGEN_PROFILE']);
  // --provider/--url without a named profile mean "this endpoint", not "the default profile, moved".
  const named = explicit ?? (providerIn || urlIn ? undefined : first([config.default_profile, 'default_profile']));

  let base: Base;
  if (named) base = lookUp(named, config, home);
  else if (providerIn || urlIn)
    base = { name: AD_HOC_PROFILE, profile: undefined, file: undefined, builtIn: false, source: 'ad hoc' };
  else throw nothingSelected(config);

  const field = (name: string) =>
    `profiles.${base.name}.${name}${base.file ? ` in ${displayPath(base.file, home)}` : ''}`;
  const p = base.profile;

  const provider = providerIn ? parseProvider(providerIn) : (p?.provider ?? DEFAULT_PROVIDER);

  const urlFrom = urlIn ?? first([p?.url, field('url')]);
  // A built-in local profile, or one that names an engine, is served in-process when no URL is given.
  const embedded = base.builtIn || p?.engine !== undefined;
  let url: string;
  if (urlFrom) url = checkUrl(urlFrom);
  else if (embedded) url = '';
  else if (!p)
    throw new UsageError(
      `${providerIn?.from ?? '--provider'} needs a URL: pass --url (or set TEXTGEN_URL), or pick a profile with --profile`,
    );
  else
    throw new UsageError(`profile "${base.name}" has no url`, {
      hint: `add url: to it${base.file ? ` in ${displayPath(base.file, home)}` : ''}, or pass --url`,
    });

  if (globals.apiVersion === '') throw new UsageError('--api-version must not be empty');
  const apiVersion = first(
    [globals.apiVersion, '--api-version'],
    [env('TEXTGEN_API_VERSION'), 'TEXTGEN_API_VERSION'],
    [p?.api_version, 'profile'],
  )?.value;

  const credential = credentialOverride(globals, env, base.builtIn);
  // A project file's credentials go only to its own URL: a --url or TEXTGEN_URL elsewhere does not get them.
  const heldBack =
    !credential &&
    urlIn &&
    p?.auth &&
    p.auth.type !== 'none' &&
    base.file !== undefined &&
    base.file === config.sources.projectFile
      ? heldBackCredentials(base.name, p, urlIn, displayPath(base.file, home))
      : undefined;
  if (heldBack !== undefined) opts.alert?.(heldBack);
  const auth: ResolvedAuth = credential
    ? authFromCredential(credential, provider, p?.auth, env)
    : heldBack !== undefined
      ? { type: 'none' }
      : globals.replay !== undefined
        ? replayAuth(() => authFromProfile(provider, p?.auth, opts.env, env, base.name))
        : authFromProfile(provider, p?.auth, opts.env, env, base.name);

  const resolved: ResolvedProfile = {
    name: base.name,
    provider,
    url,
    auth,
    tls: { insecure: globals.insecure ?? p?.tls?.insecure ?? false },
    defaults: defaultsOf(p),
    timeoutMs:
      globals.timeout !== undefined ? parseCount(globals.timeout, '--timeout') : (p?.timeout ?? DEFAULT_TIMEOUT_MS),
    retries:
      globals.retries !== undefined
        ? parseCount(globals.retries, '--retries', MAX_RETRIES)
        : (p?.retries ?? DEFAULT_RETRIES),
    // The embedded server is started only when nothing else said where to go.
    local: embedded && url === '',
    // The built-in profiles keep the embedded server's abilities with --url too (a `serve` elsewhere): it takes
    // every extra key and streams in every protocol.
    serverParameters:
      base.builtIn || (embedded && url === '') ? [...SERVER_PARAMETER_NAMES] : [...(p?.server_parameters ?? [])],
    settings: {},
    secrets: [...new Set([...secretsOf(auth), ...urlPasswords(url)])],
    source: base.source,
  };
  if (apiVersion !== undefined) resolved.apiVersion = apiVersion;
  const engine = engineOf(p, base.file, field, home, opts.cwd);
  if (engine && resolved.local) {
    resolved.engine = engine;
    if (engine.kind === 'llama' && resolved.defaults.model === undefined) resolved.defaults.model = engine.modelName;
  }
  // What only the provider reads (a watsonx space, Azure's chat api-version, …) it resolves itself, by the same
  // precedence.
  resolved.settings =
    adapterFor(provider).settings?.({
      entries: p ?? {},
      env,
      apiVersionFlag: globals.apiVersion,
      embedded: base.builtIn || (embedded && url === ''),
      local: resolved.local,
    }) ?? {};
  if (p?.api !== undefined) resolved.chatApi = p.api;
  const caCert = caCertOf(globals.caCert, opts.cwd, p?.tls?.ca_cert, base.file, home);
  if (caCert !== undefined) resolved.tls.caCert = caCert;
  return resolved;
}

/** The line saying a project profile's credentials are not sent, or undefined when the URL is the profile's own. */
function heldBackCredentials(name: string, p: ProfileConfig, urlIn: Sourced<string>, file: string): string | undefined {
  const trim = (u: string) => u.replace(/\/+$/, '');
  if (p.url !== undefined && trim(p.url) === trim(urlIn.value)) return undefined;
  const fields = Object.keys(p.auth ?? {}).filter((k) => k !== 'type' && k !== 'username');
  const what = fields.length > 0 ? ` (${fields.map((k) => `auth.${k}`).join(', ')})` : '';
  return `profile "${name}" from ${file}: its credentials${what} are for ${p.url === undefined ? 'no url of its own' : `its url ${p.url}`}, so they are not sent to the url from ${urlIn.from}; pass --api-key or --token for that url`;
}

function lookUp(named: Sourced<string>, config: LoadedConfig, home: string): Base {
  const name = named.value;
  const profile = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
  if (profile) {
    const file = config.sources.profiles[name];
    return { name, profile, file, builtIn: false, source: file ? displayPath(file, home) : 'config' };
  }
  const local = Object.hasOwn(LOCAL_PROFILES, name) ? LOCAL_PROFILES[name] : undefined;
  if (local) return { name, profile: local, file: undefined, builtIn: true, source: 'built-in' };
  throw new UsageError(
    `unknown profile "${name}" (from ${named.from}); known profiles: ${knownProfileNames(config).join(', ')}`,
    {
      hint: 'create it with "textgen profiles add", or list them with "textgen profiles list"',
    },
  );
}

/** Neither a profile nor a URL was given: on a terminal the CLI offers to create a profile. */
export class NoProfileSelected extends UsageError {}

function nothingSelected(config: LoadedConfig): UsageError {
  const names = Object.keys(config.profiles).sort();
  const configured = names.length > 0 ? ` (configured profiles: ${names.join(', ')})` : '';
  return new NoProfileSelected(
    `no profile selected: use --profile NAME, or --provider KIND --url URL, or create one with "textgen profiles add"${configured}`,
    {
      hint:
        names.length > 0
          ? 'make one the default with "textgen profiles use NAME"'
          : 'try --profile local for the built-in local server',
    },
  );
}

function parseProvider(given: Sourced<string>): ProviderKind {
  const kind = PROVIDER_KINDS.find((k) => k === given.value);
  if (!kind) throw new UsageError(`${given.from} must be one of ${PROVIDER_KINDS.join(', ')}, got "${given.value}"`);
  return kind;
}

function checkUrl(given: Sourced<string>): string {
  const problem = urlProblem(given.value);
  if (problem !== undefined) {
    throw new UsageError(
      `${given.from} ${NOT_HTTP_URL}, got ${JSON.stringify(given.value)}${problem.reason ? `: ${problem.reason}` : ''}`,
    );
  }
  return given.value.replace(/\/+$/, '');
}

/** A count: "not a count" first, then "too many" (the bounds only when it is one). */
function parseCount(value: string, flag: string, max?: number): number {
  const n = parseIntegerFlag(flag, value, { min: 0 });
  return max === undefined ? n : parseIntegerFlag(flag, value, { min: 0, max });
}

/** Flags beat the environment; the built-in local profile ignores ambient credentials meant for real services. */
function credentialOverride(
  globals: GlobalOptions,
  env: (name: string) => string | undefined,
  builtIn: boolean,
): Credential | undefined {
  if (globals.apiKey !== undefined && globals.token !== undefined)
    throw new UsageError('--api-key and --token cannot be used together: give one');
  for (const [value, flag, kind] of [
    [globals.apiKey, '--api-key', 'apikey'],
    [globals.token, '--token', 'token'],
  ] as const) {
    if (value === undefined) continue;
    if (value === '') throw new UsageError(`${flag} must not be empty`);
    return { kind, value };
  }
  if (builtIn) return undefined;
  const apiKey = env('TEXTGEN_API_KEY');
  const token = env('TEXTGEN_TOKEN');
  if (apiKey !== undefined && token !== undefined) {
    throw new UsageError('TEXTGEN_API_KEY and TEXTGEN_TOKEN are both set: unset one, or pass --api-key or --token');
  }
  if (apiKey !== undefined) return { kind: 'apikey', value: apiKey, envName: 'TEXTGEN_API_KEY' };
  if (token !== undefined) return { kind: 'token', value: token, envName: 'TEXTGEN_TOKEN' };
  return undefined;
}

function authFromCredential(
  c: Credential,
  provider: ProviderKind,
  profileAuth: AuthConfig | undefined,
  env: (name: string) => string | undefined,
): ResolvedAuth {
  if (c.kind === 'token') return bearerAuth(c.value, c.envName);
  const { bareKey } = adapterFor(provider).auth;
  if (bareKey === 'exchanged') {
    // On Cloud Pak for Data the key belongs to the profile's user; anywhere else a bare key means IBM Cloud IAM.
    if (profileAuth?.type === 'cpd') return { type: 'cpd', username: profileAuth.username, apikey: c.value };
    if (profileAuth?.type === 'zenapikey')
      return { type: 'zenapikey', username: profileAuth.username, apikey: c.value };
    return { type: 'iam', apikey: c.value, iamUrl: iamUrlOf(profileAuth, env) };
  }
  if (bareKey === 'api-key')
    return c.envName ? { type: 'api-key', key: c.value, keyEnv: c.envName } : { type: 'api-key', key: c.value };
  return bearerAuth(c.value, c.envName);
}

/**
 * Under --replay nothing is sent, so a credential the environment lacks (CI keeps no keys) is no error: the profile
 * resolves without it (docs/cassettes.md). One that is there is still known, and masked.
 */
function replayAuth(resolve: () => ResolvedAuth): ResolvedAuth {
  try {
    return resolve();
  } catch (e) {
    if (e instanceof AuthError) return { type: 'none' };
    throw e;
  }
}

function authFromProfile(
  provider: ProviderKind,
  auth: AuthConfig | undefined,
  rawEnv: Record<string, string | undefined>,
  env: (name: string) => string | undefined,
  name: string,
): ResolvedAuth {
  if (auth === undefined || auth.type === 'none') return { type: 'none' };
  const policy = adapterFor(provider).auth;
  if (!policy.types.includes(auth.type) && !policy.alsoAccepted?.includes(auth.type)) {
    if (auth.type === 'api-key')
      throw new UsageError(`profile "${name}": ${provider} takes no api-key header`, { hint: policy.otherTypesHint });
    const owners = kindsWith((adapter) => adapter.auth.types.includes(auth.type)).join(', ');
    throw new UsageError(`profile "${name}": auth type ${auth.type} is for ${owners}, not ${provider}`, {
      hint: policy.otherTypesHint,
    });
  }
  const secret = (field: SecretField) => {
    const value = readSecret(auth, field, rawEnv, name);
    if (value === undefined)
      throw new UsageError(`profile "${name}": auth type ${auth.type} needs ${field}_env or ${field}`);
    return value;
  };
  switch (auth.type) {
    case 'iam':
      return { type: 'iam', apikey: secret('apikey'), iamUrl: iamUrlOf(auth, env) };
    case 'cpd': {
      const hasKey = auth.apikey !== undefined || auth.apikey_env !== undefined;
      return hasKey
        ? { type: 'cpd', username: auth.username, apikey: secret('apikey') }
        : { type: 'cpd', username: auth.username, password: secret('password') };
    }
    case 'zenapikey':
      return { type: 'zenapikey', username: auth.username, apikey: secret('apikey') };
    case 'bearer':
      return bearerAuth(secret('token'), auth.token_env);
    case 'api-key':
      return auth.key_env
        ? { type: 'api-key', key: secret('key'), keyEnv: auth.key_env }
        : { type: 'api-key', key: secret('key') };
  }
}

function iamUrlOf(auth: AuthConfig | undefined, env: (name: string) => string | undefined): string {
  const fromEnv = env('TEXTGEN_IAM_URL');
  if (fromEnv !== undefined) return checkUrl({ value: fromEnv, from: 'TEXTGEN_IAM_URL' });
  return auth?.type === 'iam' && auth.iam_url !== undefined ? auth.iam_url : DEFAULT_IAM_URL;
}

function defaultsOf(p: ProfileConfig | undefined): ProfileDefaults {
  const defaults: ProfileDefaults = {};
  if (p?.defaults?.model !== undefined) defaults.model = p.defaults.model;
  if (p?.defaults?.hosting !== undefined) defaults.hosting = p.defaults.hosting;
  // Only checked to be an object here; the options layer validates the fields and their ranges.
  if (p?.defaults?.parameters !== undefined)
    defaults.parameters = p.defaults.parameters as ProfileDefaults['parameters'];
  return defaults;
}

/** A profile's `engine:` settings; the llama engine needs model_path, which is relative to the profile's file. */
function engineOf(
  p: ProfileConfig | undefined,
  file: string | undefined,
  field: (name: string) => string,
  home: string,
  cwd: string | undefined,
): LocalEngineSettings | undefined {
  if (p?.engine === undefined) {
    const stray = (['model_path', 'model_name', 'threads', 'context_size', 'gpu', 'parallel'] as const).find(
      (k) => p?.[k] !== undefined,
    );
    if (stray) throw new UsageError(`${field(stray)} needs engine: llama in the same profile`);
    return undefined;
  }
  if (p.engine === 'deterministic') return { kind: 'deterministic' };
  if (p.model_path === undefined)
    throw new UsageError(`${field('model_path')} is missing: engine: llama needs the GGUF model file`);
  const given = p.model_path === '~' || p.model_path.startsWith('~/') ? home + p.model_path.slice(1) : p.model_path;
  const modelPath = path.resolve(file ? path.dirname(file) : (cwd ?? ''), given);
  return {
    kind: 'llama',
    modelPath,
    modelName: p.model_name ?? servedModelName(modelPath),
    threads: p.threads,
    contextSize: p.context_size,
    gpu: p.gpu,
    parallel: p.parallel,
  };
}

/** A flag path is relative to where the command runs; a profile path to the file that holds it. */
function caCertOf(
  flag: string | undefined,
  cwd: string | undefined,
  fromProfile: string | undefined,
  file: string | undefined,
  home: string,
): string | undefined {
  if (flag !== undefined) return cwd !== undefined ? path.resolve(cwd, flag) : flag;
  if (fromProfile === undefined) return undefined;
  if (fromProfile === '~' || fromProfile.startsWith('~/')) return path.join(home, fromProfile.slice(1));
  return file !== undefined ? path.resolve(path.dirname(file), fromProfile) : fromProfile;
}
