/**
 * What keeps secrets out of a cassette (docs/cassettes.md, "Secrets"): credential headers and cookies are never
 * stored; every secret this run knows — the profile's key or token, a URL's password, every credential the HTTP
 * client put in a header (IAM and CPD tokens it obtained) — is masked in every form it can take (as given, URL- and
 * form-encoded, base64, JSON-escaped: src/contract/redact.ts) in the URL, the stored headers and both bodies; and a
 * token service's answer fields (`access_token`, `refresh_token`) are masked whatever their value. The file text is
 * masked once more as a whole before it is written (entry.ts escapes what it stores).
 */
import { type KnownSecrets, redactBody } from '../contract/redact.js';
import type { StoredRequest } from './key.js';
import { NEVER_KEYED_HEADERS } from './match.js';

/** Request headers that say how this client talks, not what it asks: never stored. */
const TRANSPORT_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'user-agent',
  'traceparent',
  'tracestate',
  'x-request-id',
  'x-client-request-id',
  'idempotency-key',
]);

/** Answer headers that differ on every call or describe the connection: never stored (docs/cassettes.md). */
const VOLATILE_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'date',
  'age',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'server-timing',
  'x-envoy-upstream-service-time',
  'cf-ray',
  'etag',
  'expires',
  'last-modified',
  'openai-processing-ms',
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
]);

/** `x-request-id`, `apim-request-id`, `x-global-transaction-id`, `x-correlation-id`, `x-trace-id`, … */
const ID_HEADER = /(^|-)(request|transaction|correlation|trace|span)-?id$/;

function keptRequestHeader(name: string): boolean {
  return !NEVER_KEYED_HEADERS.has(name) && !TRANSPORT_REQUEST_HEADERS.has(name) && !ID_HEADER.test(name);
}

export function keptResponseHeader(name: string): boolean {
  return !NEVER_KEYED_HEADERS.has(name) && !VOLATILE_RESPONSE_HEADERS.has(name) && !ID_HEADER.test(name);
}

/** Token services' answer fields, masked whatever their value (the token is not known when its answer is stored). */
const TOKEN_FIELD =
  /("(?:access_token|refresh_token|id_token|api_?key|password|client_secret|delegated_refresh_token)"\s*:\s*")(?:[^"\\]|\\.)*(")/gi;

export function scrubText(text: string, secrets: KnownSecrets): string {
  return secrets.redact(text).replace(TOKEN_FIELD, '$1***$2');
}

export function scrubBytes(bytes: Uint8Array, secrets: KnownSecrets): Uint8Array {
  const text = Buffer.from(bytes).toString('utf8');
  // Bytes that are not UTF-8 would not survive the round trip: they are stored as they came (base64), and a secret
  // is ASCII in every form it is masked in, so they are searched as latin1, which maps bytes one to one.
  if (Buffer.byteLength(text) !== bytes.length || text.includes('\uFFFD')) {
    const latin = Buffer.from(bytes).toString('latin1');
    const scrubbed = scrubText(latin, secrets);
    return scrubbed === latin ? bytes : Buffer.from(scrubbed, 'latin1');
  }
  const scrubbed = scrubText(text, secrets);
  return scrubbed === text ? bytes : Buffer.from(scrubbed, 'utf8');
}

/** The request as the cassette stores it (and keys it): secrets out, transport headers out, the body parsed. */
export function storedRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  secrets: KnownSecrets,
): StoredRequest {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (keptRequestHeader(lower)) kept[lower] = scrubText(value, secrets);
  }
  const query: Array<[string, string]> = [...url.searchParams].map(([name, value]) => [
    scrubText(name, secrets),
    /^(api_?key|api-key|token|access_token|password|code|sig|signature)$/i.test(name)
      ? '***'
      : scrubText(value, secrets),
  ]);
  const request: StoredRequest = {
    method: method.toUpperCase(),
    path: scrubText(url.pathname, secrets),
    query,
    headers: kept,
    body: null,
  };
  if (body !== undefined && body !== '') {
    const masked = scrubText(redactBody(body, kept['content-type']), secrets);
    try {
      request.body = JSON.parse(masked) as unknown;
    } catch {
      request.body = masked;
      request.bodyText = true;
    }
  }
  return request;
}
