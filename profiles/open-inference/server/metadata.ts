/**
 * The cheap Open Inference routes: server metadata, liveness and readiness, model metadata and model readiness.
 * The local engine serves every model name and version, so each model is ready. Bodies follow KServe (JSON);
 * clients decide by status code alone.
 */
import { packageVersion } from '../../../src/version.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { authorizeOip } from './auth.js';
import { tagRequestId } from './errors.js';
import { DEFAULT_MODEL_VERSION } from './generate.js';

export const SERVER_NAME = 'textgen-local';
const PLATFORM = 'textgen-local';

/** Wraps a handler with the request id and, unless the route is a health probe, the credential check. */
function route(guarded: boolean, answer: (ctx: RouteContext) => unknown): RouteHandler {
  return (ctx) => {
    tagRequestId(ctx);
    if (guarded && !authorizeOip(ctx)) return;
    sendJson(ctx.res, 200, answer(ctx));
  };
}

// Health probes stay open, as orchestrators call them without credentials.
export const serverMetadata = route(true, () => ({
  name: SERVER_NAME,
  version: packageVersion(),
  extensions: ['generate'],
}));
export const serverLive = route(false, () => ({ live: true }));
export const serverReady = route(false, () => ({ ready: true }));

export const modelMetadata = route(true, (ctx) => ({
  name: ctx.params.model,
  versions: [ctx.params.version ?? DEFAULT_MODEL_VERSION],
  platform: PLATFORM,
  inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }],
  outputs: [{ name: 'text_output', datatype: 'BYTES', shape: [-1] }],
}));

export const modelReady = route(true, (ctx) => ({ name: ctx.params.model, ready: true }));
