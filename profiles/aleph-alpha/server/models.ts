/**
 * The models the local Aleph Alpha server knows: the Luminous family (and its `-control` variants), plus any name
 * ending in `-local`, for tests and demos that want a name of their own. Anything else is 404 UNKNOWN_MODEL.
 */
import type { Engine } from '../../../src/emulator/engine/index.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { isAuthorized, UNAUTHENTICATED_MESSAGE } from './auth.js';
import { sendAlephAlphaError } from './errors.js';

export const LUMINOUS_MODELS = [
  'luminous-base',
  'luminous-extended',
  'luminous-supreme',
  'luminous-base-control',
  'luminous-extended-control',
  'luminous-supreme-control',
] as const;

/** Luminous: "the sum of input tokens and maximum_tokens may not exceed 2048" (1.16). */
export const LUMINOUS_CONTEXT = 2048;
/** The version reported by GET /version. */
export const API_VERSION = '1.16.1';
/** `model_version` in answers: the local models have no release of their own. */
export const MODEL_VERSION = '2022-04';

export function isKnownModel(engine: Engine, name: string): boolean {
  return (
    name === engine.modelName ||
    (LUMINOUS_MODELS as readonly string[]).includes(name) ||
    (name.endsWith('-local') && name.length > '-local'.length)
  );
}

/** Prompt plus maximum_tokens may not exceed this. The served model and `-local` models get the engine's window. */
export function contextSize(engine: Engine, name: string): number {
  return name === engine.modelName || name.endsWith('-local') ? engine.contextWindow : LUMINOUS_CONTEXT;
}

/** GET /version — plain text, no auth (as the service). */
export function version(ctx: RouteContext): void {
  ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(API_VERSION.length) });
  ctx.res.end(API_VERSION);
}

/** GET /models_available — deprecated in 1.16 but still served. */
export function modelsAvailable(ctx: RouteContext): void {
  if (!isAuthorized(ctx)) return sendAlephAlphaError(ctx.res, 401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
  sendJson(
    ctx.res,
    200,
    [...(ctx.server.engine.modelName === undefined ? [] : [ctx.server.engine.modelName]), ...LUMINOUS_MODELS].map(
      (name) => ({
        name,
        description: `${name}, served by the textgen local engine`,
        hostings: ['aleph-alpha'],
      }),
    ),
  );
}
