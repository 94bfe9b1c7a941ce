/**
 * watsonx credentials (docs/protocols/watsonx.md §Authentication): IBM Cloud IAM api-key exchange, Cloud Pak for Data
 * `/icp4d-api/v1/authorize`, ZenApiKey, a plain bearer token, or nothing. Exchanged tokens are kept in memory and in
 * the token cache, so the next invocation reuses them until shortly before they expire.
 */
import type { ResolvedAuth, ResolvedProfile } from '../../../src/contract/profile.js';
import { bearerTokenEnv, zenApiKeyValue } from '../../../src/contract/auth.js';
import { tokenCacheKey, type CachedToken, type TokenCache } from '../../../src/contract/token-cache.js';
import { AuthError, UsageError } from '../../../src/contract/errors.js';
import type { HttpClient, HttpRequestSpec, HttpResponse } from '../../../src/contract/http.js';
import type { Authenticator } from '../../../src/contract/adapter.js';
import { redactUrl } from '../../../src/contract/redact.js';

const HOUR = 3_600_000;
/** CPD tokens that are not JWTs carry no expiry; CPD documents about 12 hours. */
const CPD_DEFAULT_LIFETIME_MS = 12 * HOUR;
/** IAM always states expires_in; this is only for a reply that does not. */
const IAM_DEFAULT_LIFETIME_MS = HOUR;
const MIN_REFRESH_MARGIN_MS = 60_000;
/** One retry for an exchange: a slow token endpoint should not multiply the wait. */
const EXCHANGE_RETRIES = 1;

export interface WatsonxAuthenticatorOptions {
  profile: ResolvedProfile;
  http: HttpClient;
  cache: TokenCache;
  now?: () => number;
  /** For what the user should know about a token (one already expired when it was issued). */
  warn?: (message: string) => void;
}

export function createWatsonxAuthenticator(opts: WatsonxAuthenticatorOptions): Authenticator {
  const { profile, http, cache } = opts;
  const now = opts.now ?? Date.now;
  const warn = opts.warn ?? (() => undefined);
  const auth = profile.auth;
  switch (auth.type) {
    case 'none':
      return staticAuthenticator({}, {});
    case 'bearer':
      return staticAuthenticator(
        { authorization: `Bearer ${auth.token}` },
        { authorization: `Bearer \${${bearerTokenEnv(auth) ?? 'TEXTGEN_TOKEN'}}` },
      );
    case 'zenapikey':
      return staticAuthenticator(
        { authorization: `ZenApiKey ${zenApiKeyValue(auth.username, auth.apikey)}` },
        { authorization: 'ZenApiKey ${TEXTGEN_ZENAPIKEY}' },
      );
    case 'iam':
      return exchangingAuthenticator(
        tokenCacheKey(['iam', auth.iamUrl, '', auth.apikey]),
        cache,
        now,
        warn,
        'IBM Cloud IAM',
        (signal) => exchangeIam(auth, http, now, signal),
      );
    case 'cpd': {
      const secret = auth.apikey !== undefined ? `apikey:${auth.apikey}` : `password:${auth.password ?? ''}`;
      return exchangingAuthenticator(
        tokenCacheKey(['cpd', profile.url, auth.username, secret]),
        cache,
        now,
        warn,
        'Cloud Pak for Data',
        (signal) => exchangeCpd(auth, profile.url, http, now, signal),
      );
    }
    case 'api-key':
      throw new UsageError(`profile "${profile.name}": watsonx takes no api-key header`, {
        hint: 'use auth type iam (IBM Cloud), cpd or zenapikey (Cloud Pak for Data), or bearer',
      });
  }
}

function staticAuthenticator(headers: Record<string, string>, placeholders: Record<string, string>): Authenticator {
  return {
    headers: async () => ({ ...headers }),
    invalidate: async () => false,
    dryRunHeaders: () => ({ ...placeholders }),
  };
}

function exchangingAuthenticator(
  key: string,
  cache: TokenCache,
  now: () => number,
  warn: (message: string) => void,
  service: string,
  exchange: (signal?: AbortSignal) => Promise<CachedToken>,
): Authenticator {
  let current: CachedToken | undefined;
  // Concurrent requests share one exchange instead of each starting their own.
  let pending: Promise<CachedToken> | undefined;
  /**
   * A token the service issued already expired (expires_in ≤ 0): it is used as it is for this run — exchanging again
   * would only bring another like it, before every request — and never cached. A 401 still gets one fresh exchange.
   */
  let expiredOnArrival = false;
  let warned = false;
  const usable = (t: CachedToken) => t.expiresAt - now() > refreshMargin(t);

  async function obtain(signal?: AbortSignal): Promise<CachedToken> {
    const cached = await cache.get(key);
    if (cached !== undefined && usable(cached)) return cached;
    const fresh = await exchange(signal);
    if (!usable(fresh)) {
      if (!warned)
        warn(
          `${service} issued a token that has expired or is about to (expires_in ${Math.round((fresh.expiresAt - (fresh.obtainedAt ?? now())) / 1000)} s); textgen uses it for this run without exchanging again, and does not cache it`,
        );
      warned = true;
      expiredOnArrival = true;
      return fresh;
    }
    try {
      await cache.set(key, fresh);
    } catch {
      // The cache only saves a future exchange; an unwritable cache directory must not fail this request.
    }
    return fresh;
  }

  return {
    async headers(signal) {
      if (current === undefined || (!usable(current) && !expiredOnArrival)) {
        pending ??= obtain(signal).finally(() => {
          pending = undefined;
        });
        current = await pending;
      }
      return { authorization: `Bearer ${current.token}` };
    },
    async invalidate() {
      current = undefined;
      expiredOnArrival = false;
      try {
        await cache.delete(key);
      } catch {
        // Leaving a stale file is harmless: the next 401 comes back here.
      }
      return true;
    },
    dryRunHeaders: () => ({ authorization: 'Bearer ${TEXTGEN_TOKEN}' }),
  };
}

