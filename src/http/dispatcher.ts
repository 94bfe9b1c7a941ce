/**
 * Builds the undici dispatcher: timeouts, extra CAs, `--insecure`, and HTTP(S)_PROXY/NO_PROXY taken
 * from the environment the caller hands in (never `process.env`, so a test or a profile decides).
 * Loaded lazily: only client.ts imports this module, inside `send`, so the static undici imports
 * below cost nothing at start-up.
 */
import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent } from './undici-parts.js';
import { UsageError } from '../contract/errors.js';

export interface DispatcherSettings {
  timeoutMs: number;
  connectTimeoutMs: number;
  caCertPath?: string | undefined;
  insecure?: boolean | undefined;
  env?: Record<string, string | undefined> | undefined;
}

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

/** Node's default roots plus the PEM file: a private CA must not make public hosts untrusted. */
async function trustedCas(caCertPath: string): Promise<string[]> {
  let pem: string;
  try {
    pem = await (await import('node:fs/promises')).readFile(caCertPath, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? err);
    throw new UsageError(`cannot read CA certificate file ${caCertPath}: ${why}`, { cause: err });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`CA certificate file ${caCertPath} holds no PEM certificate`, {
      hint: 'expected "-----BEGIN CERTIFICATE-----" blocks',
    });
  }
  // node:tls only here: a plain-HTTP request (the embedded server, a proxy-less intranet) never loads it.
  const { rootCertificates } = await import('node:tls');
  return [...rootCertificates, pem];
}

export async function createDispatcher(settings: DispatcherSettings): Promise<Dispatcher> {
  const tls = {
    timeout: settings.connectTimeoutMs,
    rejectUnauthorized: settings.insecure !== true,
    ...(settings.caCertPath === undefined ? {} : { ca: await trustedCas(settings.caCertPath) }),
  };
  const common = {
    connect: tls,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  };
  const proxy = proxyFromEnv(settings.env);
  if (!proxy) return new Agent(common);
  return new EnvHttpProxyAgent({
    ...common,
    ...proxy,
    // Through a proxy, `requestTls` governs the tunnelled connection to the service itself;
    // an https proxy (corporate CA) is trusted by the same --ca-cert / --insecure.
    requestTls: tls,
    proxyTls: tls,
  });
}
