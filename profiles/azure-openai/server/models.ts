/**
 * The listings of the local completions server: Azure's `GET /openai/deployments?api-version=` (the data-plane
 * authoring operation of 2022-03-01-preview … 2023-03-15-preview: `{data: [{id, model, owner, status,
 * scale_settings, created_at, updated_at, object}], object: "list"}`) and the OpenAI-compatible `GET /v1/models`
 * (`{object: "list", data: [{id, object, created, owned_by}]}`). Credentials and request ids as on completions.
 */
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { completionsAuthorized } from './auth.js';
import { ACCESS_DENIED, sendCompletionsError, stampRequestId } from './errors.js';

const API_VERSION = /^\d{4}-\d{2}-\d{2}(-preview)?$/;
/** Fixed, so answers are the same every time (2024-05-01T09:00:00Z). */
const CREATED = 1714554000;

/** Deployment id → the model it serves; every one is served by the local engine. */
const AZURE_DEPLOYMENTS: ReadonlyArray<[string, string]> = [
  ['gpt-35-turbo-instruct', 'gpt-35-turbo-instruct'],
  ['davinci-002', 'davinci-002'],
  ['text-embedding-ada-002', 'text-embedding-ada-002'],
];

/** Model id → its owner, as OpenAI reports them. */
const OPENAI_MODELS: ReadonlyArray<[string, string]> = [
  ['gpt-3.5-turbo-instruct', 'system'],
  ['davinci-002', 'system'],
  ['babbage-002', 'system'],
  ['text-embedding-ada-002', 'openai-internal'],
  ['text-embedding-3-small', 'system'],
];

function authorized(ctx: RouteContext): boolean {
  stampRequestId(ctx);
  if (completionsAuthorized(ctx)) return true;
  const azure = ctx.request.path.startsWith('/openai/');
  sendCompletionsError(
    ctx,
    401,
    azure
      ? { code: '401', message: ACCESS_DENIED }
      : { code: 'invalid_api_key', message: 'Incorrect or missing API key. Provide it as "Authorization: Bearer <key>".', type: 'invalid_request_error' },
  );
  return false;
}

const azureDeployments: RouteHandler = (ctx) => {
  if (!authorized(ctx)) return;
  const version = ctx.request.query['api-version'];
  if (version === undefined || version === '') {
    return sendCompletionsError(ctx, 400, { code: 'BadRequest', message: 'The api-version query parameter (?api-version=) is required for all requests.', param: 'api-version' });
  }
  if (!API_VERSION.test(version)) {
    return sendCompletionsError(ctx, 400, { code: 'BadRequest', message: `Unsupported api-version '${version}': expected a date such as 2022-12-01.`, param: 'api-version' });
  }
  sendJson(ctx.res, 200, {
    data: AZURE_DEPLOYMENTS.map(([id, model]) => ({
      scale_settings: { scale_type: 'standard' },
      model,
      owner: 'organization-owner',
      id,
      status: 'succeeded',
      created_at: CREATED,
      updated_at: CREATED,
      object: 'deployment',
    })),
    object: 'list',
  });
};

const openAiModels: RouteHandler = (ctx) => {
  if (!authorized(ctx)) return;
  sendJson(ctx.res, 200, { object: 'list', data: OPENAI_MODELS.map(([id, owner]) => ({ id, object: 'model', created: CREATED, owned_by: owner })) });
};

export const azureOpenAiModelsProtocol: ProtocolModule = {
  name: 'azure-openai-models',
  prefixes: ['/openai/deployments', '/v1/models'],
  routes: [
    { method: 'GET', pattern: '/openai/deployments', handler: azureDeployments },
    { method: 'GET', pattern: '/v1/models', handler: openAiModels },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
