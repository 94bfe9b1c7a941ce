/**
 * A value that a JSON Schema accepts, made up from a seeded generator: what the deterministic engine answers under
 * `response_format: json_schema` and as a tool call's `arguments`. It covers the keywords tool and response schemas
 * use (type and type lists, required and optional properties, additionalProperties, enum, const, minimum/maximum
 * and their exclusive forms, multipleOf, minLength/maxLength, simple patterns, common formats, arrays with
 * minItems/maxItems/uniqueItems and prefixItems, nested objects, anyOf/oneOf (first branch), allOf (merged), $ref
 * into $defs/definitions). The same schema and seed always give the same value.
 */
import { WORDS } from './word-list.js';

export type JsonSchema = Record<string, unknown> | boolean;
type SchemaObject = Record<string, unknown>;

/** Past this depth optional properties are left out and arrays keep their minimum, so recursive schemas end. */
const SHALLOW_DEPTH = 4;
/** A $ref chain deeper than this is taken to be a loop: the value there is null. */
const MAX_DEPTH = 32;

const WORD_POOL: readonly string[] = [...WORDS.noun, ...WORDS.adj, ...WORDS.verb];

/** A value `schema` accepts, drawn with `draw` (numbers in [0, 1)). */
export function schemaValue(schema: JsonSchema, draw: () => number): unknown {
  return new ValueMaker(typeof schema === 'object' ? schema : {}, draw).value(schema, 0);
}

class ValueMaker {
  constructor(
    private readonly root: SchemaObject,
    private readonly draw: () => number,
  ) {}

  value(input: JsonSchema, depth: number): unknown {
    if (input === true) return this.words(1, 3);
    if (input === false || depth > MAX_DEPTH) return null;
    const schema = this.flatten(input, depth);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[this.index(schema.enum.length)];
    switch (typeOf(schema)) {
      case 'object':
        return this.object(schema, depth);
      case 'array':
        return this.array(schema, depth);
      case 'integer':
        return this.integer(schema);
      case 'number':
        return this.number(schema);
      case 'boolean':
        return this.draw() < 0.5;
      case 'null':
        return null;
      default:
        return this.string(schema);
    }
  }

  /** The schema with its $ref followed, allOf merged in and the first anyOf/oneOf branch taken. */
  private flatten(schema: SchemaObject, depth: number): SchemaObject {
    let s = schema;
    for (let hops = 0; typeof s.$ref === 'string' && hops < MAX_DEPTH; hops++) {
      const { $ref, ...rest } = s;
      const target = resolveRef(this.root, $ref as string);
      s = { ...(typeof target === 'object' ? target : {}), ...rest };
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      s = (allOf as JsonSchema[]).reduce<SchemaObject>(
        (merged, part) => mergeSchemas(merged, typeof part === 'object' ? this.flatten(part, depth) : {}),
        rest,
      );
    }
    const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
    if (branches && branches.length > 0) {
      const { anyOf: _a, oneOf: _o, ...rest } = s;
      const first = branches[0] as JsonSchema;
      return mergeSchemas(rest, typeof first === 'object' ? this.flatten(first, depth) : {});
    }
    return s;
  }