/** Refresh when less than max(60 s, 10 % of the token's lifetime) remains. */
function refreshMargin(t: CachedToken): number {
  const issuedAt = t.obtainedAt ?? jwtClaims(t.token)?.iatMs;
  const lifetime = issuedAt !== undefined ? t.expiresAt - issuedAt : 0;
  return Math.max(MIN_REFRESH_MARGIN_MS, lifetime / 10);
}

async function exchangeIam(
  auth: Extract<ResolvedAuth, { type: 'iam' }>,
  http: HttpClient,
  now: () => number,
  signal?: AbortSignal,
): Promise<CachedToken> {
  const service = 'IBM Cloud IAM';
  const request: HttpRequestSpec = {
    method: 'POST',
    url: auth.iamUrl,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    // response_type=cloud_iam as IBM's SDKs send it (their core's IamTokenManager): the IAM token, nothing else.
    body: new URLSearchParams({
      grant_type: 'urn:ibm:params:oauth:grant-type:apikey',
      apikey: auth.apikey,
      response_type: 'cloud_iam',
    }).toString(),
  };
  const res = await http.send(request, { ...(signal ? { signal } : {}), retries: EXCHANGE_RETRIES, service });
  const body = await readBody(res);
  if (res.status >= 200 && res.status < 300 && !isHtml(res, body.text)) {
    const token = stringField(body.json, 'access_token');
    if (token === undefined)
      throw new AuthError(`${service} token exchange failed: the reply has no access_token`, { status: res.status });
    checkToken(token, service, 'access_token', res.status);
    const obtainedAt = now();
    const expiresIn = numberField(body.json, 'expires_in');
    const expiration = numberField(body.json, 'expiration');
    // expires_in is relative, so it survives a skewed local clock; expiration (epoch s) is the fallback.
    const expiresAt =
      expiresIn !== undefined
        ? obtainedAt + expiresIn * 1000
        : expiration !== undefined
          ? expiration * 1000
          : (jwtClaims(token)?.expMs ?? obtainedAt + IAM_DEFAULT_LIFETIME_MS);
    return { token, expiresAt, obtainedAt };
  }
  if (noServiceHere(res, body)) throw noTokenService(service, auth.iamUrl, res.status, IAM_URL_HINT);
  const code = stringField(body.json, 'errorCode');
  const message = stringField(body.json, 'errorMessage') ?? stringField(body.json, 'message') ?? summary(body.text);
  const context =
    body.json !== null && typeof body.json === 'object' ? (body.json as Record<string, unknown>).context : undefined;
  const traceId = res.headers['transaction-id'] ?? stringField(context, 'requestId');
  throw exchangeError(service, 'rejected the API key', res.status, code, message, [auth.apikey], traceId);
}

async function exchangeCpd(
  auth: Extract<ResolvedAuth, { type: 'cpd' }>,
  baseUrl: string,
  http: HttpClient,
  now: () => number,
  signal?: AbortSignal,
): Promise<CachedToken> {
  const service = 'Cloud Pak for Data';
  const credential =
    auth.apikey !== undefined
      ? { username: auth.username, api_key: auth.apikey }
      : { username: auth.username, password: auth.password ?? '' };
  const request: HttpRequestSpec = {
    method: 'POST',
    url: `${baseUrl}/icp4d-api/v1/authorize`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(credential),
  };
  const res = await http.send(request, { ...(signal ? { signal } : {}), retries: EXCHANGE_RETRIES, service });
  const body = await readBody(res);
  if (res.status >= 200 && res.status < 300 && !isHtml(res, body.text)) {
    // Newer CPD releases answer `token`, some older ones `accessToken`.
    const token = stringField(body.json, 'token') ?? stringField(body.json, 'accessToken');
    if (token === undefined)
      throw new AuthError(`${service} token exchange failed: the reply has neither token nor accessToken`, {
        status: res.status,
      });
    checkToken(token, service, 'token', res.status);
    const obtainedAt = now();
    return { token, expiresAt: jwtClaims(token)?.expMs ?? obtainedAt + CPD_DEFAULT_LIFETIME_MS, obtainedAt };
  }
  if (noServiceHere(res, body)) throw noTokenService(service, request.url, res.status, CPD_URL_HINT);
  const json = body.json;
  const firstError = Array.isArray((json as { errors?: unknown } | null)?.errors)
    ? (json as { errors: unknown[] }).errors[0]
    : undefined;
  const code = stringField(json, '_messageCode_') ?? stringField(json, 'code') ?? stringField(firstError, 'code');
  const message =
    stringField(json, 'message') ??
    stringField(json, 'error_description') ??
    stringField(json, 'error') ??
    stringField(firstError, 'message') ??
    summary(body.text);
  const what = `rejected the ${auth.apikey !== undefined ? 'API key' : 'password'} of user "${auth.username}"`;
  throw exchangeError(
    service,
    what,
    res.status,
    code,
    message,
    [auth.apikey, auth.password],
    res.headers['x-request-id'],
  );
}

