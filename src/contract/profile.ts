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
  spaceId?: string;
  projectId?: string;
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
  /** Aleph Alpha: the server streams (API 1.19+). Other providers ignore it. */
  streaming: boolean;
  /** Aleph Alpha: the server has the chat route (`chat: true`). Other providers ignore it. */
  chat?: boolean;
  /** The profile's `api:` — which chat API `chat` calls; absent: the provider's first (chat completions). */
  chatApi?: ChatApi;
  /** The `api-version` of chat requests: --api-version, TEXTGEN_API_VERSION or the profile's chat_api_version. */
  chatApiVersion?: string;
  /** Every secret value in play, for redaction. */
  secrets: string[];
  /** Where the profile came from, for messages ("~/.config/textgen/config.yaml", "built-in"). */
  source: string;
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
