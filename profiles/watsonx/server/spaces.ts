/**
 * `GET /v2/spaces` and `GET /v2/projects` of `textgen serve`: the deployment spaces and projects the local service
 * has, listed whole or by `name` (what `--space NAME` / `--project NAME` look up). The two APIs answer in their own
 * shapes: spaces as the watsonx SDK's `SpaceResource` (`metadata.id`, `entity.name`) paged like the `/ml` listings,
 * projects as the Watson Data API does (`metadata.guid`, `total_results`). Neither takes a `version`. Every space and
 * project holds the same deployments (model-catalog.ts), so any of their ids works with the other routes too.
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { authorizeGeneration } from './auth.js';
import { sendWatsonxError, watsonxFaultWording } from './errors.js';
import { origin, page, readPaging } from './paging.js';

interface Container {
  id: string;
  name: string;
  description: string;
}

/** The ids IBM's command reference uses in its examples, so that the examples run here as written. */
export const SPACES: readonly Container[] = [
  { id: '63dc4cf1-252f-424b-b52d-5cdd9814987f', name: 'examples', description: "The space of IBM's examples" },
  { id: '7bccdda4-9752-4f37-868e-891de6c48135', name: 'production', description: 'A deployment space' },
  // Two spaces may share a name: a look-up by that name is ambiguous.
  { id: '0d5e6f4a-1b2c-4d3e-8f90-a1b2c3d4e5f6', name: 'shared', description: 'One of two spaces named shared' },
  { id: '9f8e7d6c-5b4a-4392-8170-fedcba987654', name: 'shared', description: 'The other space named shared' },
];

export const PROJECTS: readonly Container[] = [
  { id: 'a77190a2-f52d-4f2a-be3d-7867b5f46edc', name: 'examples', description: "The project of IBM's examples" },
  { id: '12ac4cf1-252f-424b-b52d-5cdd9814987f', name: 'forecasts', description: 'A project for time series' },
];

const CREATED_AT = '2024-05-01T09:00:00.000Z';

function spaceResource(s: Container, base: string): Record<string, unknown> {
  return {
    metadata: {
      id: s.id,
      url: `${base}/v2/spaces/${s.id}`,
      creator_id: 'IBMid-local',
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
    },
    entity: {
      name: s.name,
      description: s.description,
      scope: { bss_account_id: 'local' },
      status: { state: 'active' },
      stage: { production: false },
      type: 'cpd',
      settings: { folders: { enabled: false } },
    },
  };
}

function projectResource(p: Container, base: string): Record<string, unknown> {
  return {
    metadata: {
      guid: p.id,
      url: `${base}/v2/projects/${p.id}`,
      created_at: CREATED_AT,
      updated_at: CREATED_AT,
      creator_iam_id: 'IBMid-local',
    },
    entity: { name: p.name, description: p.description, public: false, storage: { type: 'assetfiles' } },
  };
}

/** Credentials as on every route; no version (the /v2 APIs take none). False once the 401 is answered. */
function admitted(ctx: RouteContext): boolean {
  const auth = authorizeGeneration(ctx);
  if (auth.ok) return true;
  sendWatsonxError(ctx.res, 401, [{ code: auth.code, message: auth.message }]);
  return false;
}

async function answer(ctx: RouteContext, body: unknown): Promise<void> {
  const fault = takeFault(ctx, false, { auxiliary: true });
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;
  await sendAnswer(ctx, fault, body);
}

function named(all: readonly Container[], ctx: RouteContext): readonly Container[] {
  const { name } = ctx.request.query;
  return name === undefined ? all : all.filter((c) => c.name === name);
}

const spaces: RouteHandler = async (ctx) => {
  if (!admitted(ctx)) return;
  const paging = readPaging(ctx);
  if ('problem' in paging)
    return sendWatsonxError(ctx.res, 400, [{ code: 'invalid_input_argument', message: paging.problem }]);
  const base = origin(ctx);
  await answer(
    ctx,
    page(
      ctx,
      named(SPACES, ctx).map((s) => spaceResource(s, base)),
      paging,
    ),
  );
};

const projects: RouteHandler = async (ctx) => {
  if (!admitted(ctx)) return;
  const base = origin(ctx);
  const chosen = named(PROJECTS, ctx);
  await answer(ctx, { total_results: chosen.length, resources: chosen.map((p) => projectResource(p, base)) });
};

export const watsonxSpacesProtocol: ProtocolModule = {
  name: 'watsonx-spaces',
  prefixes: ['/v2/spaces', '/v2/projects'],
  routes: [
    { method: 'GET', pattern: '/v2/spaces', handler: spaces },
    { method: 'GET', pattern: '/v2/projects', handler: projects },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
