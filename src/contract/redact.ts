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

/** A string as it stands inside a JSON string literal (quotes, backslashes and control characters escaped). */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The forms a secret takes where a server may echo it back: as given, URL-encoded (percent and form encoding),
 * base64 (with and without its padding, and the URL-safe alphabet), as a Basic or ZenApiKey header would carry it,
 * and JSON-escaped (once inside a JSON answer, twice inside a JSON file that stores such an answer as a string; with
 * non-ASCII characters as \u escapes, as Python's json writes them).
 */
function formsOf(secret: string): string[] {
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const unpadded = base64.replace(/=+$/, '');
  const forms = [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    base64,
    unpadded,
    unpadded.replace(/\+/g, '-').replace(/\//g, '_'),
  ];
  // An answer that quotes a request that quoted the secret nests the escapes: four levels are masked.
  let json = secret;
  let ascii = secret;
  for (let level = 0; level < 4; level++) {
    json = jsonEscaped(json);
    ascii = jsonEscaped(ascii).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    if (json === secret && ascii === secret) break; // nothing to escape
    forms.push(json, ascii);
  }
  return forms;
}

/**
 * Every secret value this invocation knows — the profile's credentials, a password in its URL, and every credential
 * the HTTP client put in a header (exchanged IAM and CPD tokens included) — so that whatever echoes one back (an
 * error body, a batch record, a trace) is masked on its way out, whatever the source.
 */
export class KnownSecrets {
  /** Secrets as given; their forms are worked out on the first `redact`, which a run that succeeds quietly never calls. */
  readonly #secrets = new Set<string>();
  #sorted: string[] | undefined = [];

  constructor(secrets: Iterable<string> = []) {
    for (const s of secrets) this.add(s);
  }

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    this.#sorted = undefined;
  }

  /** Every form of every secret, longest first, so a secret that contains another is masked whole. */
  #forms(): string[] {
    if (this.#sorted === undefined) {
      const forms = new Set<string>();
      for (const secret of this.#secrets)
        for (const form of formsOf(secret)) if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
      this.#sorted = [...forms].sort((a, b) => b.length - a.length);
    }
    return this.#sorted;
  }

  /** A header's credential: the whole value, and the part after an auth scheme ("Bearer x" → "x"). */
  addHeader(name: string, value: string): void {
    if (!SECRET_HEADERS.has(name.toLowerCase())) return;
    this.add(value.trim());
    const scheme = /^\s*[A-Za-z][\w-]*\s+(\S.*)$/.exec(value);
    if (scheme && SCHEME_HEADERS.has(name.toLowerCase())) this.add(scheme[1]!.trim());
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.#forms()) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }
}

/** Replaces every occurrence of each secret (and its URL-encoded and base64 forms) with `***`. */
export function redactText(text: string, secrets: readonly string[] | KnownSecrets): string {
  return (secrets instanceof KnownSecrets ? secrets : new KnownSecrets(secrets)).redact(text);
}

const CREDENTIAL_FIELD =
  /("(?:authorization|proxy-authorization|api[-_]?key|x-api-key|cookie|set-cookie|password|token|access_token|refresh_token|secret|client_secret)"\s*:\s*")(?:[^"\\]|\\.)*(")/gi;
const CREDENTIAL_SCHEME = /\b(Bearer|ZenApiKey|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g;
const CREDENTIAL_PARAMETER = /([?&](?:apikey|api_key|api-key|token|access_token|password)=)[^&\s"']+/gi;

/**
 * Masks what looks like a credential in text from elsewhere, whose secrets are not known in advance: the body of an
 * answer that quotes the request back (an echo server, a debugging proxy) — credential fields of JSON (`"api-key":
 * "…"`), `Bearer …` values and credential query parameters. Run `redactText` with the known secrets as well.
 */
export function redactCredentials(text: string): string {
  return text
    .replace(CREDENTIAL_FIELD, `$1${MASK}$2`)
    .replace(CREDENTIAL_SCHEME, `$1 ${MASK}`)
    .replace(CREDENTIAL_PARAMETER, `$1${MASK}`);
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

/** The password of a `https://user:pass@host` URL, as written and decoded (both may be echoed back). */
export function urlPasswords(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  if (parsed.password === '') return [];
  let decoded = parsed.password;
  try {
    decoded = decodeURIComponent(parsed.password);
  } catch {
    // Not valid percent-encoding: the raw form is all there is.
  }
  return [...new Set([parsed.password, decoded])];
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
  if (!changed) return url;
  // Re-serialising normalises the URL (only done when something had to be hidden); keep a bare origin bare.
  const shown = parsed.toString().replace(/%2A%2A%2A/g, MASK);
  const addedSlash = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && !url.endsWith('/');
  return addedSlash ? shown.slice(0, -1) : shown;
}
