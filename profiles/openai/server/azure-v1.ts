/**
 * Azure OpenAI's v1 API in `serve`: `/openai/v1/chat/completions`, `/openai/v1/completions`,
 * `/openai/v1/embeddings` and `/openai/v1/models` (the responses routes are in responses.ts). The model in the body
 * is the deployment name; each route is Azure's deployment route itself, run with that deployment, so the answers,
 * errors and content filter are Azure's (azure-v1-access.ts says which api-version values the v1 API takes).
 */
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { azureV1Access } from './azure-v1-access.js';
import { azureV1ModelList } from './models.js';
import { sendCompletionsError } from './errors.js';

/**
 * The dated version the deployment routes are run with: the v1 API has the features of the newest GA version
 * (this one when the emulator was written), and the deployment routes want a date.
 */
const V1_AS_DATED_VERSION = '2024-10-21';

/** `inner` (a `/openai/deployments/:deployment/…` handler) with the deployment from the body's `model`. */
function withDeploymentFromBody(inner: RouteHandler): RouteHandler {
  return (ctx: RouteContext) => {
    if (!azureV1Access(ctx)) return;
    const json = 'json' in ctx.request ? ctx.request.json : undefined;
    // A body that is not JSON is the inner route's 400; a JSON body without a model is Azure's.
    if ('json' in ctx.request && !(isRecord(json) && typeof json.model === 'string' && json.model !== ''))
      return sendCompletionsError(ctx, 400, {
        code: 'BadRequest',
        message: "Missing required parameter: 'model' (the v1 API takes the deployment name there).",
        param: 'model',
      });
    const deployment = isRecord(json) && typeof json.model === 'string' ? json.model : '';
    return inner({
      ...ctx,
      params: { ...ctx.params, deployment },
      request: { ...ctx.request, query: { ...ctx.request.query, 'api-version': V1_AS_DATED_VERSION } },
    });
  };
}

const models: RouteHandler = (ctx) => {
  if (!azureV1Access(ctx)) return;
  sendJson(ctx.res, 200, { object: 'list', data: azureV1ModelList(ctx.server.engine) });
};

/** The v1 routes; the handlers are the deployment routes of the modules `azureOpenAiEmulator` registers. */
export function azureV1Protocol(deploymentRoutes: ProtocolModule[]): ProtocolModule {
  const handler = (pattern: string): RouteHandler => {
    for (const m of deploymentRoutes)
      for (const r of m.routes)
        if (r.method === 'POST' && r.pattern === pattern) return withDeploymentFromBody(r.handler);
    throw new Error(`no route ${pattern} to serve the Azure v1 API with`);
  };
  return {
    name: 'azure-openai-v1',
    prefixes: ['/openai/v1/'],
    routes: [
      {
        method: 'POST',
        pattern: '/openai/v1/chat/completions',
        handler: handler('/openai/deployments/:deployment/chat/completions'),
      },
      {
        method: 'POST',
        pattern: '/openai/v1/completions',
        handler: handler('/openai/deployments/:deployment/completions'),
      },
      {
        method: 'POST',
        pattern: '/openai/v1/embeddings',
        handler: handler('/openai/deployments/:deployment/embeddings'),
      },
      { method: 'GET', pattern: '/openai/v1/models', handler: models },
    ],
    sendError(ctx, status, code, message, headers) {
      sendCompletionsError(ctx, status, { code, message }, headers);
    },
  };
}
