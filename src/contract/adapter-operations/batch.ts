/**
 * `batch submit|status|wait|results|cancel|list`: what an adapter implements to hand a JSONL file to the service's
 * own batch engine (OpenAI's and Azure OpenAI's `/files` + `/batches`, watsonx.ai's `/ml/v1/files` +
 * `/ml/v1/batches`). Types only. The operation maps; src/call/ sends (credentials, the 401 refresh, errors in the
 * provider's words), and src/batch/provider/ keeps the job (splitting, the state file, results in input order).
 */
import type { HttpRequestSpec } from '../http.js';
import type { ResolvedProfile } from '../profile.js';

/** The kinds of request a batch line can be: the commands `--batch` runs them with (complete, chat, embed). */
export type BatchEndpoint = 'completions' | 'chat' | 'embeddings';

/** The statuses the services share (OpenAI's words; watsonx and Azure use the same). */
export type ProviderBatchStatus =
  | 'validating'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'failed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

export interface BatchRequestCounts {
  total: number;
  completed: number;
  failed: number;
}

/** One batch as the service describes it, read into the fields textgen uses (`raw` is the service's object). */
export interface ProviderBatch {
  id: string;
  status: string;
  endpoint?: string;
  input_file_id?: string;
  output_file_id?: string;
  error_file_id?: string;
  created_at?: number;
  expires_at?: number;
  completed_at?: number;
  request_counts: BatchRequestCounts;
  metadata?: Record<string, string>;
  /** Why the service failed the batch (validation errors), in its words. */
  errors?: string[];
  raw: unknown;
}

export interface ProviderBatchPage {
  batches: ProviderBatch[];
  /** The cursor for the next page (`after`), when there is one. */
  next?: string;
}

/** A line of the provider's input format, as `submit` uploads it. */
export interface ProviderLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

/**
 * The per-call scope some services need, given on the command line over the profile: by the name of the profile
 * entry it stands in for (watsonx: `space_id` or `project_id`), so the core names no provider's field.
 */
export type BatchScope = Readonly<Record<string, string>>;

export interface BatchCreate {
  inputFileId: string;
  endpoint: BatchEndpoint;
  /** `24h`. */
  window: string;
  metadata?: Record<string, string>;
}

/** How one provider's batch service is called. Pure functions over plain objects: no terminal, no sockets. */
export interface BatchOperation {
  /** The most lines and bytes one batch input file may have: a larger input is split. */
  limits: { maxLines: number; maxBytes: number };
  /** The windows the service accepts (`24h`). */
  windows: readonly string[];
  /** The `url` of an input line for this endpoint (`/v1/chat/completions`, Azure `/chat/completions`, …). */
  lineUrl(endpoint: BatchEndpoint, profile: ResolvedProfile): string;
  /** The endpoint a provider line's `url` names, or undefined when this service has no batch for that url. */
  endpointOfUrl(url: string): BatchEndpoint | undefined;
  /**
   * A line's body from the request the adapter's own operation built for it (complete, chat or embed, as `--batch`
   * would send it): what goes in the provider line. `model` is the model or deployment the line runs on.
   */
  lineBody(spec: HttpRequestSpec, endpoint: BatchEndpoint, model: string): Record<string, unknown>;
  /** A multipart upload of the input file (purpose `batch`). */
  upload(profile: ResolvedProfile, scope: BatchScope, filename: string, content: string): HttpRequestSpec;
  /** The uploaded file's id from the upload's answer (UnexpectedAnswer when it has none). */
  parseFileId(body: unknown): string;
  create(profile: ResolvedProfile, scope: BatchScope, batch: BatchCreate): HttpRequestSpec;
  retrieve(profile: ResolvedProfile, scope: BatchScope, id: string): HttpRequestSpec;
  cancel(profile: ResolvedProfile, scope: BatchScope, id: string): HttpRequestSpec;
  list(profile: ResolvedProfile, scope: BatchScope, page: { limit: number; after?: string }): HttpRequestSpec;
  /** A file's content (the output and error files are JSONL). */
  content(profile: ResolvedProfile, scope: BatchScope, fileId: string): HttpRequestSpec;
  /** A batch object (UnexpectedAnswer when it is not one). */
  parseBatch(body: unknown): ProviderBatch;
  parsePage(body: unknown): ProviderBatchPage;
}
