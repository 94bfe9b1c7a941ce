/**
 * The opening of the watsonx routes that take a `model_id` and one function of it (embeddings, rerank, time-series
 * forecast): the body checked (up to 10 problems, as the service lists them), the model looked up (404 when the
 * catalog has none), and the function it must have (400). Each answer is the service's error; undefined means sent.
 */
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { modelNoSupportForFunction, modelNotSupported, sendWatsonxError } from './errors.js';
import type { ModelFacts, ModelFunction } from './catalog-data.js';
import { findModel, hasFunction } from './model-catalog.js';

const PREFIX = 'Json document validation error: ';

type BodyCheck<B> = { ok: true; body: B } | { ok: false; problems: string[] };

export function bodyAndModel<B extends { model_id: string }>(
  ctx: RouteContext,
  check: BodyCheck<B>,
  endpoint: string,
  fn: ModelFunction,
): { body: B; model: ModelFacts } | undefined {
  if (!check.ok) {
    sendWatsonxError(
      ctx.res,
      400,
      check.problems.slice(0, 10).map((p) => ({ code: 'json_validation_error', message: PREFIX + p })),
    );
    return undefined;
  }
  const body = check.body;
  const model = findModel(body.model_id, ctx.server.engine);
  if (!model) {
    sendWatsonxError(ctx.res, 404, [modelNotSupported(body.model_id, endpoint)]);
    return undefined;
  }
  if (!hasFunction(model, fn)) {
    sendWatsonxError(ctx.res, 400, [modelNoSupportForFunction(body.model_id, fn)]);
    return undefined;
  }
  return { body, model };
}
