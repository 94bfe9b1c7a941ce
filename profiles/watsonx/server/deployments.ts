/**
 * The `/ml/v4/deployments` routes of `textgen serve`: the listing of a space's or project's deployments (paged,
 * filtered by `serving_name` and `name`) and one deployment by id (the SDK's `getDeployment`), in the SDK's
 * `DeploymentResource` shape. The listing takes the service's filters (`serving_name`, `name`, `asset_id`,
 * `prompt_template_id`, `type`, `state`, `tag.value`) and `conflict=true` (is a serving name taken: 409 or 204). Errors use the `/ml/v4` shape (errors.ts, `sendV4Error`).
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { deploymentDoesNotExist, sendV4Error, v4FaultWording } from './errors.js';
import { deploymentResource, deploymentsOf, type Scope } from './model-catalog.js';
import type { DeploymentFacts } from './catalog-data.js';
import { origin, page, readPaging } from './paging.js';
import { watsonxPrelude } from './prelude.js';

function badArgument(ctx: RouteContext, message: string): void {
  sendV4Error(ctx.res, 400, [{ code: 'invalid_input_argument', message }]);
}

/** The space or project of the request (the project wins, as in generation), or undefined after a 400. */
function scopeOf(ctx: RouteContext): Scope | undefined {
  const { space_id: spaceId, project_id: projectId } = ctx.request.query;
  if (projectId) return { project_id: projectId };
  if (spaceId) return { space_id: spaceId };
  badArgument(ctx, 'Either space_id or project_id has to be provided');
  return undefined;
}

async function answer(ctx: RouteContext, body: unknown): Promise<void> {
  const fault = takeFault(ctx, false, { auxiliary: true });
  if (await applyFault(fault, ctx, v4FaultWording(ctx.res))) return;
  await sendAnswer(ctx, fault, body);
}

/** The deployment types `type=` takes; `prompt_template` asks for the deployments that have one. */
const TYPES = new Set(['prompt_tune', 'foundation_model', 'custom_foundation_model', 'prompt_template']);
const STATES = new Set(['initializing', 'updating', 'ready', 'failed']);

/** Whether a deployment passes the listing's filters (every deployment here is `ready`). */
function passes(d: DeploymentFacts, q: Readonly<Record<string, string>>): boolean {
  const types = q.type === undefined ? [] : q.type.split(/\s*(?:,|\band\b)\s*/).filter((t) => t !== '');
  return (
    (q.serving_name === undefined || d.servingName === q.serving_name) &&
    (q.name === undefined || d.name === q.name) &&
    (q.asset_id === undefined || d.baseModel === q.asset_id) &&
    (q.prompt_template_id === undefined || d.promptTemplate === q.prompt_template_id) &&
    (q.state === undefined || q.state === 'ready') &&
    (q['tag.value'] === undefined || q['tag.value'].split(',').some((t) => d.tags?.includes(t.trim()))) &&
    types.every((t) => (t === 'prompt_template' ? d.promptTemplate !== undefined : d.assetType === t))
  );
}

const list: RouteHandler = async (ctx) => {
  if (!watsonxPrelude(ctx, undefined, 'v4')) return;
  const paging = readPaging(ctx);
  if ('problem' in paging) return badArgument(ctx, paging.problem);
  const scope = scopeOf(ctx);
  if (!scope) return;
  const q = ctx.request.query;
  if (q.state !== undefined && !STATES.has(q.state))
    return badArgument(
      ctx,
      `Invalid value '${q.state}' for query parameter 'state': expected one of ${[...STATES].join(', ')}`,
    );
  const unknownType = q.type?.split(/\s*(?:,|\band\b)\s*/).find((t) => t !== '' && !TYPES.has(t));
  if (unknownType !== undefined)
    return badArgument(
      ctx,
      `Invalid value '${unknownType}' for query parameter 'type': expected one of ${[...TYPES].join(', ')}`,
    );
  const all = deploymentsOf(ctx.server.engine);
  if (q.conflict !== undefined && q.conflict !== 'true' && q.conflict !== 'false')
    return badArgument(ctx, `Invalid value '${q.conflict}' for query parameter 'conflict': expected true or false`);
  if (q.conflict === 'true') {
    // IBM: conflict "cannot be combined with any other parameter except for serving_name". The answer is its
    // status: 409 when the name is taken, 204 when it is free (as IBM's Python SDK reads it).
    const others = Object.keys(q).filter(
      (k) => !['conflict', 'serving_name', 'version', 'space_id', 'project_id'].includes(k),
    );
    if (others.length > 0 || q.serving_name === undefined)
      return badArgument(
        ctx,
        `'conflict' can only be combined with 'serving_name'${others.length > 0 ? `, got ${others.join(', ')}` : ''}`,
      );
    const taken = all.some((d) => d.servingName === q.serving_name);
    const fault = takeFault(ctx, false, { auxiliary: true });
    if (await applyFault(fault, ctx, v4FaultWording(ctx.res))) return;
    if (taken)
      return sendV4Error(ctx.res, 409, [
        {
          code: 'deployment_serving_name_not_unique',
          message: `The serving name '${q.serving_name}' is already in use`,
        },
      ]);
    ctx.res.writeHead(204).end();
    return;
  }
  await answer(
    ctx,
    page(
      ctx,
      all.filter((d) => passes(d, q)).map((d) => deploymentResource(d, scope, origin(ctx))),
      paging,
    ),
  );
};

const getOne: RouteHandler = async (ctx) => {
  if (!watsonxPrelude(ctx, undefined, 'v4')) return;
  const scope = scopeOf(ctx);
  if (!scope) return;
  const id = ctx.params.id ?? '';
  // This route takes the deployment id only; the serving name is for inference URLs.
  const deployment = deploymentsOf(ctx.server.engine).find((d) => d.id === id);
  if (!deployment) return sendV4Error(ctx.res, 404, [deploymentDoesNotExist(id)]);
  await answer(ctx, deploymentResource(deployment, scope, origin(ctx)));
};

export const watsonxDeploymentsProtocol: ProtocolModule = {
  name: 'watsonx-deployments',
  prefixes: ['/ml/v4/'],
  routes: [
    { method: 'GET', pattern: '/ml/v4/deployments', handler: list },
    { method: 'GET', pattern: '/ml/v4/deployments/:id', handler: getOne },
  ],
  sendError(ctx, status, code, message, headers) {
    sendV4Error(ctx.res, status, [{ code, message }], headers);
  },
};
