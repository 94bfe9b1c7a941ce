import type { CanonicalParameters } from './canonical.js';
import type { LocalEngineSettings } from './local-engine.js';

export type ProviderKind = 'watsonx' | 'azure-openai' | 'openai' | 'aleph-alpha' | 'open-inference';
export const PROVIDER_KINDS: readonly ProviderKind[] = [
  'watsonx',
  'azure-openai',
  'openai',
  'aleph-alpha',
  'open-inference',
];
export const AUTH_TYPES = ['iam', 'cpd', 'zenapikey', 'bearer', 'api-key', 'none'] as const;
/** What a profile's `auth.type` may be; which of them a provider takes is its adapter's `auth` policy. */
export type AuthType = (typeof AUTH_TYPES)[number];

/** Which chat API a profile's `chat` calls (`api:` in the profile, `chat --api`): where a provider has both. */
export const CHAT_APIS = ['chat-completions', 'responses'] as const;
export type ChatApi = (typeof CHAT_APIS)[number];

/** The provider of a profile that names none: the CLI mirrors cpd-cli, a watsonx client. */
export const DEFAULT_PROVIDER: ProviderKind = 'watsonx';

/** Credentials after secrets have been read from the environment or the user file. */
export type ResolvedAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string /** The variable it came from, for --dry-run placeholders. */; tokenEnv?: string }
  | { type: 'iam'; apikey: string; iamUrl: string }
  | { type: 'cpd'; username: string; apikey?: string; password?: string }
  | { type: 'zenapikey'; username: string; apikey: string }
  | { type: 'api-key'; key: string /** The variable it came from, for --dry-run placeholders. */; keyEnv?: string };

export interface ProfileDefaults {
  model?: string;
  hosting?: string;
  parameters?: CanonicalParameters;
}

/**
 * A user's profile after precedence has been applied (built-in defaults < profile < environment < flags).
 * Everything a command and a provider profile need to talk to one endpoint.
 */
export interface ResolvedProfile {
  /** Profile name, or "(ad hoc)" when made from --provider/--url alone. */
  name: string;
  provider: ProviderKind;
  /** Base URL without a trailing slash. */
  url: string;
  apiVersion?: string;
  auth: ResolvedAuth;
  tls: { caCert?: string; insecure: boolean };
  defaults: ProfileDefaults;
  timeoutMs: number;
  retries: number;
  /** True for the built-in `local` profiles, and profiles with an `engine`: the embedded server is started in-process. */
  local: boolean;
  /** The engine the embedded server runs (a profile's `engine:` settings); absent: the deterministic engine. */
  engine?: LocalEngineSettings;
  /** Canonical parameter names the server accepts as extra keys (Open Inference: top_k, random_seed, …). */
  serverParameters: string[];
  /** What only this profile's provider reads, resolved by its adapter (ProviderAdapter.settings); see ProviderSettings. */
  settings: ProviderSettings;
  /** The profile's `api:` — which chat API `chat` calls (the adapter lists its `chatApis`); absent: the first. */
  chatApi?: ChatApi;
  /** Every secret value in play, for redaction. */
  secrets: string[];
  /** Where the profile came from, for messages ("~/.config/textgen/config.yaml", "built-in"). */
  source: string;
}

/**
 * What only one provider reads — watsonx's space and project, Azure's chat api-version, Aleph Alpha's `streaming` and
 * `chat` switches: resolved by that provider's adapter (ProviderAdapter.settings) from the profile's own entries, the
 * environment and --api-version, and read back by that provider's client through its typed view
 * (profiles/<kind>/settings.ts). The core carries it unread, so it names no provider's field.
 */
export type ProviderSettings = Readonly<Record<string, string | boolean | undefined>>;

/** What a provider's settings are resolved from; the precedence (environment and flags over the profile) is theirs. */
export interface SettingsSources {
  /** The profile's entries as the config file has them (`space_id`, `chat_api_version`, …); empty when ad hoc. */
  entries: Readonly<Record<string, unknown>>;
  /** An environment variable; one exported but empty is unset. */
  env(name: string): string | undefined;
  /** --api-version, when given. */
  apiVersionFlag: string | undefined;
  /** The profile has the embedded server's abilities (a built-in profile, or an engine served in-process). */
  embedded: boolean;
  /** The profile is served in-process (ResolvedProfile.local). */
  local: boolean;
}

/** Canonical parameters a server may accept as extra keys (docs/design.md §3, cells marked *). */
export const SERVER_PARAMETER_NAMES = [
  'include_stop_sequence',
  'min_new_tokens',
  'top_k',
  'random_seed',
  'repetition_penalty',
  'typical_p',
  'truncate_input_tokens',
  'length_penalty',
  'token_ranks',
  'moderations',
] as const;
