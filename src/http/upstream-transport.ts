/**
 * The one Transport every upstream call of `serve --upstream` goes through (src/gateway/): node:http(s) for a direct
 * URL, undici for one HTTP(S)_PROXY sends through a proxy, each made on its first request — the same choice
 * client.ts makes for the CLI's own requests. `serve` builds it in one place (commands/serve.ts,
 * `upstreamTransport`), so whatever wraps upstream traffic (a recorder, a replayer) wraps this one object.
 */
import { proxyFor, proxyFromEnv } from './proxy-env.js';
import type { Transport, TransportSettings } from './transport.js';

export function createUpstreamTransport(settings: TransportSettings): Transport {
  const proxy = proxyFromEnv(settings.env);
  let direct: Promise<Transport> | undefined;
  let viaProxy: Promise<Transport> | undefined;
  const pick = (url: URL): Promise<Transport> => {
    if (proxyFor(proxy, url) !== undefined)
      return (viaProxy ??= import('./undici-transport.js').then((m) => m.createUndiciTransport(settings)));
    return (direct ??= import('./node-transport.js').then((m) => m.createNodeTransport(settings)));
  };
  return {
    async request(url, request) {
      return (await pick(url)).request(url, request);
    },
    async destroy() {
      const made = [direct, viaProxy];
      direct = viaProxy = undefined;
      await Promise.all(made.map(async (t) => (await t?.catch(() => undefined))?.destroy()));
    },
  };
}
