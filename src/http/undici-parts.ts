/**
 * The three parts of undici the client uses, loaded from their own files. The package's index also loads fetch,
 * WebSocket, caches, mocks and a SQLite cache store: about 130 ms on the 2-core test machine, against about 50 ms
 * for these parts — time every command that talks to a service paid before its first byte (docs/performance.md).
 * undici is pinned to one exact version (package.json, lock file); test/integration/undici-parts.test.ts checks that
 * these paths still give what the index gives. Loaded lazily: only dispatcher.ts and client.ts import this
 * module, inside `send`.
 */
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');

const require = createRequire(import.meta.url);

const DispatcherClass = require('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
const api = require('undici/lib/api/index.js') as Record<string, unknown> & { request: (this: Dispatcher, opts: object) => Promise<Dispatcher.ResponseData> };
// What the index does on load: request/stream/connect… become methods of every dispatcher (the proxy agents
// tunnel through `connect`).
Object.assign(DispatcherClass.prototype, api);

export const Agent = require('undici/lib/dispatcher/agent.js') as Undici['Agent'];
export const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent.js') as Undici['EnvHttpProxyAgent'];

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
