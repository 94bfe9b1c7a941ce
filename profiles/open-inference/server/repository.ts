/**
 * The model listings of the local Open Inference server, both the ones real servers offer (the protocol has no
 * standard one): Triton's `POST /v2/repository/index` (body optional, `{"ready": true}` keeps only ready models;
 * answers `[{name, version, state}]`, one row per version) and KServe's `GET /v2/models` (`{models: [name…]}`).
 * The engine serves every name; these are the ones the repository admits to, all ready.
 */
import type { ProtocolModule, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { Engine } from '../../../src/emulator/engine/index.js';
import { authorizeOip } from './auth.js';
import { sendOipError, tagRequestId } from './errors.js';

export const REPOSITORY: ReadonlyArray<{ name: string; version: string; state: 'READY' }> = [
  { name: 'demo', version: '1', state: 'READY' },
  { name: 'ensemble', version: '1', state: 'READY' },
  { name: 'llama-3-8b-instruct', version: '1', state: 'READY' },
  { name: 'llama-3-8b-instruct', version: '2', state: 'READY' },
];

/** The repository, with the engine's served model (a GGUF model) first when there is one. */
function repositoryOf(engine: Engine): ReadonlyArray<{ name: string; version: string; state: 'READY' }> {
  return engine.modelName === undefined
    ? REPOSITORY
    : [{ name: engine.modelName, version: '1', state: 'READY' }, ...REPOSITORY];
}

export const repositoryIndex: RouteHandler = (ctx) => {
  tagRequestId(ctx);
  if (!authorizeOip(ctx)) return;
  const { body } = ctx.request;
  if (body.trim() !== '') {
    const json = ctx.request.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      return sendOipError(ctx.res, 400, 'The request body must be a JSON object');
    const ready = (json as Record<string, unknown>).ready;
    if (ready !== undefined && typeof ready !== 'boolean')
      return sendOipError(ctx.res, 400, "Unexpected type for 'ready': expected a boolean");
  }
  // Every model is ready, so {"ready": true} changes nothing.
  sendJson(
    ctx.res,
    200,
    repositoryOf(ctx.server.engine).map((m) => ({ ...m })),
  );
};

export const kserveModels: RouteHandler = (ctx) => {
  tagRequestId(ctx);
  if (!authorizeOip(ctx)) return;
  sendJson(ctx.res, 200, { models: [...new Set(repositoryOf(ctx.server.engine).map((m) => m.name))] });
};

export const openInferenceRepositoryProtocol: ProtocolModule = {
  name: 'open-inference-repository',
  prefixes: ['/v2/repository'],
  routes: [
    { method: 'POST', pattern: '/v2/repository/index', handler: repositoryIndex },
    { method: 'GET', pattern: '/v2/models', handler: kserveModels },
  ],
  sendError(ctx, status, _code, message, headers) {
    tagRequestId(ctx);
    sendOipError(ctx.res, status, message, headers);
  },
};
