/**
 * Protocol-neutral routing. Each wire protocol registers a ProtocolModule: its routes and how
 * it words an error. Adding a protocol to `serve` is registering one more module.
 */
import type { ServerResponse } from 'node:http';
import type { Engine } from '../engine/engine.js';
import type { FaultQueue } from './fault-queue.js';
import type { BodyKind } from './request-guard.js';
import type { TokenStore } from './token-store.js';
import type { Fault, RecordedRequest, ResolvedServerOptions } from './types.js';

/** What every handler may use. */
export interface ServerServices {
  options: ResolvedServerOptions;
  tokens: TokenStore;
  faults: FaultQueue;
  /** The model behind every route: routes generate, tokenize and embed only through it. */
  engine: Engine;
  log(line: string): void;
  /**
   * Runs one request through the routes in-process, as if a client had sent it, and hands back the answer: how the
   * batch services run each line of a batch on the server's own routes (src/emulator/batch/). Such a request is
   * `internal`: it takes no fault and is not recorded, and credentials are not asked for (the batch's were).
   */
  dispatch(call: InternalCall): Promise<InternalAnswer>;
  /** Aborts when the server closes: background work (batches) stops with it. */
  closed: AbortSignal;
}

export interface InternalCall {
  method: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  /** The fault this request carries, as a client's `X-Textgen-Fault` would (a batch's failing lines). */
  fault?: Fault;
}

export interface InternalAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface RouteContext {
  request: RecordedRequest;
  /** Path parameters, URL-decoded (`:id` → params.id). */
  params: Record<string, string>;
  res: ServerResponse;
  /** Aborts when the client goes away or the server closes. */
  signal: AbortSignal;
  server: ServerServices;
  /** The fault this request carries itself (`X-Textgen-Fault` / `?textgen_fault=`); it wins over the queue. */
  requestFault?: Fault;
  /** Set on a request the server runs itself (ServerServices.dispatch): it takes no queued fault, only its own. */
  internal?: true;
  /**
   * Set by an open event stream (event-stream.ts): ends it with the protocol's in-stream error event. The server
   * calls it when an engine fails after the stream began (an upstream's stream cut off, src/gateway/).
   */
  failStream?: (() => Promise<void>) | undefined;
  /** The server's admission of new requests (admission.ts): an open event stream tells it that it runs. */
  admission?: StreamCounter;
}

/** The part of an answer the admission watches: its close. */
export interface ClosingAnswer {
  once(event: 'close', listener: () => void): unknown;
}

/** What an event stream tells the admission: that it opened; it counts until the answer closes. */
export interface StreamCounter {
  streamOpened(res: ClosingAnswer): void;
}

export type RouteHandler = (ctx: RouteContext) => Promise<void> | void;

export interface Route {
  method: string;
  /** Segments; `:name` captures one segment, e.g. "/ml/v1/deployments/:id/text/generation". */
  pattern: string;
  handler: RouteHandler;
  /** What its body must be (checked on the Content-Type before the route runs); default JSON. */
  body?: BodyKind;
  /** A larger body limit than the server's default (file uploads). */
  maxBodyBytes?: number;
}

export interface ProtocolModule {
  name: string;
  /** Unmatched paths under these prefixes get this protocol's error shape. */
  prefixes: string[];
  routes: Route[];
  /** Writes an error in the protocol's shape (404, 405, 413, 500, fault statuses). */
  sendError(ctx: RouteContext, status: number, code: string, message: string, headers?: Record<string, string>): void;
}

interface CompiledRoute {
  module: ProtocolModule;
  method: string;
  segments: string[];
  handler: RouteHandler;
  body: BodyKind;
  maxBodyBytes: number | undefined;
}

export type Dispatch =
  | {
      kind: 'route';
      module: ProtocolModule;
      handler: RouteHandler;
      body: BodyKind;
      maxBodyBytes: number | undefined;
      params: Record<string, string>;
    }
  | { kind: 'not-found'; module: ProtocolModule }
  | { kind: 'method-not-allowed'; module: ProtocolModule; allowed: string[] };

const MAX_SEEN = 1000;

export class Router {
  private readonly modules: ProtocolModule[] = [];
  private readonly routes: CompiledRoute[] = [];

  register(module: ProtocolModule): this {
    this.seen.clear();
    this.modules.push(module);
    for (const r of module.routes)
      this.routes.push({
        module,
        method: r.method.toUpperCase(),
        segments: split(r.pattern),
        handler: r.handler,
        body: r.body ?? 'json',
        maxBodyBytes: r.maxBodyBytes,
      });
    return this;
  }

  /** The module that owns a path: by prefix, else the first registered (the default error shape). */
  owner(path: string): ProtocolModule {
    const module = this.modules.find((m) => m.prefixes.some((p) => path.startsWith(p))) ?? this.modules[0];
    if (!module) throw new Error('no protocol registered');
    return module;
  }

  /**
   * What each method and path dispatched to: a server sees the same few paths again and again, and walking every
   * route (and decoding its parameters) was a measurable share of a small request. Bounded: the paths of stray
   * requests are not kept once it is full. Each answer gets its own copy of the parameters.
   */
  private readonly seen = new Map<string, Dispatch>();

  dispatch(method: string, path: string): Dispatch {
    const key = `${method} ${path}`;
    let found = this.seen.get(key);
    if (found === undefined) {
      found = this.walk(method, path);
      if (this.seen.size < MAX_SEEN) this.seen.set(key, found);
    }
    return found.kind === 'route' ? { ...found, params: { ...found.params } } : found;
  }

  private walk(method: string, path: string): Dispatch {
    const segments = split(path);
    const allowed: string[] = [];
    let pathOwner: ProtocolModule | undefined;
    for (const route of this.routes) {
      const params = match(route.segments, segments);
      if (!params) continue;
      if (route.method === method.toUpperCase())
        return {
          kind: 'route',
          module: route.module,
          handler: route.handler,
          body: route.body,
          maxBodyBytes: route.maxBodyBytes,
          params,
        };
      allowed.push(route.method);
      pathOwner ??= route.module;
    }
    if (pathOwner) return { kind: 'method-not-allowed', module: pathOwner, allowed };
    return { kind: 'not-found', module: this.owner(path) };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function match(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const s = segments[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(s);
      } catch {
        return undefined;
      }
    } else if (p !== s) return undefined;
  }
  return params;
}
