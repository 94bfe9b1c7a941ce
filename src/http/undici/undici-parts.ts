/**
 * The three parts of undici the client uses, loaded from their own files. The package's index also loads fetch,
 * WebSocket, caches, mocks and a SQLite cache store: about 130 ms on the 2-core test machine, against about 50 ms
 * for these parts — time every command that talks to a service paid before its first byte (docs/performance.md).
 * undici is pinned to one exact version (package.json, lock file); test/integration/undici-parts.test.ts checks that
 * these paths still give what the index gives. Loaded lazily: only dispatcher.ts and client.ts import this
 * module, inside `send`. Static imports (typed in undici-lib.d.ts), so that the bundle (scripts/bundle.mjs)
 * takes in these files and nothing else of undici.
 */
import type { Dispatcher } from 'undici';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';

// What the index does on load: request/stream/connect… become methods of every dispatcher (the proxy agents
// tunnel through `connect`).
Object.assign(DispatcherClass.prototype, api);

export const Agent = AgentClass;
export const EnvHttpProxyAgent = EnvHttpProxyAgentClass;

export interface RequestOptions {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  dispatcher: Dispatcher;
  signal?: AbortSignal | undefined;
}

/** undici's `request(url, options)` for an absolute URL and an explicit dispatcher (no global one). */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const parsed = new URL(url);
  const { dispatcher, ...rest } = options;
  return api.request.call(dispatcher, { ...rest, origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` });
}
