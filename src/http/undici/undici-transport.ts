/**
 * The transport for requests through an HTTP(S)_PROXY (transport.ts): undici's proxy agent (dispatcher.ts) tunnels
 * https, sends plain http to the proxy and applies NO_PROXY. Loaded only when such a request is sent: undici's
 * modules and its WebAssembly HTTP parser cost a request more than everything else it does (docs/performance.md).
 */
import { createDispatcher } from './dispatcher.js';
import { request as undiciRequest } from './undici-parts.js';
import type { Transport, TransportBody, TransportSettings } from '../transport.js';

export async function createUndiciTransport(settings: TransportSettings): Promise<Transport> {
  const dispatcher = await createDispatcher(settings);
  return {
    async request(url, { method, headers, body, signal }) {
      const data = await undiciRequest(url.href, { method, headers, body, dispatcher, signal });
      return {
        statusCode: data.statusCode,
        headers: data.headers,
        body: data.body as unknown as TransportBody,
        dump: () => data.body.dump(),
      };
    },
    destroy: () => dispatcher.destroy(),
  };
}