/**
 * A token goes into an Authorization header on every later request, and into the cache for the next run: one
 * with a line break, a space or a control character would be refused as a bad header each time (blaming the user)
 * until it expired. Such a reply is the token service's failure, and is never cached.
 */
function checkToken(token: string, service: string, field: string, status: number): void {
  if (isUsableToken(token)) return;
  throw new AuthError(
    `${service} token exchange failed: the ${field} in its reply is not a usable token (it holds spaces, line breaks or control characters)`,
    {
      status,
      hint: `the token service answered wrongly; try again later, or check the profile's token URL`,
    },
  );
}

/** A header-safe token: visible ASCII, no spaces (RFC 6750's b64token and every JWT fit). */
export function isUsableToken(token: string): boolean {
  return /^[\x21-\x7e]+$/.test(token);
}

const IAM_URL_HINT =
  'the IAM URL is the token endpoint itself: https://iam.cloud.ibm.com/identity/token, or for "textgen serve --require-auth" http://HOST:PORT/identity/token (profile auth.iam_url, or TEXTGEN_IAM_URL)';
const CPD_URL_HINT = "the profile's url must be the Cloud Pak for Data route that serves /icp4d-api/v1/authorize";

/**
 * A 404, or a web page, is not a token service turning the credential down: nothing at that URL exchanges tokens
 * (a base URL where the token endpoint belongs, a typo, a web server). Saying "rejected the API key" sent people
 * to check a key that was never looked at.
 */
function noServiceHere(res: HttpResponse, body: { text: string }): boolean {
  return res.status === 404 || isHtml(res, body.text);
}

function isHtml(res: HttpResponse, text: string): boolean {
  return /^text\/html\b/i.test(res.headers['content-type'] ?? '') || /^\s*<(?:!doctype|html)\b/i.test(text);
}

/**
 * Exit 3 like every failed token exchange (the exit-code table's "token exchange failed"): something answered, so it
 * is no network failure (5), and what has to change is where the credential goes.
 */
function noTokenService(service: string, url: string, status: number, hint: string): AuthError {
  const what = status === 404 ? 'HTTP 404' : `HTTP ${status} with a web page`;
  return new AuthError(`no token service at ${redactUrl(url)} (${service} token exchange: ${what})`, { status, hint });
}

/** 4xx: the credential was refused; anything else left after the client's retries: the exchange failed. */
function exchangeError(
  service: string,
  rejected: string,
  status: number,
  code: string | undefined,
  message: string,
  secrets: Array<string | undefined>,
  traceId: string | undefined,
): AuthError {
  const detail = redact(`${code !== undefined && !message.includes(code) ? `${code} ` : ''}${message}`, secrets);
  const text =
    status >= 400 && status < 500
      ? `${service} ${rejected}: ${detail}`
      : `${service} token exchange failed: HTTP ${status} ${detail}`;
  const trace = traceId !== undefined ? ` (trace ${traceId})` : '';
  return new AuthError(`${text}${trace}`, { status, ...(traceId !== undefined ? { traceId } : {}) });
}

async function readBody(res: HttpResponse): Promise<{ text: string; json: unknown }> {
  const text = await res.text();
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text, json: null };
  }
}

function stringField(obj: unknown, key: string): string | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const v = (obj as Record<string, unknown>)[key];
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function numberField(obj: unknown, key: string): number | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function summary(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine === '') return 'no details in the reply';
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}

function redact(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s !== undefined && s.length > 0) out = out.split(s).join('***');
  return out;
}

/** exp and iat of a JWT in epoch ms; undefined when the token is not a JWT. */
function jwtClaims(token: string): { expMs?: number; iatMs?: number } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    const out: { expMs?: number; iatMs?: number } = {};
    if (typeof claims.exp === 'number' && Number.isFinite(claims.exp)) out.expMs = claims.exp * 1000;
    if (typeof claims.iat === 'number' && Number.isFinite(claims.iat)) out.iatMs = claims.iat * 1000;
    return out;
  } catch {
    return undefined;
  }
}
