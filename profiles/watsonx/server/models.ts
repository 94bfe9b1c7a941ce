/**
 * The `/ml/v1` listings of `textgen serve`: `GET /ml/v1/foundation_model_specs` (with `filters` and `tech_preview`)
 * and `GET /ml/v1/foundation_model_tasks`, paged as the service pages (paging.ts). Credentials are checked as on
 * the generation routes, so `health` can prove them here; fault switches apply after the checks (auxiliary routes:
 * their own fault, or a queued one that names their path).
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { sendWatsonxError, watsonxFaultWording } from './errors.js';
import { catalogOf, FOUNDATION_MODEL_TASKS } from './model-catalog.js';
import { page, readPaging, type Paging } from './paging.js';
import { watsonxPrelude } from './prelude.js';
import { parseSpecFilters } from './spec-filters.js';

function badArgument(ctx: RouteContext, message: string): undefined {
  sendWatsonxError(ctx.res, 400, [{ code: 'invalid_input_argument', message }]);
  return undefined;
}

/** Credentials, `version`, `start` and `limit`, checked in the service's order; answers the error itself. */
export function admitListing(ctx: RouteContext): Paging | undefined {
  if (!watsonxPrelude(ctx)) return undefined;
  const paging = readPaging(ctx);
  return 'problem' in paging ? badArgument(ctx, paging.problem) : paging;
}

/** The answer, after the fault switches had their say. */
async function answer(ctx: RouteContext, body: unknown): Promise<void> {
  const fault = takeFault(ctx, false, { auxiliary: true });
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;
  await sendAnswer(ctx, fault, body);
}

const foundationModelSpecs: RouteHandler = async (ctx) => {
  const paging = admitListing(ctx);
  if (!paging) return;
  const { filters, tech_preview: techPreview } = ctx.request.query;
  if (techPreview !== undefined && techPreview !== 'true' && techPreview !== 'false') {
    return void badArgument(
      ctx,
      `Invalid value '${techPreview}' for query parameter 'tech_preview': expected true or false`,
    );
  }
  let models = catalogOf(ctx.server.engine);
  if (filters !== undefined && filters !== '') {
    const parsed = parseSpecFilters(filters);
    if (!parsed.ok) return void badArgument(ctx, parsed.message);
    const today = new Date().toISOString().slice(0, 10);
    models = models.filter((m) => parsed.test(m.facts, today));
  }
  // No local model is a tech preview, so tech_preview=true lists the same models.
  await answer(
    ctx,
    page(
      ctx,
      models.map((m) => m.spec),
      paging,
    ),
  );
};

const foundationModelTasks: RouteHandler = async (ctx) => {
  const paging = admitListing(ctx);
  if (paging) await answer(ctx, page(ctx, FOUNDATION_MODEL_TASKS, paging));
};

export const watsonxModelsProtocol: ProtocolModule = {
  name: 'watsonx-models',
  prefixes: ['/ml/v1/foundation_model_specs', '/ml/v1/foundation_model_tasks'],
  routes: [
    { method: 'GET', pattern: '/ml/v1/foundation_model_specs', handler: foundationModelSpecs },
    { method: 'GET', pattern: '/ml/v1/foundation_model_tasks', handler: foundationModelTasks },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
