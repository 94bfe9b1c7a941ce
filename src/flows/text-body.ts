/**
 * The request body of a cpdctl mirror command, from its flag table (src/flows/text-flag-specs.ts): each given flag
 * read as its kind and put at its path, in the service's own words. A granular twin with its JSON option is one
 * usage error naming both; a missing required flag one naming it — both before anything is read, started or sent.
 */
import { UsageError } from '../contract/errors.js';
import type { BodyFlag } from './text-flag-specs.js';
import { type JsonOptionIo, readJsonOption } from '../options/json-option.js';
import {
  coerceInt,
  coerceNumber,
  parseBooleanFlag,
  parseStopSequences,
  type RawFlagValue,
} from '../options/flag-values.js';

/** The commander options of a mirror command: keyed by each row's `key`, read through a record (keys vary by table). */
export type BodyFlagValues = Record<string, RawFlagValue>;

/** The exclusions and the required flags, checked before any value is read. */
export function checkBodyFlags(rows: readonly BodyFlag[], options: BodyFlagValues): void {
  const given = (row: BodyFlag) => options[row.key] !== undefined;
  for (const row of rows) {
    if (row.twinOf === undefined || !given(row)) continue;
    const whole = rows.find((r) => r.flag === row.twinOf);
    if (whole && given(whole))
      throw new UsageError(
        `${whole.flag} and ${row.flag} cannot be used together: give ${row.twinOf} as JSON, or its fields one by one`,
      );
  }
  const missing = rows.filter((r) => r.required === true && (!given(r) || options[r.key] === ''));
  if (missing.length > 0)
    throw new UsageError(
      `missing required ${missing.length === 1 ? 'option' : 'options'}: ${missing.map((r) => r.flag).join(', ')}`,
    );
}

async function flagValue(row: BodyFlag, raw: RawFlagValue & {}, io: JsonOptionIo): Promise<unknown> {
  const last = Array.isArray(raw) ? (raw[raw.length - 1] ?? '') : raw;
  switch (row.kind) {
    case 'string':
      return String(last);
    case 'bool':
      return parseBooleanFlag(row.flag, raw);
    case 'int': {
      const v = coerceInt(raw);
      if (typeof v !== 'number') throw new UsageError(`${row.flag} must be an integer, got ${JSON.stringify(last)}`);
      return v;
    }
    case 'number': {
      const v = coerceNumber(raw);
      if (typeof v !== 'number') throw new UsageError(`${row.flag} must be a number, got ${JSON.stringify(last)}`);
      return v;
    }
    case 'list': {
      const items = parseStopSequences(row.flag, raw);
      const bad = items.findIndex((i) => typeof i !== 'string');
      if (bad >= 0) throw new UsageError(`${row.flag}: item ${bad + 1} is not a string`);
      return items;
    }
    case 'json':
      return readJsonOption(row.flag, String(last), io);
  }
}

function put(body: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = body;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
}

/** The body the flags write, in table order (a JSON option first, then the twins that add to it). */
export async function buildTextBody(
  rows: readonly BodyFlag[],
  options: BodyFlagValues,
  io: JsonOptionIo,
): Promise<Record<string, unknown>> {
  checkBodyFlags(rows, options);
  const readers = rows.filter((r) => r.kind === 'json' && options[r.key] === '@-');
  if (readers.length > 1)
    throw new UsageError(`only one option can read stdin, but ${readers.map((r) => `${r.flag} @-`).join(' and ')} do`);
  const body: Record<string, unknown> = {};
  for (const row of rows) {
    const raw = options[row.key];
    if (raw === undefined) continue;
    put(body, row.path, await flagValue(row, raw, io));
  }
  return body;
}