  private object(schema: SchemaObject, depth: number): Record<string, unknown> {
    const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const extra = schema.additionalProperties;
    const out: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(properties)) {
      const include = required.has(name) || (depth < SHALLOW_DEPTH && this.draw() < 0.5);
      if (include) out[name] = this.value(sub, depth + 1);
    }
    const extraSchema: JsonSchema = isObject(extra) ? (extra as SchemaObject) : true;
    for (const name of required) if (!(name in out)) out[name] = this.value(properties[name] ?? extraSchema, depth + 1);
    const minProperties = nonNegative(schema.minProperties) ?? 0;
    if (extra !== false) {
      for (let k = 1; Object.keys(out).length < minProperties; k++) {
        const name = `${this.pick(WORD_POOL)}_${k}`;
        if (!(name in properties)) out[name] = this.value(extraSchema, depth + 1);
      }
    } else {
      for (const [name, sub] of Object.entries(properties)) {
        if (Object.keys(out).length >= minProperties) break;
        if (!(name in out)) out[name] = this.value(sub, depth + 1);
      }
    }
    return out;
  }

  private array(schema: SchemaObject, depth: number): unknown[] {
    const prefix = Array.isArray(schema.prefixItems)
      ? (schema.prefixItems as JsonSchema[])
      : Array.isArray(schema.items)
        ? (schema.items as JsonSchema[])
        : [];
    const items: JsonSchema =
      !Array.isArray(schema.items) && schema.items !== undefined
        ? (schema.items as JsonSchema)
        : Array.isArray(schema.items)
          ? ((schema.additionalItems as JsonSchema | undefined) ?? true)
          : true;
    const min = Math.max(nonNegative(schema.minItems) ?? 0, prefix.length);
    const declared = nonNegative(schema.maxItems) ?? Math.max(min, prefix.length) + 2;
    // `items: false` after a tuple: nothing past its positions.
    const max = items === false ? Math.min(declared, prefix.length) : declared;
    const wanted = depth < SHALLOW_DEPTH ? Math.max(min, Math.min(max, min + 1 + this.index(2))) : min;
    const count = Math.min(wanted, max);
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0, tries = 0; out.length < count && tries < count * 20 + 20; tries++) {
      const sub = i < prefix.length ? prefix[i]! : items;
      const v = this.value(sub, depth + 1);
      const key = JSON.stringify(v);
      if (schema.uniqueItems === true && seen.has(key)) {
        // A value already there: try again, and give up on uniqueness for an optional item that keeps repeating.
        if (out.length >= min && tries > count * 4) break;
        continue;
      }
      seen.add(key);
      out.push(v);
      i++;
    }
    return out;
  }

  private integer(schema: SchemaObject): number {
    const { lo, hi } = bounds(schema, true);
    const step = positive(schema.multipleOf);
    if (step !== undefined && Number.isInteger(step)) {
      const first = Math.ceil(lo / step);
      const last = Math.floor(hi / step);
      if (last < first) return first * step;
      return (first + this.index(Math.min(last - first + 1, 1000))) * step;
    }
    const a = Math.ceil(lo);
    const b = Math.floor(hi);
    return b < a ? a : a + this.index(Math.min(b - a + 1, 1_000_000));
  }

  private number(schema: SchemaObject): number {
    const step = positive(schema.multipleOf);
    if (step !== undefined) {
      const { lo, hi } = bounds(schema, false);
      const first = Math.ceil(lo / step);
      const last = Math.floor(hi / step);
      const k = last < first ? first : first + this.index(Math.min(last - first + 1, 1000));
      return k * step;
    }
    const { lo, hi } = bounds(schema, false);
    // Two decimals inside the bounds; an exclusive bound is never met by rounding.
    const span = hi - lo;
    const raw = lo + span * this.draw();
    const rounded = Math.round(raw * 100) / 100;
    return rounded >= lo && rounded <= hi && within(schema, rounded) ? rounded : within(schema, raw) ? raw : lo;
  }

  private string(schema: SchemaObject): string {
    const min = nonNegative(schema.minLength) ?? 0;
    const max = nonNegative(schema.maxLength) ?? Math.max(min, 40);
    if (typeof schema.pattern === 'string') {
      const made = this.patterned(schema.pattern, min, max);
      if (made !== undefined) return made;
    }
    const formatted = typeof schema.format === 'string' ? this.formatted(schema.format) : undefined;
    if (formatted !== undefined && length(formatted) >= min && length(formatted) <= max) return formatted;
    let text = this.words(1, 3);
    while (length(text) < min) text += ` ${this.pick(WORD_POOL)}`;
    return [...text].slice(0, max).join('');
  }

  private patterned(pattern: string, min: number, max: number): string | undefined {
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      return undefined;
    }
    const tree = parsePattern(pattern);
    if (tree === undefined) return undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      const text = this.fromPattern(tree, min);
      if (re.test(text) && length(text) >= min && length(text) <= max) return text;
    }
    return undefined;
  }

  private fromPattern(node: PatternNode, min: number): string {
    switch (node.kind) {
      case 'chars':
        return node.chars[this.index(node.chars.length)]!;
      case 'sequence': {
        let text = node.items.map((n) => this.fromPattern(n, 0)).join('');
        // Grow the last repeatable part until the minimum length is met.
        const last = [...node.items].reverse().find((n) => n.kind === 'repeat' && n.max > n.min);
        for (let i = 0; last && length(text) < min && i < min; i++) text += this.fromPattern(last, 0);
        return text;
      }
      case 'alternatives':
        return this.fromPattern(node.options[this.index(node.options.length)]!, min);
      case 'repeat': {
        const count = node.min + this.index(Math.min(node.max, node.min + 3) - node.min + 1);
        let text = '';
        for (let i = 0; i < count; i++) text += this.fromPattern(node.item, 0);
        return text;
      }
    }
  }

  private formatted(format: string): string | undefined {
    const n = (digits: number) => String(this.index(10 ** digits)).padStart(digits, '0');
    const date = `20${n(2)}-${String(1 + this.index(12)).padStart(2, '0')}-${String(1 + this.index(28)).padStart(2, '0')}`;
    const time = `${String(this.index(24)).padStart(2, '0')}:${String(this.index(60)).padStart(2, '0')}:${String(this.index(60)).padStart(2, '0')}`;
    const hex = (k: number) => Array.from({ length: k }, () => '0123456789abcdef'[this.index(16)]).join('');
    switch (format) {
      case 'date-time':
        return `${date}T${time}Z`;
      case 'date':
        return date;
      case 'time':
        return `${time}Z`;
      case 'email':
        return `${this.pick(WORD_POOL)}@example.com`;
      case 'hostname':
        return `${this.pick(WORD_POOL)}.example.com`;
      case 'uri':
      case 'url':
      case 'iri':
        return `https://example.com/${this.pick(WORD_POOL)}`;
      case 'uuid':
        return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
      case 'ipv4':
        return `192.0.2.${1 + this.index(254)}`;
      case 'ipv6':
        return `2001:db8::${hex(4)}`;
      default:
        return undefined;
    }
  }

  private words(min: number, max: number): string {
    const count = min + this.index(max - min + 1);
    return Array.from({ length: count }, () => this.pick(WORD_POOL)).join(' ');
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.index(list.length)]!;
  }

  private index(n: number): number {
    return Math.min(n - 1, Math.floor(this.draw() * n));
  }
}

