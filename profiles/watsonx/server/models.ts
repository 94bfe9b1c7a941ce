/**
 * The watsonx listings of `textgen serve`: `GET /ml/v1/foundation_model_specs` and `GET /ml/v4/deployments`, paged
 * as the service pages (`start`, `limit` up to 200, default 100, `first`/`next` links carrying the other query
 * parameters). Credentials are checked as on the generation routes, so `health` can prove them here.
 */
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { sendWatsonxError } from './errors.js';
import { deploymentResources, FOUNDATION_MODEL_SPECS } from './model-catalog.js';
import { watsonxPrelude } from './prelude.js';

const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 100;

type Paging = { start: number; limit: number };

function badArgument(ctx: RouteContext, message: string): undefined {
  sendWatsonxError(ctx.res, 400, [{ code: 'invalid_input_argument', message }]);
  return undefined;
}

/** Credentials, `version`, `start` and `limit`, checked in the service's order; answers the error itself. */
function admit(ctx: RouteContext): Paging | undefined {
  if (!watsonxPrelude(ctx)) return undefined;
  const { start, limit } = ctx.request.query;
  if (start !== undefined && !/^\d+$/.test(start)) return badArgument(ctx, `Invalid value '${start}' for query parameter 'start': expected an integer of 0 or more`);
  if (limit !== undefined && !(/^\d+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_LIMIT)) {
    return badArgument(ctx, `Invalid value '${limit}' for query parameter 'limit': expected an integer from 1 to ${MAX_LIMIT}`);
  }
  return { start: start === undefined ? 0 : Number(start), limit: limit === undefined ? DEFAULT_LIMIT : Number(limit) };
}

/** This route again, on the host the client used, with the same query but another `start`. */
function pageHref(ctx: RouteContext, start: number, limit: number): string {
  const params = new URLSearchParams(ctx.request.query);
  params.set('start', String(start));
  params.set('limit', String(limit));
  return `http://${ctx.request.headers.host ?? 'localhost'}${ctx.request.path}?${params}`;
}

function sendPage(ctx: RouteContext, all: readonly unknown[], { start, limit }: Paging): void {
  const body: Record<string, unknown> = { total_count: all.length, limit, first: { href: pageHref(ctx, 0, limit) } };
  if (start + limit < all.length) body.next = { href: pageHref(ctx, start + limit, limit) };
  body.resources = all.slice(start, start + limit);
  sendJson(ctx.res, 200, body);
}

const foundationModelSpecs: RouteHandler = (ctx) => {
  const paging = admit(ctx);
  if (paging) sendPage(ctx, FOUNDATION_MODEL_SPECS, paging);
};

const deployments: RouteHandler = (ctx) => {
  const paging = admit(ctx);
  if (!paging) return;
  const { space_id: spaceId, project_id: projectId } = ctx.request.query;
  if (!spaceId && !projectId) return void badArgument(ctx, 'Either space_id or project_id has to be provided');
  sendPage(ctx, deploymentResources(projectId ? { project_id: projectId } : { space_id: spaceId! }), paging);
};

export const watsonxModelsProtocol: ProtocolModule = {
  name: 'watsonx-models',
  prefixes: ['/ml/v1/foundation_model_specs', '/ml/v4/'],
  routes: [
    { method: 'GET', pattern: '/ml/v1/foundation_model_specs', handler: foundationModelSpecs },
    { method: 'GET', pattern: '/ml/v4/deployments', handler: deployments },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
