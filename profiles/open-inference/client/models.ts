/**
 * Open Inference listings (docs/protocols/open-inference.md). The protocol has no standard list call: Triton answers
 * `POST /v2/repository/index` with `[{name, version, state, reason}]`, KServe `GET /v2/models` with
 * `{models: [name…]}`; whichever the server has. One model's metadata: `GET /v2/models/{m}[/versions/{v}]` →
 * `{name, versions?, platform, inputs, outputs}`.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { modelEntry } from '../../../src/contract/model-entry.js';
import type { ModelEntry, ModelPage, ModelsOperation, TensorSpec } from '../../../src/contract/adapter.js';
import { fieldAt, isRecord, textOf } from '../../../src/contract/wire-fields.js';
import { modelAddress } from './request.js';
import { pathSegment } from '../../common/path-segment.js';

const ACCEPT_JSON = { accept: 'application/json' };

export function repositoryIndexRequest(profile: ResolvedProfile): HttpRequestSpec {
  // Triton's body is optional ({"ready": true} would hide unloaded models); an empty object asks for all of them.
  return {
    method: 'POST',
    url: `${profile.url}/v2/repository/index`,
    headers: { 'content-type': 'application/json', ...ACCEPT_JSON },
    body: '{}',
  };
}

export function kserveModelsRequest(profile: ResolvedProfile): HttpRequestSpec {
  return { method: 'GET', url: `${profile.url}/v2/models`, headers: ACCEPT_JSON };
}

export function modelMetadataRequest(
  profile: ResolvedProfile,
  name: string,
  version: string | undefined,
): HttpRequestSpec {
  const address = modelAddress(
    { model: name, ...(version !== undefined ? { modelVersion: version } : {}), stream: false },
    profile,
  );
  const versionPath = address.version !== undefined ? `/versions/${pathSegment(address.version, 'model version')}` : '';
  return {
    method: 'GET',
    url: `${profile.url}/v2/models/${pathSegment(address.model, 'model')}${versionPath}`,
    headers: ACCEPT_JSON,
  };
}

/** A Triton index row → an entry: one row per model version, as Triton reports them. */
export function repositoryEntry(row: unknown): ModelEntry | undefined {
  const id = textOf(fieldAt(row, 'name'));
  if (id === undefined) return undefined;
  const version = textOf(fieldAt(row, 'version'));
  return modelEntry({
    id,
    kind: 'model',
    status: textOf(fieldAt(row, 'state')),
    versions: version !== undefined ? [version] : undefined,
    description: textOf(fieldAt(row, 'reason')),
  });
}

/** KServe lists names; some servers list objects with a `name`. */
export function kserveEntry(item: unknown): ModelEntry | undefined {
  const id = textOf(item) ?? textOf(fieldAt(item, 'name'));
  return id === undefined ? undefined : modelEntry({ id, kind: 'model' });
}

export function parseOpenInferencePage(body: unknown): ModelPage | undefined {
  const keep = (e: ModelEntry | undefined): e is ModelEntry => e !== undefined;
  if (Array.isArray(body)) return { entries: body.map(repositoryEntry).filter(keep), items: body };
  const models = fieldAt(body, 'models');
  if (Array.isArray(models)) return { entries: models.map(kserveEntry).filter(keep), items: models };
  throw new UnexpectedAnswer('the answer is neither a repository index (a JSON array) nor has a "models" array');
}

function tensors(value: unknown): TensorSpec[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: TensorSpec[] = [];
  for (const t of value) {
    const name = textOf(fieldAt(t, 'name'));
    const datatype = textOf(fieldAt(t, 'datatype'));
    const shape = fieldAt(t, 'shape');
    if (name === undefined || datatype === undefined) continue;
    out.push({
      name,
      datatype,
      shape: Array.isArray(shape) ? shape.filter((d): d is number => typeof d === 'number') : [],
    });
  }
  return out;
}

/** `GET /v2/models/{m}` → an entry; undefined without a name. */
export function parseModelMetadata(body: unknown): ModelEntry | undefined {
  if (!isRecord(body)) return undefined;
  const id = textOf(body.name);
  if (id === undefined) return undefined;
  const versions = Array.isArray(body.versions)
    ? body.versions.map(textOf).filter((v): v is string => v !== undefined)
    : undefined;
  return modelEntry({
    id,
    kind: 'model',
    versions,
    platform: textOf(body.platform),
    inputs: tensors(body.inputs),
    outputs: tensors(body.outputs),
  });
}

export const openInferenceModels: ModelsOperation = {
  scopes: ['models'],
  listRequests: (profile) => [repositoryIndexRequest(profile), kserveModelsRequest(profile)],
  parsePage: parseOpenInferencePage,
  describe: { request: modelMetadataRequest, parse: parseModelMetadata },
};
