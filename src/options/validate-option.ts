/**
 * Runs a zod schema over a user-supplied value and turns the issues into one UsageError whose
 * words are the same whether the value came from a flag or from a field inside a JSON option.
 *
 * Only loaded lazily, next to schemas.ts (which imports zod).
 */
import type * as z from 'zod';
import { UsageError } from '../contract/errors.js';
import { didYouMean } from '../contract/did-you-mean.js';
import { expectationAt, FIELD_SYNONYMS, knownFieldsAt } from './schemas.js';

import type { IssueSite, Locator } from './issue-site.js';

export { type IssueSite, type Locator, within } from './issue-site.js';

export interface ValidateOptions {
  /** Added as the hint when a field is unknown (e.g. "provider-specific fields go in --extra"). */
  unknownFieldHint?: string;
}

export function validateOption<S extends z.ZodType>(
  schema: S,
  value: unknown,
  locate: Locator,
  options: ValidateOptions = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const messages: string[] = [];
  let unknownField = false;
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') unknownField = true;
    for (const message of formatIssue(issue, schema, value, locate)) {
      if (!messages.includes(message)) messages.push(message);
    }
  }
  const hint = unknownField ? options.unknownFieldHint : undefined;
  throw new UsageError(messages.join('; '), hint ? { hint } : {});
}

/** One message per problem (an issue listing several unknown keys gives several). */
export function formatIssue(issue: z.core.$ZodIssue, root: z.ZodType, value: unknown, locate: Locator): string[] {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    const { owner, field } = locate(path);
    const known = knownFieldsAt(root, path);
    return issue.keys.map((key) => {
      const synonym = FIELD_SYNONYMS[key];
      const suggestion = synonym !== undefined && known.includes(synonym) ? synonym : didYouMean(key, known);
      const tail = suggestion === undefined ? '' : ` (did you mean "${renderPath([...field, suggestion])}"?)`;
      return `${owner}: unknown field "${renderPath([...field, key])}"${tail}`;
    });
  }
  const params =
    issue.code === 'custom'
      ? (issue.params as { compareTo?: PropertyKey[]; relation?: string } | undefined)
      : undefined;
  if (params?.compareTo && params.relation) {
    return [comparison(path, params.compareTo, params.relation, value, locate)];
  }
  const expected = expectationAt(root, path);
  const subject = subjectOf(locate(path));
  if (expected === undefined) return [`${subject}: ${issue.message}`];
  return [`${subject} must be ${expected}, got ${describeValue(valueAt(value, path))}`];
}

function comparison(
  a: readonly PropertyKey[],
  b: readonly PropertyKey[],
  relation: string,
  value: unknown,
  locate: Locator,
): string {
  const siteA = locate(a);
  const siteB = locate(b);
  const va = describeValue(valueAt(value, a));
  const vb = describeValue(valueAt(value, b));
  if (siteA.owner === siteB.owner && siteA.field.length > 0 && siteB.field.length > 0) {
    return `${siteA.owner}: ${renderPath(siteA.field)} (${va}) ${relation} ${renderPath(siteB.field)} (${vb})`;
  }
  const part = (s: IssueSite, v: string) =>
    s.field.length === 0 ? `${s.owner} (${v})` : `${renderPath(s.field)} (${v}) from ${s.owner}`;
  return `${part(siteA, va)} ${relation} ${part(siteB, vb)}`;
}

function subjectOf({ owner, field }: IssueSite): string {
  if (field.length === 0) return owner;
  if (field.length === 1 && typeof field[0] === 'number') return `${owner}: item ${field[0] + 1}`;
  return `${owner}: ${renderPath(field)}`;
}

/** `return_options.top_n_tokens`, `input_ranges[0].start`, `prompt_variables["my var"]`. */
export function renderPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(seg))) out += out === '' ? String(seg) : `.${String(seg)}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

/** How a wrong value is shown after "got": strings quoted (and shortened), containers summarised. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (Array.isArray(v)) return `a list of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  if (v === undefined) return 'nothing';
  return String(v);
}
