/** `models`: what an adapter implements to list (and describe) models and deployments. Types only. */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

export type ModelKind = 'model' | 'deployment';

/** A tensor of Open Inference model metadata. */
export interface TensorSpec {
  name: string;
  datatype: string;
  shape: number[];
}

/**
 * One model or deployment, the same for every provider (`-o json`). Only these fields: the provider's own items,
 * unknown fields included, are what `--raw` prints.
 */
export interface ModelEntry {
  /** What to pass to `--model` or `--id-or-name`. */
  id: string;
  kind: ModelKind;
  /** A label, when the service has one that differs from the id. */
  name?: string;
  /** Who made or owns the model (watsonx `provider`, OpenAI `owned_by`). */
  provider?: string;
  /** A deployment's model. */
  model?: string;
  /** A watsonx deployment's serving name (also accepted by `--id-or-name`). */
  serving_name?: string;
  /** Lifecycle or readiness in the service's words ("available", "deprecated", "ready", "succeeded", "READY"). */
  status?: string;
  versions?: string[];
  /** The Open Inference backend ("tensorrt_llm", "onnxruntime_onnx"). */
  platform?: string;
  /** Context window: prompt plus generated tokens. */
  max_tokens?: number;
  /** What the model can do (watsonx function ids: "text_generation", "embedding", …). */
  functions?: string[];
  description?: string;
  inputs?: TensorSpec[];
  outputs?: TensorSpec[];
}

export type ModelsScope = 'models' | 'deployments';

export interface ListQuery {
  scope: ModelsScope;
  /** Items per page, for the providers that page (`--page-size`). */
  pageSize?: number;
}

/** One answer of a listing, read. */
export interface ModelPage {
  entries: ModelEntry[];
  /** The provider's own items on this page, in order, for `--raw`. */
  items: unknown[];
  /** The next page's link as the service wrote it (absolute or relative); absent on the last page. */
  next?: string;
}

/** How one provider lists (and, optionally, describes) models. Pure functions over plain objects. */
export interface ModelsOperation {
  /** What `models` lists; the first is the default, `--deployments` asks for "deployments". */
  scopes: readonly ModelsScope[];
  /** Set when the listing pages: the largest page the service gives, and the top of `--page-size`. */
  maxPageSize?: number;
  /**
   * The first page's request. Several are alternatives tried in order while the server answers that it has no
   * such route (404, 405, 501): servers of one protocol do not agree on a list call.
   */
  listRequests(profile: ResolvedProfile, query: ListQuery): HttpRequestSpec[];
  /** The request for a `next` link (already absolute, on the profile's origin); default: the same request there. */
  nextRequest?(url: string, previous: HttpRequestSpec): HttpRequestSpec;
  /**
   * One answer → entries. A body that is not a listing of this provider's shape: an UnexpectedAnswer naming the field
   * that is missing (src/contract/errors.ts), or undefined. `now` dates lifecycles.
   */
  parsePage(body: unknown, query: ListQuery, now: number): ModelPage | undefined;
  /** `models NAME`: one model's metadata. */
  describe?: {
    request(profile: ResolvedProfile, name: string, version: string | undefined): HttpRequestSpec;
    parse(body: unknown): ModelEntry | undefined;
  };
}
