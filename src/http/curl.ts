/**
 * `--dry-run`: the request as one runnable POSIX-shell `curl` command. The caller passes headers in
 * which authenticators have put `${NAME}` placeholders instead of secrets; those stay expandable so
 * the printed line works once the variables are exported.
 */
import type { HttpRequestSpec } from '../contract/http.js';

export interface CurlOptions {
  insecure?: boolean;
  caCertPath?: string;
}

const PLACEHOLDERS = /\$\{[A-Z_][A-Z0-9_]*\}/g;
const HAS_PLACEHOLDER = /\$\{[A-Z_][A-Z0-9_]*\}/;

/** Single quotes keep everything literal; a `'` is closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Double quotes, so `${NAME}` placeholders expand; every other character that is special inside
 * double quotes is escaped. `!` is moved into single quotes because interactive bash would
 * otherwise try history expansion on it, and a backslash does not stop that.
 */
function quoteWithPlaceholders(value: string): string {
  const escapeLiteral = (text: string): string => text.replace(/[$`"\\]/g, (c) => `\\${c}`).replace(/!/g, `"'!'"`);
  let out = '';
  let last = 0;
  for (const match of value.matchAll(PLACEHOLDERS)) {
    out += escapeLiteral(value.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return `"${out}${escapeLiteral(value.slice(last))}"`;
}

function quoteHeader(name: string, value: string): string {
  // curl drops a header given as `name:`; `name;` is its spelling for "send it empty".
  const line = value === '' ? `${name};` : `${name}: ${value}`;
  return HAS_PLACEHOLDER.test(value) ? quoteWithPlaceholders(line) : shellQuote(line);
}

export function toCurl(request: HttpRequestSpec, opts: CurlOptions = {}): string {
  const parts = ['curl', '-sS', '-N'];
  // `-X HEAD` would make curl wait for a body that never comes.
  parts.push(...(request.method === 'HEAD' ? ['--head'] : ['-X', request.method]));
  parts.push(shellQuote(request.url));
  if (opts.insecure) parts.push('-k');
  if (opts.caCertPath !== undefined) parts.push('--cacert', shellQuote(opts.caCertPath));
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quoteHeader(name, value));
  if (request.body !== undefined) parts.push('--data-raw', shellQuote(request.body));
  return parts.join(' ');
}
