/**
 * Builds the undici dispatcher for requests through a proxy (undici-transport.ts): timeouts, extra CAs, `--insecure`,
 * and HTTP(S)_PROXY/NO_PROXY from the environment the caller hands in. Loaded lazily: only undici-transport.ts
 * imports this module, so the static undici imports below cost nothing at start-up.
 */
import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent } from './undici-parts.js';
import { proxyFromEnv } from '../proxy-env.js';
import { trustedCas } from '../trusted-cas.js';
import type { TransportSettings } from '../transport.js';

export { proxyFor, proxyFromEnv, type ProxySettings } from '../proxy-env.js';

export type DispatcherSettings = TransportSettings;

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
