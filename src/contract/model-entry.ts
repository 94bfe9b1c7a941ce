/** The canonical model entry's key order and its constructor, shared by every adapter's listing. */
import type { ModelEntry } from './adapter.js';

/** The canonical key order of a ModelEntry (`-o json` prints keys in this order for every provider). */
export const MODEL_ENTRY_KEYS = [
  'id',
  'kind',
  'name',
  'provider',
  'model',
  'serving_name',
  'status',
  'versions',
  'platform',
  'max_tokens',
  'functions',
  'description',
  'inputs',
  'outputs',
] as const satisfies readonly (keyof ModelEntry)[];

/** An entry in canonical key order, without empty fields (undefined, "", [] ). */
export function modelEntry(fields: ModelEntry): ModelEntry {
  const out: Record<string, unknown> = {};
  for (const key of MODEL_ENTRY_KEYS) {
    const value = fields[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    out[key] = value;
  }
  return out as unknown as ModelEntry;
}
