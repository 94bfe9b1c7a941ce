/**
 * The `/ml/v4/deployments` routes of `textgen serve`: the listing of a space's or project's deployments (paged,
 * filtered by `serving_name` and `name`) and one deployment by id (the SDK's `getDeployment`), in the SDK's
 * `DeploymentResource` shape. Errors use the `/ml/v4` shape (errors.ts, `sendV4Error`).
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { deploymentDoesNotExist, sendV4Error, v4FaultWording } from './errors.js';
import { deploymentResource, deploymentsOf, type Scope } from './model-catalog.js';
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

const list: RouteHandler = async (ctx) => {
  if (!watsonxPrelude(ctx, undefined, 'v4')) return;
  const paging = readPaging(ctx);
  if ('problem' in paging) return badArgument(ctx, paging.problem);
  const scope = scopeOf(ctx);
  if (!scope) return;
  const { serving_name: servingName, name } = ctx.request.query;
  const chosen = deploymentsOf(ctx.server.engine).filter(
    (d) => (servingName === undefined || d.servingName === servingName) && (name === undefined || d.name === name),
  );
  await answer(
    ctx,
    page(
      ctx,
      chosen.map((d) => deploymentResource(d, scope, origin(ctx))),
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
