/**
 * `models`: what an endpoint can be asked for — foundation models, deployments, the models a server holds — in one
 * canonical entry shape for every provider. Each provider that can list implements `ModelsOperation` in
 * `profiles/<kind>/client/models.ts` (pure wire mapping); this module loads it and runs the listing: fallbacks between
 * alternative routes, paging with `next` links (kept on the profile's origin, loops cut), one model's metadata.
 */
import type { ProviderKind, ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { ApiError, UnexpectedAnswer } from '../contract/errors.js';
import type { HttpRequestSpec } from '../contract/http.js';
import { requestJson, type Callee, type JsonAnswer } from '../call/send.js';
import { readAnswer } from '../call/answer.js';
import { adapterFor } from '../../profiles/registry.js';
import type { ModelEntry, ModelsOperation, ListQuery } from '../contract/adapter.js';

/** Every provider kind can list something, so there is always an operation. */
export async function loadModelsOperation(kind: ProviderKind): Promise<ModelsOperation> {
  return adapterFor(kind).models();
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

function notAListing(_callee: Callee, answer: JsonAnswer, what: string): UnexpectedAnswer {
  return new UnexpectedAnswer(`the answer is not ${what}`, answer.context);
}

function describeRoute(spec: HttpRequestSpec): string {
  return `${spec.method} ${new URL(spec.url).pathname}`;
}

/** The first alternative the server has; when it has none, an error that names every route tried. */
async function firstAnswer(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  requests: HttpRequestSpec[],
): Promise<{ request: HttpRequestSpec; answer: JsonAnswer }> {
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
          {
            provider: callee.kind,
            status: error.status,
            message: `this server has no way to list its models (${missing.join('; ')})`,
          },
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
export async function listModels(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  op: ModelsOperation,
  query: ListQuery,
): Promise<Listing> {
  let { request, answer } = await firstAnswer(ctx, profile, callee, op.listRequests(profile, query));
  const listing: Listing = { entries: [], raw: [] };
  const seen = new Set([request.url]);
  for (let pages = 1; ; pages++) {
    const { context } = answer;
    const page = readAnswer(() => op.parsePage(answer.json, query, ctx.now()), context);
    if (page === undefined) throw notAListing(callee, answer, `a list of ${query.scope}`);
    if (page.entries.length === 0 && page.items.length > 0) {
      throw new UnexpectedAnswer(`none of the ${page.items.length} items listed has an id or name`, context);
    }
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
      ctx.reporter.warn(
        `${callee.kind} links back to a page already read (${new URL(url).search || url}); the list may be incomplete`,
      );
      return listing;
    }
    if (pages >= MAX_PAGES) {
      ctx.reporter.warn(
        `${callee.kind} still had more after ${MAX_PAGES} pages; stopping here, the list is incomplete`,
      );
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
  const entry = readAnswer(() => describe.parse(answer.json), answer.context);
  if (entry === undefined) throw notAListing(callee, answer, 'model metadata');
  return { entry, raw: answer.json };
}
