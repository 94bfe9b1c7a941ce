/**
 * The requests of the `wx-ai` mirror commands (docs/protocols/watsonx.md): deployments (`/ml/v4/deployments`), the foundation model catalog, time-series forecasts, and the look-up of a
 * space or project by name (`/v2/spaces`, `/v2/projects`) that `--space NAME` / `--project NAME` make. Every `/ml/`
 * call carries `version`; the `/v2/` ones take none.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import type { WxAiCall, WxAiOperations, WxScope, WxScopeKind } from '../../../src/contract/adapter.js';
import { fieldAt, isRecord, textOf } from '../../../src/contract/wire-fields.js';
import { pathSegment } from '../../common/path-segment.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxSettings, type WatsonxSettings } from '../settings.js';

/** Query parameters every page of a listing needs; a `next` link without them gets them from the page before. */
const CARRIED = ['version', 'space_id', 'project_id'] as const;

function profileScope(profile: ResolvedProfile): WxScope {
  const { projectId, spaceId, bothScopes } = watsonxSettings(profile);
  // Both only when the scope options gave both (IBM's examples do); a profile with both means its project.
  if (bothScopes && projectId && spaceId) return { space_id: spaceId, project_id: projectId };
  if (projectId) return { project_id: projectId };
  if (spaceId) return { space_id: spaceId };
  return {};
}

function withScope(profile: ResolvedProfile, scope: WxScope): ResolvedProfile {
  const settings: WatsonxSettings = { ...watsonxSettings(profile) };
  delete settings.spaceId;
  delete settings.projectId;
  delete settings.bothScopes;
  if (scope.space_id !== undefined) settings.spaceId = scope.space_id;
  if (scope.project_id !== undefined) settings.projectId = scope.project_id;
  if (scope.space_id !== undefined && scope.project_id !== undefined) settings.bothScopes = true;
  return { ...profile, settings };
}

function url(profile: ResolvedProfile, path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const text = params.toString();
  return `${profile.url}${path}${text === '' ? '' : `?${text}`}`;
}

function version(profile: ResolvedProfile): string {
  return profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
}

function get(address: string): HttpRequestSpec {
  return { method: 'GET', url: address, headers: { accept: 'application/json' } };
}

function post(address: string, body: unknown): HttpRequestSpec {
  return {
    method: 'POST',
    url: address,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

function request(profile: ResolvedProfile, call: WxAiCall): HttpRequestSpec {
  const v = version(profile);
  switch (call.kind) {
    case 'deployments.list':
      return get(url(profile, '/ml/v4/deployments', { version: v, ...call.scope, ...call.query }));
    case 'deployments.get':
      return get(
        url(profile, `/ml/v4/deployments/${pathSegment(call.id, 'deployment')}`, { version: v, ...call.scope }),
      );
    case 'foundation-models.list':
      return get(url(profile, '/ml/v1/foundation_model_specs', { version: v, ...call.query }));
    case 'foundation-models.tasks':
      return get(url(profile, '/ml/v1/foundation_model_tasks', { version: v, ...call.query }));
    case 'time-series.forecast':
      return post(url(profile, '/ml/v1/time_series/forecast', { version: v }), { ...call.body, ...call.scope });
  }
}

function lookupRequest(profile: ResolvedProfile, kind: WxScopeKind, name: string): HttpRequestSpec {
  return get(url(profile, `/v2/${kind}`, { name }));
}

/** Spaces answer `metadata.id`, projects `metadata.guid`; both put the name in `entity.name`. */
function parseLookup(body: unknown, name: string): string[] {
  const resources = isRecord(body) && Array.isArray(body.resources) ? body.resources : [];
  const ids: string[] = [];
  for (const r of resources) {
    if (textOf(fieldAt(r, 'entity', 'name')) !== name) continue;
    const id = textOf(fieldAt(r, 'metadata', 'id')) ?? textOf(fieldAt(r, 'metadata', 'guid'));
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

function nextRequest(href: string, previous: HttpRequestSpec): HttpRequestSpec {
  const next = new URL(href);
  const before = new URL(previous.url).searchParams;
  for (const name of CARRIED) {
    const value = before.get(name);
    if (value !== null && !next.searchParams.has(name)) next.searchParams.set(name, value);
  }
  return { ...previous, url: next.toString() };
}

export const watsonxWxAi: WxAiOperations = {
  profileScope,
  withScope,
  lookupRequest,
  parseLookup,
  request,
  nextRequest,
};
