/**
 * What a provider adapter is: everything one wire protocol can do, as one object per provider kind. Code under
 * `src/` and `commands/` reaches providers only through this file (types) and `registry.ts` (the table of adapters);
 * "does this provider support X" is a property here, never a comparison with a provider's name.
 *
 * Each capability is a loader, so choosing a provider imports nothing heavy: the mapping modules of one operation
 * are loaded when that operation runs.
 */
import type { HttpClient } from './http.js';
import type { TokenCache } from './token-cache.js';
import type { AuthType, ChatApi, ProviderKind, ProviderSettings, ResolvedProfile, SettingsSources } from './profile.js';
import type { Authenticator, ErrorDialect, GenerateOperation } from './adapter-operations/generate.js';
import type { ChatOperation } from './adapter-operations/chat.js';
import type { EmbedOperation } from './adapter-operations/embed.js';
import type { HealthOperation } from './adapter-operations/health.js';
import type { ModelsOperation } from './adapter-operations/models.js';
import type { MultimodalPrompts } from './adapter-operations/prompts.js';
import type { TaskName, TaskOperations } from './adapter-operations/tasks.js';
import type { TokenizeOperation } from './adapter-operations/tokenize.js';
import type { RerankOperation } from './adapter-operations/rerank.js';
import type { WxTextOperation } from './adapter-operations/wx-text.js';
import type { WxAiOperations } from './adapter-operations/wx-ai.js';

export type * from './adapter-operations/generate.js';
export type * from './adapter-operations/chat.js';
export type * from './adapter-operations/embed.js';
export type * from './adapter-operations/health.js';
export type * from './adapter-operations/models.js';
export type * from './adapter-operations/prompts.js';
export type * from './adapter-operations/tasks.js';
export type * from './adapter-operations/tokenize.js';
export type * from './adapter-operations/rerank.js';
export type * from './adapter-operations/wx-text.js';
export type * from './adapter-operations/wx-ai.js';

/** Loads one capability's module on first use. */
export type Loader<T> = () => Promise<T>;

export type { AuthType };

export interface AuthenticatorOptions {
  profile: ResolvedProfile;
  http: HttpClient;
  cache: TokenCache;
  now: () => number;
  /** For what the user should hear about their credentials (an expired token the service handed out). */
  warn?: (message: string) => void;
}

/** How a provider's service takes credentials. */
export interface AuthPolicy {
  /** The `auth.type`s `profiles add` offers for this provider, the usual one first. */
  types: readonly AuthType[];
  /** Types a config file may also name, though `profiles add` does not offer them (an `api-key` header). */
  alsoAccepted?: readonly AuthType[];
  /**
   * What a bare key (`--api-key`, `TEXTGEN_API_KEY`) becomes: `exchanged` — a key traded for a token (watsonx: IBM
   * Cloud IAM, or Cloud Pak for Data when the profile names a user); `api-key` — sent in the service's key header;
   * `bearer` — sent as `Authorization: Bearer`.
   */
  bareKey: 'exchanged' | 'api-key' | 'bearer';
  /** A hint for an `auth.type` this provider does not take. */
  otherTypesHint: string;
  create(options: AuthenticatorOptions): Promise<Authenticator>;
}

/** The built-in profile that talks to `textgen serve` in this provider's protocol. */
export interface LocalFlavour {
  /** Its profile name (`local`, `local-azure`, …). */
  profile: string;
  /** The model `complete "…"` uses with no flags. */
  model: string;
  /**
   * The built-in profile's other entries, as a config file would have them (watsonx: its `space_id`; Aleph Alpha:
   * `chat: true`, the embedded server has the chat route). `profiles show` prints them.
   */
  entries?: Readonly<Record<string, string | boolean>>;
}

export interface ProviderAdapter {
  kind: ProviderKind;
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
  auth: AuthPolicy;
  local: LocalFlavour;
  /** The profile's settings only this provider reads (ResolvedProfile.settings); without it, none. */
  settings?(from: SettingsSources): ProviderSettings;
  /** What to say when `complete` has no model (watsonx: deployments are a different command). */
  missingModelHint?: string;
  /**
   * How the service words its error answers, for every operation (src/call/ turns a non-2xx answer into AuthError
   * or ApiError with it): loaded alone, so `models`, `health`, `embed`, … need not load generation to read errors.
   */
  errors: Loader<ErrorDialect>;
  /** Text generation, plain and streamed; its capabilities say which canonical parameters it carries. */
  generate: Loader<GenerateOperation>;
  /** `models`: every provider can list something. */
  models: Loader<ModelsOperation>;
  /** `health`: every provider has a cheap check. */
  health: Loader<HealthOperation>;
  /**
   * `chat`, when the service has a chat API (docs/protocols/chat.md); `api` picks one of `chatApis` (absent: the
   * first).
   */
  chat?: (api?: ChatApi) => Promise<ChatOperation>;
  /** The chat APIs `chat` can call (`api:` in a profile, `chat --api`); absent: chat completions only. */
  chatApis?: readonly ChatApi[];
  /** What `chat` says on a provider without a chat API: where the conversation can go instead. */
  missingChatHint?: string;
  /** `embed`, when the service has an embeddings endpoint. */
  embed?: Loader<EmbedOperation>;
  /** `tokenize`/`detokenize` endpoints; without them the commands tokenize offline with a public encoding. */
  tokenize?: Loader<TokenizeOperation>;
  /** `rerank`, when the service scores texts against a query (watsonx, OpenAI-compatible servers with `/v1/rerank`). */
  rerank?: Loader<RerankOperation>;
  /**
   * The cpdctl `text …` mirror commands (`text generate`, `text chat`, …): the user's body on the service's routes. Only
   * watsonx has them; elsewhere the command says which friendly command to use instead.
   */
  wxText?: Loader<WxTextOperation>;
  /** The Aleph Alpha tasks the service has (`evaluate`, `explain`, `qa`, `summarize`). */
  tasks?: { [T in TaskName]?: Loader<TaskOperations[T]> };
  /** `--image`, `--prompt-json` and `--document`: prompts made of items. */
  prompts?: Loader<MultimodalPrompts>;
  /** cpd-cli's `wx-ai` mirror commands and their scope options (`deployment list|get|chat`, `foundation-model`, …). */
  wxAi?: Loader<WxAiOperations>;
}
