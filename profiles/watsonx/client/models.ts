/**
 * watsonx listings (docs/protocols/watsonx.md): foundation model specs (`GET /ml/v1/foundation_model_specs`) and
 * deployments (`GET /ml/v4/deployments`), both paged with `start`/`limit` and a `next.href` link.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UnexpectedAnswer, UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { modelEntry } from '../../../src/contract/model-entry.js';
import type { ListQuery, ModelEntry, ModelPage, ModelsOperation } from '../../../src/contract/adapter.js';
import { countOf, fieldAt, isRecord, textOf } from '../../../src/contract/wire-fields.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxSettings } from '../settings.js';

/** The service's largest page; fewer round trips for the same list. */
export const WATSONX_MAX_PAGE_SIZE = 200;

/** Query parameters every page needs; a `next` link without them gets them from the page before. */
const CARRIED = ['version', 'space_id', 'project_id'] as const;

/** `project_id=` or `space_id=` for calls scoped to a project or space; the project wins, as in generation. */
function scopeParameter(profile: ResolvedProfile): [string, string] | undefined {
  const { projectId, spaceId } = watsonxSettings(profile);
  if (projectId) return ['project_id', projectId];
  if (spaceId) return ['space_id', spaceId];
  return undefined;
}

export function watsonxListRequest(profile: ResolvedProfile, query: ListQuery): HttpRequestSpec {
  const params = new URLSearchParams({ version: profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION });
  let path = '/ml/v1/foundation_model_specs';
  if (query.scope === 'deployments') {
    const scope = scopeParameter(profile);
    if (!scope) {
      throw new UsageError(
        `watsonx lists deployments of a space or project: profile "${profile.name}" has neither space_id nor project_id`,
        {
          hint: 'set space_id or project_id in the profile, or TEXTGEN_SPACE_ID / TEXTGEN_PROJECT_ID',
        },
      );
    }
    path = '/ml/v4/deployments';
    params.set(scope[0], scope[1]);
  }
  params.set('limit', String(query.pageSize ?? WATSONX_MAX_PAGE_SIZE));
  return { method: 'GET', url: `${profile.url}${path}?${params}`, headers: { accept: 'application/json' } };
}

function nextRequest(url: string, previous: HttpRequestSpec): HttpRequestSpec {
  const next = new URL(url);
  const before = new URL(previous.url).searchParams;
  for (const name of CARRIED) {
    const value = before.get(name);
    if (value !== null && !next.searchParams.has(name)) next.searchParams.set(name, value);
  }
  return { ...previous, url: next.toString() };
}

/**
 * The lifecycle phase in force at `now`: the last of `[{id, start_date}]` that has started ("available",
 * "deprecated", "constricted", "withdrawn").
 */
export function lifecycleStatus(lifecycle: unknown, now: number): string | undefined {
  if (!Array.isArray(lifecycle)) return undefined;
  const today = new Date(now).toISOString().slice(0, 10);
  let current: { id: string; since: string } | undefined;
  for (const phase of lifecycle) {
    const id = textOf(fieldAt(phase, 'id'));
    const since = textOf(fieldAt(phase, 'start_date'));
    if (id === undefined || since === undefined || since.slice(0, 10) > today) continue;
    if (current === undefined || since >= current.since) current = { id, since };
  }
  return current?.id;
}

/** One foundation model spec → an entry; undefined without a model_id. */
export function foundationModelEntry(spec: unknown, now: number): ModelEntry | undefined {
  const id = textOf(fieldAt(spec, 'model_id'));
  if (id === undefined) return undefined;
  const label = textOf(fieldAt(spec, 'label'));
  const functions = fieldAt(spec, 'functions');
  return modelEntry({
    id,
    kind: 'model',
    ...(label !== undefined && label !== id ? { name: label } : {}),
    provider: textOf(fieldAt(spec, 'provider')),
    status: lifecycleStatus(fieldAt(spec, 'lifecycle'), now),
    max_tokens: countOf(fieldAt(spec, 'model_limits', 'max_sequence_length')),
    functions: Array.isArray(functions)
      ? functions.map((f) => textOf(fieldAt(f, 'id'))).filter((f): f is string => f !== undefined)
      : undefined,
    description: textOf(fieldAt(spec, 'short_description')),
  });
}

/** One v4 deployment resource → an entry; undefined without metadata.id. */
export function deploymentEntry(resource: unknown): ModelEntry | undefined {
  const id = textOf(fieldAt(resource, 'metadata', 'id'));
  if (id === undefined) return undefined;
  const name = textOf(fieldAt(resource, 'metadata', 'name'));
  const status = fieldAt(resource, 'entity', 'status');
  return modelEntry({
    id,
    kind: 'deployment',
    ...(name !== undefined && name !== id ? { name } : {}),
    model: textOf(fieldAt(resource, 'entity', 'base_model_id')) ?? textOf(fieldAt(resource, 'entity', 'asset', 'id')),
    serving_name:
      textOf(fieldAt(resource, 'entity', 'serving_name')) ??
      textOf(fieldAt(resource, 'entity', 'online', 'parameters', 'serving_name')),
    status: textOf(status) ?? textOf(fieldAt(status, 'state')),
    description: textOf(fieldAt(resource, 'metadata', 'description')),
  });
}

/** `{resources: [...], next?: {href}}` → one page. */
export function parseWatsonxPage(body: unknown, query: ListQuery, now: number): ModelPage | undefined {
  if (!isRecord(body) || !Array.isArray(body.resources))
    throw new UnexpectedAnswer('the answer has no "resources" array');
  const entries: ModelEntry[] = [];
  for (const item of body.resources) {
    const entry = query.scope === 'deployments' ? deploymentEntry(item) : foundationModelEntry(item, now);
    // An item without an id cannot be asked for by name; --raw still shows it.
    if (entry) entries.push(entry);
  }
  const next = textOf(fieldAt(body, 'next', 'href'));
  return { entries, items: body.resources, ...(next !== undefined ? { next } : {}) };
}

export const watsonxModels: ModelsOperation = {
  scopes: ['models', 'deployments'],
  maxPageSize: WATSONX_MAX_PAGE_SIZE,
  listRequests: (profile, query) => [watsonxListRequest(profile, query)],
  nextRequest,
  parsePage: parseWatsonxPage,
};
