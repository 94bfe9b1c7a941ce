/**
 * The one Transport every upstream call of `serve --upstream` goes through (src/gateway/): the lean transport
 * (lean-transport.ts, falling back to node:http(s) for a header it does not write) for a direct URL, undici for one
 * HTTP(S)_PROXY sends through a proxy, each made on its first request. A gateway makes the same few requests over
 * and over, like a batch: node:http's ClientRequest and IncomingMessage were about a tenth of its CPU per streamed
 * event (docs/performance.md, "serve --upstream, seventh round"). `serve` builds it in one place (commands/serve.ts,
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
      return (viaProxy ??= import('./undici/undici-transport.js').then((m) => m.createUndiciTransport(settings)));
    return (direct ??= import('./lean-transport.js').then((m) =>
      m.createLeanTransport(settings, () => import('./node-transport.js').then((n) => n.createNodeTransport(settings))),
    ));
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
