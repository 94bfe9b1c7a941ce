/**
 * Turns the strings commander hands over into typed values. A string that does not read as the
 * flag's type is passed on unchanged, so the zod schema reports it with the field's own words
 * ("--parameters-top-k must be an integer from 1 to 100, got \"1e3\"").
 */
import { UsageError } from '../contract/errors.js';
import { parseJsonText } from './json-option.js';

/** What commander stores for an option: a string, `true` for a bare `[bool]` flag, an array when repeatable. */
export type RawFlagValue = string | boolean | string[] | undefined;

// Integers are written as integers: "1.5", "1e3" and "0x10" stay strings and fail validation.
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The last value wins when a single-valued flag is repeated, as commander does. */
function single(value: string | boolean | string[]): string | boolean {
  return Array.isArray(value) ? (value[value.length - 1] ?? '') : value;
}

export function coerceInt(value: string | boolean | string[]): unknown {
  const v = single(value);
  return typeof v === 'string' && INTEGER.test(v.trim()) ? toNumber(v) : v;
}

export function coerceNumber(value: string | boolean | string[]): unknown {
  const v = single(value);
  return typeof v === 'string' && DECIMAL.test(v.trim()) ? toNumber(v) : v;
}

// "-0" reads as 0: JSON has no negative zero, and it would print as "-0" in messages.
function toNumber(v: string): number {
  const n = Number(v.trim());
  return n === 0 ? 0 : n;
}

/** `--flag` alone is true; "true"/"false" in any case; anything else is left for validation to reject. */
export function coerceBoolean(value: string | boolean | string[]): unknown {
  const v = single(value);
  if (typeof v === 'boolean') return v;
  const lower = v.trim().toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : v;
}

export function coerceEnum(value: string | boolean | string[]): unknown {
  const v = single(value);
  return typeof v === 'string' ? v.trim().toLowerCase() : v;
}

/**
 * A boolean flag outside the canonical parameters (`--stream`, `--raw`, `--ignore-unsupported`).
 * Absent stays undefined.
 */
export function parseBooleanFlag(flag: string, value: RawFlagValue): boolean | undefined {
  if (value === undefined) return undefined;
  const v = coerceBoolean(value);
  if (typeof v === 'boolean') return v;
  throw new UsageError(`${flag} must be true or false, got ${JSON.stringify(v)}`);
}

/**
 * `--parameters-stop-sequences`, each occurrence either a JSON array of strings or a
 * comma-separated list (`\,` is a literal comma; spaces are kept, they can matter in a stop
 * sequence). An empty value adds nothing, so `--parameters-stop-sequences ""` clears a profile's
 * default list. Occurrences accumulate in order. Items are not type-checked here: the schema does
 * it, so its message names the item.
 */
export function parseStopSequences(flag: string, value: string | boolean | string[]): unknown[] {
  const values = Array.isArray(value) ? value : [value];
  const out: unknown[] = [];
  for (const v of values) {
    if (typeof v !== 'string') {
      throw new UsageError(`${flag} needs a value: a comma-separated list or a JSON array of strings`);
    }
    out.push(...splitOne(flag, v));
  }
  return out;
}

function splitOne(flag: string, value: string): unknown[] {
  // Only `[` followed by `"` or `]` means JSON: "[INST]" and "[/INST]" are common literal stop sequences.
  if (/^\s*\[\s*["\]]/.test(value)) {
    // The text starts with "[", so what parses is an array.
    return parseJsonText(flag, value, undefined) as unknown[];
  }
  if (value === '') return [];
  const items: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && value[i + 1] === ',') {
      current += ',';
      i++;
    } else if (c === ',') {
      items.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  items.push(current);
  return items;
}
