/**
 * An independent statement of what valid input is, written from docs/design.md §1 and docs/protocols/watsonx.md rather than
 * from src/options/schemas.ts, so the generated cases can say whether exit 0 or exit 2 is right.
 */

type Check = (v: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isBool = (v: unknown) => typeof v === 'boolean';
const intFrom =
  (min: number, max = Infinity): Check =>
  (v) =>
    isInt(v) && v >= min && v <= max;
const between =
  (min: number, max: number): Check =>
  (v) =>
    isNumber(v) && v >= min && v <= max;
const aboveZeroUpToOne: Check = (v) => isNumber(v) && v > 0 && v <= 1;

/** Every key known, every present value passing its check. */
const strict =
  (fields: Record<string, Check>): Check =>
  (v) =>
    isObject(v) && Object.keys(v).every((k) => Object.hasOwn(fields, k) && fields[k]!(v[k]));

export const FIELD_CHECKS: Record<string, Check> = {
  decoding_method: (v) => v === 'greedy' || v === 'sample',
  include_stop_sequence: isBool,
  length_penalty: strict({ decay_factor: (v) => isNumber(v) && v > 1, start_index: intFrom(0) }),
  max_new_tokens: intFrom(0),
  min_new_tokens: intFrom(0),
  prompt_variables: (v) => isObject(v) && Object.values(v).every((x) => typeof x === 'string'),
  random_seed: intFrom(1),
  repetition_penalty: between(1, 2),
  return_options: strict({
    input_text: isBool,
    generated_tokens: isBool,
    input_tokens: isBool,
    token_logprobs: isBool,
    token_ranks: isBool,
    top_n_tokens: intFrom(0, 5),
  }),
  stop_sequences: (v) => Array.isArray(v) && v.length <= 6 && v.every((s) => typeof s === 'string' && s !== ''),
  temperature: between(0, 2),
  time_limit: intFrom(1),
  top_k: intFrom(1, 100),
  top_p: aboveZeroUpToOne,
  truncate_input_tokens: intFrom(0),
  typical_p: aboveZeroUpToOne,
};

export function validParameters(v: unknown): boolean {
  if (!strict(FIELD_CHECKS)(v)) return false;
  const p = v as Record<string, unknown>;
  return !(isInt(p.min_new_tokens) && isInt(p.max_new_tokens) && p.min_new_tokens > p.max_new_tokens);
}

const threshold = strict({ enabled: isBool, threshold: between(0, 1) });
const moderationType = strict({ input: threshold, output: threshold, mask: strict({ remove_entity_value: isBool }) });

/** hap, pii and input_ranges are checked; other moderation types pass (the service adds them). */
export function validModerations(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (v.hap !== undefined && !moderationType(v.hap)) return false;
  if (v.pii !== undefined && !moderationType(v.pii)) return false;
  if (v.input_ranges !== undefined) {
    const ranges = v.input_ranges;
    if (
      !Array.isArray(ranges) ||
      !ranges.every((r) => isObject(r) && Object.keys(r).length === 2 && intFrom(0)(r.start) && intFrom(0)(r.end))
    )
      return false;
  }
  return true;
}

/** What stands for "this flag value does not read as its type": never valid for any field. */
export const UNREADABLE = Symbol('unreadable');

export type FlagKind = 'int' | 'number' | 'bool' | 'enum' | 'json' | 'list' | 'strings';

/** A JSON text as a JSON option takes it: inline only (values starting with "@" name files), at most 100 levels deep. */
export function readJsonText(text: string): unknown {
  if (text.startsWith('@') || text.trim() === '') return UNREADABLE;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return UNREADABLE;
  }
  return depthOf(text) > 100 ? UNREADABLE : value;
}

function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

/** How the documented flag syntax reads a value (docs/design.md §1: integers as integers, "true"/"false", comma lists). */
export function readFlagValue(kind: FlagKind, value: string | true): unknown {
  if (value === true) return kind === 'bool' ? true : UNREADABLE;
  const t = value.trim();
  switch (kind) {
    case 'int':
      return /^[+-]?\d+$/.test(t) ? Number(t) || 0 : UNREADABLE;
    case 'number':
      return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) || 0 : UNREADABLE;
    case 'bool':
      return t.toLowerCase() === 'true' ? true : t.toLowerCase() === 'false' ? false : UNREADABLE;
    case 'enum':
      return t.toLowerCase();
    case 'json':
      return readJsonText(value);
    case 'list':
      return readStopList(value);
    case 'strings':
      return [value];
  }
}

/** `--parameters-stop-sequences`: a JSON array when it starts with `["` or `[]`, else a comma list with `\,` for a comma. */
function readStopList(value: string): unknown {
  if (/^\s*\[\s*["\]]/.test(value)) return readJsonText(value);
  if (value === '') return [];
  return value.split(/(?<!\\),/).map((s) => s.replaceAll('\\,', ','));
}
