/**
 * One line of a batch input: `{"input": …, "parameters"?: {…}, "id"?: …}` or a bare JSON string (the input).
 * Only the shape is checked here; what the input and parameters must be is the command's business.
 */
import { UsageError } from '../contract/errors.js';
import { fromProviderLine, isProviderLine, type LineEndpoint } from './provider-line.js';

export interface BatchLine {
  input: unknown;
  parameters?: Record<string, unknown>;
  /** JSON text of the line's id, ready to go into the record. */
  idJson?: string;
}

const KEYS = new Set(['input', 'parameters', 'id']);

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * Parses a line (with `endpoint`, a line in the providers' format too: src/batch/provider-line.ts). A line that is not JSON, or not a string or an object of the known keys, throws a UsageError;
 * `idJson` is set on the error (as `lineId`) when the id itself was readable, so the error record still carries it.
 */
export function parseBatchLine(text: string, endpoint?: LineEndpoint): BatchLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`the line is not JSON: ${(e as Error).message}`);
  }
  // A line in the providers' batch format (custom_id, url, body) is read as the line it stands for.
  if (endpoint !== undefined && isProviderLine(value)) value = fromProviderLine(value, endpoint);
  if (typeof value === 'string') return { input: value };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`a line must be a JSON object {"input": …} or a JSON string, got ${describe(value)}`);
  }
  const obj = value as Record<string, unknown>;
  const out: BatchLine = { input: obj.input };
  const id = obj.id;
  if (id !== undefined) {
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
      throw new UsageError(`"id" must be a string or a number, got ${describe(id)}`);
    }
    out.idJson = JSON.stringify(id);
  }
  const fail = (message: string): never => {
    throw Object.assign(new UsageError(message), { lineId: out.idJson });
  };
  for (const key of Object.keys(obj)) {
    if (!KEYS.has(key)) fail(`unknown field "${key}" on the line (a line has input, parameters and id)`);
  }
  if (!('input' in obj)) fail('the line has no "input"');
  if (obj.parameters !== undefined) {
    const p = obj.parameters;
    if (typeof p !== 'object' || p === null || Array.isArray(p))
      fail(`"parameters" must be a JSON object, got ${describe(p)}`);
    out.parameters = p as Record<string, unknown>;
  }
  return out;
}

/** The id JSON carried by an error thrown from parseBatchLine, if any. */
export function lineIdOf(error: unknown): string | undefined {
  const id = (error as { lineId?: unknown } | null)?.lineId;
  return typeof id === 'string' ? id : undefined;
}
