/**
 * The listings of the local completions server: Azure's `GET /openai/deployments?api-version=` (the data-plane
 * authoring operation of 2022-03-01-preview … 2023-03-15-preview: `{data: [{id, model, owner, status,
 * scale_settings, created_at, updated_at, object}], object: "list"}`) and the OpenAI-compatible `GET /v1/models`
 * (`{object: "list", data: [{id, object, created, owned_by}]}`). Credentials and request ids as on completions.
 *
 * Azure's data plane also lists the models the resource can deploy, `GET /openai/models?api-version=` (what the
 * AzureOpenAI SDK's `models.list()` calls) and one of them, `GET /openai/models/{id}`: Azure's own shape
 * (`created_at`, `status`, `lifecycle_status`, `capabilities`, `deprecation`), not OpenAI's `created`/`owned_by`
 * (docs/sdk-fidelity-openai.md).
 */
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { Engine } from '../../../src/emulator/engine/index.js';
import { apiVersionOf, unauthorized } from './access.js';
import { completionsAuthorized } from './auth.js';
import { sendCompletionsError, stampRequestId } from './errors.js';

/** Fixed, so answers are the same every time (2024-05-01T09:00:00Z). */
const CREATED = 1714554000;

/** Deployment id → the model it serves; every one is served by the local engine. */
const AZURE_DEPLOYMENTS: ReadonlyArray<[string, string]> = [
  ['gpt-35-turbo-instruct', 'gpt-35-turbo-instruct'],
  ['davinci-002', 'davinci-002'],
  ['text-embedding-ada-002', 'text-embedding-ada-002'],
];

/** The models an Azure resource can deploy: id → what it can do. */
const AZURE_MODELS: ReadonlyArray<[string, 'completion' | 'embeddings']> = [
  ['gpt-35-turbo-instruct', 'completion'],
  ['davinci-002', 'completion'],
  ['babbage-002', 'completion'],
  ['text-embedding-ada-002', 'embeddings'],
  ['text-embedding-3-small', 'embeddings'],
];

/** Model id → its owner, as OpenAI reports them. */
const OPENAI_MODELS: ReadonlyArray<[string, string]> = [
  ['gpt-3.5-turbo-instruct', 'system'],
  ['davinci-002', 'system'],
  ['babbage-002', 'system'],
  ['text-embedding-ada-002', 'openai-internal'],
  ['text-embedding-3-small', 'system'],
];

/** A list with the engine's served model (a GGUF model) first, when there is one. */
function withServed<T>(engine: Engine, list: readonly T[], served: (name: string) => T): T[] {
  return engine.modelName === undefined ? [...list] : [served(engine.modelName), ...list];
}

function authorized(ctx: RouteContext): boolean {
  stampRequestId(ctx);
  const dialect = ctx.request.path.startsWith('/openai/') ? 'azure' : 'openai';
  if (completionsAuthorized(ctx, dialect)) return true;
  sendCompletionsError(ctx, 401, unauthorized(dialect));
  return false;
}

/** Azure's checks of `api-version` on its listings; answers the 400 itself and returns false when it fails. */
function versionOk(ctx: RouteContext): boolean {
  const version = apiVersionOf(ctx, '2022-12-01');
  if ('date' in version) return true;
  sendCompletionsError(ctx, 400, version.error);
  return false;
}

function azureModel([id, kind]: [string, 'completion' | 'embeddings']): Record<string, unknown> {
  return {
    status: 'succeeded',
    capabilities: {
      fine_tune: false,
      inference: true,
      completion: kind === 'completion',
      chat_completion: false,
      embeddings: kind === 'embeddings',
    },
    lifecycle_status: 'generally-available',
    deprecation: { inference: CREATED + 2 * 365 * 24 * 3600 },
    id,
    created_at: CREATED,
    object: 'model',
  };
}

/**
 * `GET /openai/v1/models`: the models of the resource in OpenAI's list shape (`created`, `owned_by`), with Azure's
 * own fields beside them, as the v1 API answers.
 */
export function azureV1ModelList(engine: Engine): Record<string, unknown>[] {
  const models = withServed(engine, AZURE_MODELS, (name): [string, 'completion'] => [name, 'completion']);
  return models.map((m) => ({ ...azureModel(m), created: CREATED, owned_by: 'system' }));
}

const azureModels: RouteHandler = (ctx) => {
  if (!authorized(ctx) || !versionOk(ctx)) return;
  const models = withServed(ctx.server.engine, AZURE_MODELS, (name): [string, 'completion'] => [name, 'completion']);
  sendJson(ctx.res, 200, { data: models.map(azureModel), object: 'list' });
};

const azureModelById: RouteHandler = (ctx) => {
  if (!authorized(ctx) || !versionOk(ctx)) return;
  const model = withServed(ctx.server.engine, AZURE_MODELS, (name): [string, 'completion'] => [
    name,
    'completion',
  ]).find(([id]) => id === ctx.params.model);
  if (!model)
    return sendCompletionsError(ctx, 404, {
      code: 'ModelNotFound',
      message: `The model '${ctx.params.model}' does not exist.`,
    });
  sendJson(ctx.res, 200, azureModel(model));
};

const azureDeployments: RouteHandler = (ctx) => {
  if (!authorized(ctx) || !versionOk(ctx)) return;
  sendJson(ctx.res, 200, {
    data: withServed(ctx.server.engine, AZURE_DEPLOYMENTS, (name): [string, string] => [name, name]).map(
      ([id, model]) => ({
        scale_settings: { scale_type: 'standard' },
        model,
        owner: 'organization-owner',
        id,
        status: 'succeeded',
        created_at: CREATED,
        updated_at: CREATED,
        object: 'deployment',
      }),
    ),
    object: 'list',
  });
};

const openAiModels: RouteHandler = (ctx) => {
  if (!authorized(ctx)) return;
  sendJson(ctx.res, 200, {
    object: 'list',
    data: withServed(ctx.server.engine, OPENAI_MODELS, (name): [string, string] => [name, 'textgen']).map(
      ([id, owner]) => ({ id, object: 'model', created: CREATED, owned_by: owner }),
    ),
  });
};

export const azureOpenAiModelsProtocol: ProtocolModule = {
  name: 'azure-openai-models',
  prefixes: ['/openai/deployments', '/openai/models', '/v1/models'],
  routes: [
    { method: 'GET', pattern: '/openai/deployments', handler: azureDeployments },
    { method: 'GET', pattern: '/openai/models', handler: azureModels },
    { method: 'GET', pattern: '/openai/models/:model', handler: azureModelById },
    { method: 'GET', pattern: '/v1/models', handler: openAiModels },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
