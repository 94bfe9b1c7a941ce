/**
 * Keeps secrets out of everything a person might paste into a ticket: `--verbose` traces, error
 * messages, `--dry-run`. Cheap to import (no dependencies).
 */

const MASK = '***';

/** Headers whose value is a credential. */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'api-key',
  'x-api-key',
  'cookie',
  'set-cookie',
]);

/** Headers where the scheme ("Bearer", "ZenApiKey", "Basic") helps debugging and is no secret. */
const SCHEME_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization']);

/** Body fields (JSON keys, form names) that carry credentials, compared case-insensitively. */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'apikey',
  'api_key',
  'api-key',
  'password',
  'token',
  'access_token',
  'refresh_token',
  'secret',
  'client_secret',
]);

/** Secrets shorter than this would mask ordinary words and numbers all over a trace. */
const MIN_SECRET_LENGTH = 4;

export function redactHeaderValue(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (!SECRET_HEADERS.has(lower)) return value;
  if (SCHEME_HEADERS.has(lower)) {
    const match = /^\s*([A-Za-z][\w-]*)\s+\S/.exec(value);
    if (match) return `${match[1]} ${MASK}`;
  }
  return MASK;
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = redactHeaderValue(name, value);
  return out;
}

/** Replaces every occurrence of each secret (and its URL-encoded form) with `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is masked whole.
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join(MASK);
  return out;
}

const CREDENTIAL_FIELD = /("(?:authorization|proxy-authorization|api[-_]?key|x-api-key|cookie|set-cookie|password|token|access_token|refresh_token|secret|client_secret)"\s*:\s*")(?:[^"\\]|\\.)*(")/gi;
const CREDENTIAL_SCHEME = /\b(Bearer|ZenApiKey|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g;
const CREDENTIAL_PARAMETER = /([?&](?:apikey|api_key|api-key|token|access_token|password)=)[^&\s"']+/gi;

/**
 * Masks what looks like a credential in text from elsewhere, whose secrets are not known in advance: the body of an
 * answer that quotes the request back (an echo server, a debugging proxy) — credential fields of JSON (`"api-key":
 * "…"`), `Bearer …` values and credential query parameters. Run `redactText` with the known secrets as well.
 */
export function redactCredentials(text: string): string {
  return text.replace(CREDENTIAL_FIELD, `$1${MASK}$2`).replace(CREDENTIAL_SCHEME, `$1 ${MASK}`).replace(CREDENTIAL_PARAMETER, `$1${MASK}`);
}

function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = isSecretField(key) ? MASK : maskJson(inner);
    return out;
  }
  return value;
}

function maskForm(body: string): string {
  return body
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        return pair;
      }
      // `creds[password]` style names nest fields; the innermost name decides.
      const leaf = /\[([^\]]*)\]$/.exec(name)?.[1] ?? name;
      return isSecretField(leaf) ? `${pair.slice(0, eq)}=${MASK}` : pair;
    })
    .join('&');
}

/**
 * Masks credential fields in a request body: JSON at any depth, or a form-encoded body. Other
 * bodies come back unchanged (callers still run `redactText` over them).
 */
export function redactBody(body: string, contentType: string | undefined): string {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) return maskForm(body);
  if (type.includes('json') || (!type && /^\s*[[{]/.test(body))) {
    try {
      return JSON.stringify(maskJson(JSON.parse(body)));
    } catch {
      return body;
    }
  }
  return body;
}

/** Masks the password of `user:pass@` and credential query parameters in a URL. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = MASK;
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (isSecretField(name)) {
      parsed.searchParams.set(name, MASK);
      changed = true;
    }
  }
  // Re-serialising normalises the URL; only do it when something had to be hidden.
  return changed ? parsed.toString().replace(/%2A%2A%2A/g, MASK) : url;
}
