/**
 * The key of a cassette entry: a hash of the canonical request (docs/cassettes.md, "Keys"). Two requests that mean
 * the same call have the same key whatever the run: the protocol, the method, the path, the query without its
 * volatile parameters (`version`, `api-version`), the JSON body with its keys sorted and without volatile fields, and
 * nothing of the headers (credentials, user agents and request ids differ between a laptop and CI). `--match` widens
 * or narrows the rules (match.ts). Pure: no I/O, Node's crypto only.
 */
import { createHash } from 'node:crypto';
import type { MatchRules } from './match.js';

/** A request as a cassette stores it: secrets already out (scrub.ts); the key is computed from this. */
export interface StoredRequest {
  method: string;
  /** The URL's path, without the origin: a replay may run against another host or port. */
  path: string;
  /** Every query parameter, in the URL's order (volatile ones too: the key rules drop them, the file keeps them). */
  query: Array<[string, string]>;
  /** Request headers that are neither credentials nor transport details (content-type, accept, …). */
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text of another body, or null for none. */
  body: unknown;
  /** True when `body` is the text of a body that is not JSON. */
  bodyText?: boolean;
}

/** Query parameters that change between runs without changing the call: the API version dates. */
const VOLATILE_QUERY: Readonly<Record<string, readonly string[]>> = {
  watsonx: ['version'],
  'azure-openai': ['api-version'],
  openai: ['api-version'],
  'aleph-alpha': [],
  'open-inference': [],
};

/**
 * Body fields that change between runs without changing the answer: request ids, and on watsonx the account's
 * project or space (CI's profile names another than the laptop that recorded). Paths into the body (match.ts syntax).
 */
const VOLATILE_BODY: Readonly<Record<string, readonly string[]>> = {
  watsonx: ['project_id', 'space_id'],
  'azure-openai': ['user', 'metadata'],
  openai: ['user', 'metadata'],
  'aleph-alpha': [],
  'open-inference': ['id'],
};

export function volatileQueryOf(protocol: string): readonly string[] {
  return VOLATILE_QUERY[protocol] ?? [];
}

export function volatileBodyOf(protocol: string): readonly string[] {
  return VOLATILE_BODY[protocol] ?? [];
}

/** What the hash is taken of: plain JSON with sorted keys, so the same call always serialises alike. */
export type Canonical = {
  protocol: string;
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers?: Record<string, string>;
  body?: unknown;
};

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sorted((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** `value` without what `path` names (`*` is any key or index); a copy, the input is not changed. */
export function withoutPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return undefined;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    if (head === '*') return rest.length === 0 ? [] : value.map((v) => withoutPath(v, rest));
    const index = Number(head);
    if (!Number.isInteger(index) || index < 0 || index >= value.length) return value;
    if (rest.length === 0) return value.filter((_, i) => i !== index);
    return value.map((v, i) => (i === index ? withoutPath(v, rest) : v));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (head === '*' || key === head) {
        if (rest.length > 0) out[key] = withoutPath(inner, rest);
      } else out[key] = inner;
    }
    return out;
  }
  return value;
}

function pathIs(path: readonly string[], dotted: string): boolean {
  return path.join('.') === dotted;
}

/** The canonical form of a stored request under the rules: what two requests must share to share an entry. */
export function canonicalOf(protocol: string, request: StoredRequest, rules: MatchRules): Canonical {
  const kept = (dotted: string) => rules.keep.some((p) => pathIs(p, dotted));
  const ignoredQuery = new Set(rules.ignore.filter((p) => p[0] === 'query' && p.length === 2).map((p) => p[1]!));
  const volatileQuery = new Set(
    rules.allQuery ? [] : volatileQueryOf(protocol).filter((name) => !kept(`query.${name}`)),
  );
  const query = request.query
    .filter(([name]) => !volatileQuery.has(name) && !ignoredQuery.has(name) && !ignoredQuery.has('*'))
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const canonical: Canonical = { protocol, method: request.method.toUpperCase(), path: request.path, query };
  if (rules.headers.length > 0) {
    const headers: Record<string, string> = {};
    for (const name of [...rules.headers].sort()) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    canonical.headers = headers;
  }
  if (rules.body && request.body !== null) {
    let body: unknown = request.body;
    if (!request.bodyText) {
      for (const dotted of volatileBodyOf(protocol)) if (!kept(dotted)) body = withoutPath(body, dotted.split('.'));
      for (const p of rules.ignore) if (p[0] !== 'query') body = withoutPath(body, p);
    }
    canonical.body = sorted(body);
  }
  return canonical;
}

/** 20 hex digits of SHA-256: 80 bits, far beyond any cassette's size, short enough to read in a file name. */
export function keyOf(canonical: Canonical): string {
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 20);
}

/** The JSON path (`$.body.parameters.seed`) of each place two values differ, in document order, at most `limit`. */
export function differences(a: unknown, b: unknown, limit = 50, at = '$', out: string[] = []): string[] {
  if (out.length >= limit) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n && out.length < limit; i++) {
      if (i >= a.length || i >= b.length) out.push(`${at}[${i}]`);
      else differences(a[i], b[i], limit, `${at}[${i}]`, out);
    }
    return out;
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    // In the order of the first value: a canonical request reads protocol, method, path, query, headers, body.
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      if (out.length >= limit) break;
      const next = /^[A-Za-z_][\w-]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
      if (!(key in a) || !(key in b)) out.push(next);
      else differences(a[key], b[key], limit, next, out);
    }
    return out;
  }
  if (a !== b) out.push(at);
  return out;
}
