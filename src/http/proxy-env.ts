/**
 * HTTP(S)_PROXY and NO_PROXY, read from the environment the caller hands in (never `process.env`, so a test or a
 * profile decides). Cheap to import: client.ts asks it, for every request, whether the request goes through a proxy
 * (undici's proxy agent, undici-transport.ts) or straight to the service (node-transport.ts).
 */
import { UsageError } from '../contract/errors.js';

export interface ProxySettings {
  /** Empty string: no proxy for that scheme (undici would otherwise read process.env). */
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

function envValue(env: Record<string, string | undefined>, name: string): string {
  // curl reads the lower-case spelling first; so do undici and most tools.
  return (env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? '').trim();
}

function proxyUrl(name: string, value: string): string {
  if (!value) return '';
  // `proxy.corp:3128` without a scheme is common in the wild and means plain HTTP.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  try {
    new URL(withScheme);
  } catch {
    // The value itself is not repeated: proxy URLs often carry a password.
    throw new UsageError(`${name} is not a valid proxy URL`);
  }
  return withScheme;
}

/** The proxy settings in `env`, or undefined when neither HTTP_PROXY nor HTTPS_PROXY is set. */
export function proxyFromEnv(env: Record<string, string | undefined> = {}): ProxySettings | undefined {
  const httpProxy = proxyUrl('HTTP_PROXY', envValue(env, 'HTTP_PROXY'));
  const httpsProxy = proxyUrl('HTTPS_PROXY', envValue(env, 'HTTPS_PROXY'));
  if (!httpProxy && !httpsProxy) return undefined;
  // As undici does, an https request falls back to HTTP_PROXY when HTTPS_PROXY is unset.
  return { httpProxy, httpsProxy: httpsProxy || httpProxy, noProxy: envValue(env, 'NO_PROXY') };
}

/**
 * The proxy a request to `url` goes through (its host, for messages), or undefined. Mirrors
 * undici's NO_PROXY rules: `*`, exact host, or a domain suffix, optionally with a port.
 */
export function proxyFor(proxy: ProxySettings | undefined, url: URL): string | undefined {
  if (!proxy) return undefined;
  const via = url.protocol === 'https:' ? proxy.httpsProxy : proxy.httpProxy;
  if (!via) return undefined;
  const host = url.hostname.toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of proxy.noProxy.split(/[,\s]/)) {
    if (!entry) continue;
    if (entry === '*') return undefined;
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number(parsed[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return new URL(via).host;
}
