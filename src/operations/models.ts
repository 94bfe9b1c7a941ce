/**
 * `models`: what an endpoint can be asked for — foundation models, deployments, the models a server holds — in one
 * canonical entry shape for every provider. Each provider that can list implements `ModelsOperation` in
 * `profiles/<kind>/models.ts` (pure wire mapping); this module loads it and runs the listing: fallbacks between
 * alternative routes, paging with `next` links (kept on the profile's origin, loops cut), one model's metadata.
 */
import type { ProviderKind, ResolvedProfile } from '../config/types.js';
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import type { HttpRequestSpec } from '../http/types.js';
import { requestJson, type Callee, type JsonAnswer } from '../requests/send.js';

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

/** The canonical key order of a ModelEntry (`-o json` prints keys in this order for every provider). */
export const MODEL_ENTRY_KEYS = [
  'id', 'kind', 'name', 'provider', 'model', 'serving_name', 'status', 'versions', 'platform', 'max_tokens', 'functions', 'description', 'inputs', 'outputs',
] as const satisfies readonly (keyof ModelEntry)[];

/** An entry in canonical key order, without empty fields (undefined, "", [] ). */
export function modelEntry(fields: ModelEntry): ModelEntry {
  const out: Record<string, unknown> = {};
  for (const key of MODEL_ENTRY_KEYS) {
    const value = fields[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out as unknown as ModelEntry;
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
  /** One answer → entries; undefined when the body is not a listing of this provider's shape. `now` dates lifecycles. */
  parsePage(body: unknown, query: ListQuery, now: number): ModelPage | undefined;
  /** `models NAME`: one model's metadata. */
  describe?: {
    request(profile: ResolvedProfile, name: string, version: string | undefined): HttpRequestSpec;
    parse(body: unknown): ModelEntry | undefined;
  };
}

/** Every provider kind can list something, so there is always an operation. */
export async function loadModelsOperation(kind: ProviderKind): Promise<ModelsOperation> {
  switch (kind) {
    case 'watsonx':
      return (await import('../../profiles/watsonx/client/models.js')).watsonxModels;
    case 'azure-openai':
      return (await import('../../profiles/azure-openai/client/models.js')).azureOpenAiModels;
    case 'openai':
      return (await import('../../profiles/azure-openai/client/models.js')).openAiModels;
    case 'aleph-alpha':
      return (await import('../../profiles/aleph-alpha/client/models.js')).alephAlphaModels;
    case 'open-inference':
      return (await import('../../profiles/open-inference/client/models.js')).openInferenceModels;
  }
}

/** A listing: canonical entries and the provider's own items, both in the service's order across pages. */
export interface Listing {
  entries: ModelEntry[];
  raw: unknown[];
}

/** Statuses with which a server says "no such route" rather than "this failed". */
const NO_ROUTE = new Set([404, 405, 501]);

/** A runaway paging loop stops here even when every link is new. */
export const MAX_PAGES = 1000;

function excerpt(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 120 ? `${t.slice(0, 120)}…` : t;
}

function notAListing(callee: Callee, answer: JsonAnswer, what: string): ApiError {
  return new ApiError({ provider: callee.kind, status: answer.status, message: `the answer is not ${what}: ${excerpt(answer.text) || '(empty body)'}` });
}

function describeRoute(spec: HttpRequestSpec): string {
  return `${spec.method} ${new URL(spec.url).pathname}`;
}

/** The first alternative the server has; when it has none, an error that names every route tried. */
async function firstAnswer(ctx: Context, profile: ResolvedProfile, callee: Callee, requests: HttpRequestSpec[]): Promise<{ request: HttpRequestSpec; answer: JsonAnswer }> {
  const missing: string[] = [];
  // listRequests always returns at least one request; the loop ends by returning or throwing.
  for (let i = 0; ; i++) {
    const request = requests[i]!;
    try {
      return { request, answer: await requestJson(ctx, profile, callee, request) };
    } catch (error) {
      if (!(error instanceof ApiError) || !NO_ROUTE.has(error.status) || requests.length === 1) throw error;
      missing.push(`${describeRoute(request)} answered ${error.status}`);
      const next = requests[i + 1];
      if (next === undefined) {
        throw new ApiError(
          { provider: callee.kind, status: error.status, message: `this server has no way to list its models (${missing.join('; ')})` },
          { hint: 'ask for one model by name: textgen models NAME' },
        );
      }
      ctx.reporter.trace(`* ${describeRoute(request)} answered ${error.status}; trying ${describeRoute(next)}`);
    }
  }
}

/**
 * A `next` link → an absolute URL. Relative links resolve against the page that gave them; an absolute link to
 * another origin (a service behind a proxy reporting its inner host name) is moved onto the profile's origin, so
 * credentials only ever go where the user pointed the CLI.
 */
export function resolvePageUrl(href: string, previousUrl: string, profileUrl: string): string {
  const url = new URL(href, previousUrl);
  const origin = new URL(profileUrl).origin;
  return url.origin === origin ? url.toString() : `${origin}${url.pathname}${url.search}`;
}

/** Every page of a listing, in order. */
export async function listModels(ctx: Context, profile: ResolvedProfile, callee: Callee, op: ModelsOperation, query: ListQuery): Promise<Listing> {
  let { request, answer } = await firstAnswer(ctx, profile, callee, op.listRequests(profile, query));
  const listing: Listing = { entries: [], raw: [] };
  const seen = new Set([request.url]);
  for (let pages = 1; ; pages++) {
    const page = op.parsePage(answer.json, query, ctx.now());
    if (page === undefined) throw notAListing(callee, answer, `a list of ${query.scope}`);
    listing.entries.push(...page.entries);
    listing.raw.push(...page.items);
    if (page.next === undefined) return listing;
    let url: string;
    try {
      url = resolvePageUrl(page.next, request.url, profile.url);
    } catch {
      throw notAListing(callee, answer, `a list with a usable next link (${JSON.stringify(page.next)})`);
    }
    if (seen.has(url)) {
      ctx.reporter.warn(`${callee.kind} links back to a page already read (${new URL(url).search || url}); the list may be incomplete`);
      return listing;
    }
    if (pages >= MAX_PAGES) {
      ctx.reporter.warn(`${callee.kind} still had more after ${MAX_PAGES} pages; stopping here, the list is incomplete`);
      return listing;
    }
    seen.add(url);
    request = op.nextRequest ? op.nextRequest(url, request) : { ...request, url };
    answer = await requestJson(ctx, profile, callee, request);
  }
}

/** `models NAME`: one model's metadata, and the provider's own body. */
export async function describeModel(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  describe: NonNullable<ModelsOperation['describe']>,
  name: string,
  version: string | undefined,
): Promise<{ entry: ModelEntry; raw: unknown }> {
  const answer = await requestJson(ctx, profile, callee, describe.request(profile, name, version));
  const entry = describe.parse(answer.json);
  if (entry === undefined) throw notAListing(callee, answer, 'model metadata');
  return { entry, raw: answer.json };
}
