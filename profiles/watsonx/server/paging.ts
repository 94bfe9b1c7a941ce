/**
 * Paging as the watsonx listings page: `start` and `limit` (1 to 200, default 100) in the query, and an answer of
 * `{total_count, limit, first: {href}, next?: {href}, resources}` whose links carry the request's other query
 * parameters. The service's `start` is a token it makes up; here it is the offset, which a client that follows
 * `next.href` (as the SDK's pagers do) cannot tell apart.
 */
import type { RouteContext } from '../../../src/emulator/core/router.js';

const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 100;

export type Paging = { start: number; limit: number };

/** The paging of this request, or the message of the 400 it deserves. */
export function readPaging(ctx: RouteContext): Paging | { problem: string } {
  const { start, limit } = ctx.request.query;
  if (start !== undefined && !/^\d+$/.test(start))
    return { problem: `Invalid value '${start}' for query parameter 'start': expected an integer of 0 or more` };
  if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT)) {
    return {
      problem: `Invalid value '${limit}' for query parameter 'limit': expected an integer from 1 to ${MAX_LIMIT}`,
    };
  }
  return { start: start === undefined ? 0 : Number(start), limit: limit === undefined ? DEFAULT_LIMIT : Number(limit) };
}

/** The origin the client used, for absolute links. */
export function origin(ctx: RouteContext): string {
  return `http://${ctx.request.headers.host ?? 'localhost'}`;
}

/** This route again, with the same query but another `start`. */
function pageHref(ctx: RouteContext, start: number, limit: number): string {
  const params = new URLSearchParams(ctx.request.query);
  params.set('start', String(start));
  params.set('limit', String(limit));
  return `${origin(ctx)}${ctx.request.path}?${params}`;
}

export function page(ctx: RouteContext, all: readonly unknown[], { start, limit }: Paging): Record<string, unknown> {
  const body: Record<string, unknown> = { total_count: all.length, limit, first: { href: pageHref(ctx, 0, limit) } };
  if (start + limit < all.length) body.next = { href: pageHref(ctx, start + limit, limit) };
  body.resources = all.slice(start, start + limit);
  return body;
}
