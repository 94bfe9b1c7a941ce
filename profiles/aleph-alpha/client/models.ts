/**
 * Aleph Alpha's listing: `GET /models_available` → `[{name, description, hostings, …}]` (docs/protocols/aleph-alpha.md;
 * deprecated in 1.16 but served; newer servers add `max_context_size` and more). One answer, no paging.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { modelEntry } from '../../../src/contract/model-entry.js';
import type { ModelEntry, ModelsOperation } from '../../../src/contract/adapter.js';
import { countOf, fieldAt, textOf } from '../../../src/contract/wire-fields.js';

export function alephAlphaModelsRequest(profile: ResolvedProfile): HttpRequestSpec {
  return { method: 'GET', url: `${profile.url}/models_available`, headers: { accept: 'application/json' } };
}

export function alephAlphaModelEntry(item: unknown): ModelEntry | undefined {
  const id = textOf(fieldAt(item, 'name'));
  if (id === undefined) return undefined;
  return modelEntry({
    id,
    kind: 'model',
    max_tokens: countOf(fieldAt(item, 'max_context_size')),
    description: textOf(fieldAt(item, 'description')),
  });
}

export const alephAlphaModels: ModelsOperation = {
  scopes: ['models'],
  listRequests: (profile) => [alephAlphaModelsRequest(profile)],
  parsePage: (body) => {
    if (!Array.isArray(body)) throw new UnexpectedAnswer('the answer is not a JSON array of models');
    return { entries: body.map(alephAlphaModelEntry).filter((e): e is ModelEntry => e !== undefined), items: body };
  },
};