/** `#`, `#/$defs/x`, `#/definitions/x` or any other JSON pointer into the root schema. */
function resolveRef(root: SchemaObject, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    at = isObject(at) ? (at as SchemaObject)[key] : undefined;
  }
  return isObject(at) || typeof at === 'boolean' ? (at as JsonSchema) : undefined;
}

/** Two schemas' keywords together (properties and required joined; other keywords: the later one wins). */
function mergeSchemas(a: SchemaObject, b: SchemaObject): SchemaObject {
  const merged: SchemaObject = { ...a, ...b };
  if (isObject(a.properties) || isObject(b.properties))
    merged.properties = { ...(a.properties as SchemaObject), ...(b.properties as SchemaObject) };
  if (Array.isArray(a.required) || Array.isArray(b.required))
    merged.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  return merged;
}

function typeOf(schema: SchemaObject): string {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.length > 0) return String(type.find((t) => t !== 'null') ?? type[0]);
  if (isObject(schema.properties) || Array.isArray(schema.required) || 'additionalProperties' in schema)
    return 'object';
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'exclusiveMinimum' in schema || 'exclusiveMaximum' in schema)
    return 'number';
  return 'string';
}

/** The closed range a number must fall in (exclusive bounds moved inside by one for integers, a hair for numbers). */
function bounds(schema: SchemaObject, integer: boolean): { lo: number; hi: number } {
  const nudge = (v: number, up: boolean) =>
    integer
      ? up
        ? Math.floor(v) + 1
        : Math.ceil(v) - 1
      : up
        ? v + Math.max(1e-6, Math.abs(v) * 1e-9)
        : v - Math.max(1e-6, Math.abs(v) * 1e-9);
  let lo = finite(schema.minimum);
  let hi = finite(schema.maximum);
  const xlo = finite(schema.exclusiveMinimum);
  const xhi = finite(schema.exclusiveMaximum);
  if (xlo !== undefined) lo = lo === undefined ? nudge(xlo, true) : Math.max(lo, nudge(xlo, true));
  if (xhi !== undefined) hi = hi === undefined ? nudge(xhi, false) : Math.min(hi, nudge(xhi, false));
  if (lo === undefined && hi === undefined) return { lo: 0, hi: 100 };
  if (lo === undefined) lo = Math.min(0, hi! - 100);
  if (hi === undefined) hi = lo + 100;
  return { lo, hi: Math.max(lo, hi) };
}

function within(schema: SchemaObject, v: number): boolean {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  return (
    (typeof minimum !== 'number' || v >= minimum) &&
    (typeof maximum !== 'number' || v <= maximum) &&
    (typeof exclusiveMinimum !== 'number' || v > exclusiveMinimum) &&
    (typeof exclusiveMaximum !== 'number' || v < exclusiveMaximum)
  );
}

function isObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function nonNegative(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Length in code points, as JSON Schema counts it. */
function length(text: string): number {
  return [...text].length;
}

// A pattern in the simple subset: literals, escapes (\d \w \s and escaped punctuation), `.`, character classes
// with ranges (negated ones drawn from letters and digits), groups with alternatives, and the quantifiers
// ? * + {n} {n,} {n,m}; ^ and $ are anchors. Anything else (look-arounds, back-references) gives undefined, and
// the caller falls back to plain words.
type PatternNode =
  | { kind: 'chars'; chars: string[] }
  | { kind: 'sequence'; items: PatternNode[] }
  | { kind: 'alternatives'; options: PatternNode[] }
  | { kind: 'repeat'; item: PatternNode; min: number; max: number };

const DIGITS = [...'0123456789'];
const WORD_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'];
const SAFE_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.'];

function parsePattern(pattern: string): PatternNode | undefined {
  const chars = [...pattern];
  let at = 0;
  const fail = (): never => {
    throw new Error('unsupported pattern');
  };

  const escaped = (): string[] => {
    const c = chars[at++] ?? fail();
    if (c === 'd') return DIGITS;
    if (c === 'w') return WORD_CHARS;
    if (c === 's') return [' '];
    if (c === 'D' || c === 'W' || c === 'S') return c === 'D' ? [...'abcxyz'] : c === 'W' ? [...' -.'] : [...'abc'];
    if (/[a-zA-Z0-9]/.test(c)) return c === 'n' ? ['\n'] : c === 't' ? ['\t'] : fail();
    return [c];
  };

  const charClass = (): string[] => {
    const negated = chars[at] === '^';
    if (negated) at++;
    const set: string[] = [];
    for (let first = true; chars[at] !== ']' || first; first = false) {
      if (at >= chars.length) fail();
      const c = chars[at++]!;
      let members: string[];
      if (c === '\\') members = escaped();
      else if (chars[at] === '-' && chars[at + 1] !== undefined && chars[at + 1] !== ']') {
        at++;
        let end = chars[at++]!;
        if (end === '\\') end = escaped()[0]!;
        members = [];
        for (let code = c.codePointAt(0)!; code <= end.codePointAt(0)!; code++)
          members.push(String.fromCodePoint(code));
      } else members = [c];
      set.push(...members);
    }
    at++;
    if (!negated) return set;
    const excluded = new Set(set);
    const rest = SAFE_CHARS.filter((ch) => !excluded.has(ch));
    return rest.length > 0 ? rest : fail();
  };

  const atom = (): PatternNode => {
    const c = chars[at++]!;
    if (c === '(') {
      if (chars[at] === '?') {
        if (chars[at + 1] !== ':') fail();
        at += 2;
      }
      const inner = alternatives();
      if (chars[at++] !== ')') fail();
      return inner;
    }
    if (c === '[') return { kind: 'chars', chars: charClass() };
    if (c === '\\') return { kind: 'chars', chars: escaped() };
    if (c === '.') return { kind: 'chars', chars: SAFE_CHARS };
    if ('*+?{)|'.includes(c)) fail();
    return { kind: 'chars', chars: [c] };
  };

  const quantified = (item: PatternNode): PatternNode => {
    const c = chars[at];
    let min: number;
    let max: number;
    if (c === '?') [min, max] = [0, 1];
    else if (c === '*') [min, max] = [0, 4];
    else if (c === '+') [min, max] = [1, 4];
    else if (c === '{') {
      const close = chars.indexOf('}', at);
      const m = /^\{(\d+)(,(\d*))?\}$/.exec(chars.slice(at, close + 1).join(''));
      if (!m) return fail();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? min + 4 : Number(m[3]);
      at = close;
    } else return item;
    at++;
    if (chars[at] === '?') at++;
    return { kind: 'repeat', item, min, max };
  };

  const sequence = (): PatternNode => {
    const items: PatternNode[] = [];
    while (at < chars.length && chars[at] !== '|' && chars[at] !== ')') {
      if (chars[at] === '^' || chars[at] === '$') {
        at++;
        continue;
      }
      items.push(quantified(atom()));
    }
    return { kind: 'sequence', items };
  };

  const alternatives = (): PatternNode => {
    const options = [sequence()];
    while (chars[at] === '|') {
      at++;
      options.push(sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternatives', options };
  };

  try {
    const tree = alternatives();
    return at === chars.length ? tree : undefined;
  } catch {
    return undefined;
  }
}
