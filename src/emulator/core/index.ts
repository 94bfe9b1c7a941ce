/**
 * The embedded server of docs/design.md §9 (`textgen serve`, the `local` profile). Loaded only lazily
 * (by `serve` and by the local profile), so its own imports may be eager.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createHash } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { deterministicEngine } from '../engine/deterministic.js';
import type { Engine } from '../engine/engine.js';
import { isEngineFailure } from '../engine/failure.js';
import { allProtocols } from './protocols.js';
import { CONTROL_PREFIX, handleControl, requestFault } from './fault-control.js';
import { FaultQueue } from './fault-queue.js';
import { CapturedResponse } from './captured-response.js';
import {
  Router,
  type InternalAnswer,
  type InternalCall,
  type ProtocolModule,
  type RouteContext,
  type ServerServices,
} from './router.js';
import { TokenStore } from './token-store.js';
import { jsonDepthExceededAt } from '../../contract/json-depth.js';
import { RequestLog, type RequestLogOptions } from './request-log.js';
import { acceptedHostNames, foreignRequest, wrongContentType } from './request-guard.js';
import { sendJson } from './respond.js';
import { withReplayableClock } from './answer-clock.js';
import { rememberResponse } from './responses.js';
import { logs, silentLog } from './silent-log.js';
import { LiveSet } from '../../contract/live-set.js';
import { Admission } from './admission.js';
import { requestTarget } from './request-target.js';
import type { Fault, RecordedRequest, ResolvedServerOptions, RunningServer } from './types.js';

export type { Fault, MalformedAs, RecordedRequest, RunningServer, StatusFault, StreamFault } from './types.js';
export { FaultSpecError, formatFault, parseFaultSpec } from './fault-spec.js';
export type { ProtocolModule, Route, RouteContext, RouteHandler } from './router.js';

/** The four front protocols, as `serve --upstream FAMILY=PROFILE` names them. */
export const PROTOCOL_FAMILIES = ['watsonx', 'openai', 'aleph-alpha', 'open-inference'] as const;
export type ProtocolFamily = (typeof PROTOCOL_FAMILIES)[number];

/** The family a protocol module belongs to: Azure OpenAI, the OpenAI `/v1` routes and the Responses API are `openai`. */
export function protocolFamily(module: ProtocolModule): ProtocolFamily {
  for (const family of ['watsonx', 'aleph-alpha', 'open-inference'] as const)
    if (module.name.startsWith(family)) return family;
  return 'openai';
}
export type { RequestLogOptions } from './request-log.js';

/** Larger bodies get 413: no real prompt comes near it. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * Deeper JSON bodies get 400 before anything walks them (validators and engines recurse; 200 000 levels overflowed
 * the stack on one route and answered 500). Real requests nest a handful of levels; the CLI's own answers allow 256.
 */
const MAX_BODY_DEPTH = 256;

/** The embedded server's options; docs/faults.md and README.md describe them for users. */
export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default false: requests without credentials are served. */
  requireAuth?: boolean;
  /** IAM / CPD / Zen API keys accepted. Default ["local-apikey"]. */
  apiKeys?: string[];
  /** CPD username → password. Default { admin: "password" }. */
  users?: Record<string, string>;
  /** Lifetime of issued tokens. Default 3600. */
  tokenTtlSeconds?: number;
  /** Pause per generated token, for streaming and time_limit realism. Default 0. */
  tokenDelayMs?: number;
  /** How much faster than real time the batch services run (docs/protocols/batch.md). Default 600. */
  batchSpeed?: number;
  log?: ((line: string) => void) | undefined;
  /** The protocols to serve; default all of them (protocols.ts). */
  protocols?: ProtocolModule[];
  /** Serve HTTPS with this certificate and key (PEM contents, not paths); default plain HTTP. */
  tls?: { cert: string; key: string };
  /** The model behind every route; default the deterministic engine. The server closes it on close(). */
  engine?: Engine;
  /**
   * Another engine for the routes of one front protocol (`serve --upstream openai=vllm`): keyed by the protocol's
   * family (`protocolFamily`); the others keep `engine`. The server closes these too.
   */
  engines?: Partial<Record<ProtocolFamily, Engine>>;
  /** Keep the requests received in `RunningServer.requests` (tests only), bounded; default none are kept. */
  requestLog?: RequestLogOptions;
  /**
   * Answers that a replay must give byte for byte (serve with a cassette): each front request runs with a replayable
   * clock (answer-clock.ts), whose time comes from `recordedTime` when the cassette has one and is handed to
   * `remember` when first read otherwise.
   */
  replayableAnswers?: ReplayableAnswers;
  /**
   * Load the engine's tokenizer in the background once listening (`textgen serve`): the deterministic engine's takes
   * ~150 ms of CPU, which would otherwise stall the first requests, every one of which counts tokens. Tests that
   * start a server leave it lazy.
   */
  preloadTokenizer?: boolean;
}

/** Where the times of replayable answers are kept, by the front request's key (frontKey). */
export interface ReplayableAnswers {
  recordedTime(key: string): Promise<number | undefined>;
  remember(key: string, ms: number, request: { method: string; path: string }): void;
}

/**
 * A front request's key: a hash of its method, path, query (without `version` / `api-version`, which clients move
 * on their own) and body as received.
 */
export function frontKey(request: Pick<RecordedRequest, 'method' | 'path' | 'query' | 'body'>): string {
  const query = Object.entries(request.query)
    .filter(([name]) => name !== 'version' && name !== 'api-version')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.path, query, request.body]))
    .digest('hex')
    .slice(0, 20);
}

/** Ten emulated minutes a second: a batch's phases take tens of milliseconds, a "24h" window a little over two minutes. */
export const DEFAULT_BATCH_SPEED = 600;

export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    requireAuth: options.requireAuth ?? false,
    apiKeys: options.apiKeys ?? ['local-apikey'],
    users: options.users ?? { admin: 'password' },
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    tokenDelayMs: options.tokenDelayMs ?? 0,
    batchSpeed: options.batchSpeed ?? DEFAULT_BATCH_SPEED,
    log: options.log ?? silentLog,
  };
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  return listen(options, options.protocols ?? (await allProtocols()));
}

/** A request arriving meanwhile waits on the same load; a failed load fails that request as a lazy one would. */
function preloadTokenizer(engine: Engine, log: (line: string) => void): void {
  const started = performance.now();
  engine.tokenizer().then(
    (t) => log(`tokenizer ${t.encoding} loaded in ${Math.round(performance.now() - started)} ms`),
    (e: unknown) => log(`tokenizer not loaded: ${e instanceof Error ? e.message : String(e)}`),
  );
}

function listen(options: ServerOptions, protocols: readonly ProtocolModule[]): Promise<RunningServer> {
  const resolved = resolveServerOptions(options);
  const requests: RecordedRequest[] = [];
  const log = options.requestLog ? new RequestLog(requests, options.requestLog) : undefined;
  // Set once the server listens: the names a Host header must give.
  let guard: Parameters<typeof foreignRequest>[1] | undefined;
  let draining = false;
  const settled = new Set<() => void>();
  const faults: Fault[] = [];
  const closedController = new AbortController();
  const services: ServerServices = {
    options: resolved,
    tokens: new TokenStore(resolved.tokenTtlSeconds),
    faults: new FaultQueue(faults),
    engine: options.engine ?? deterministicEngine(),
    log: resolved.log,
    dispatch: (call) => dispatchInternal(call),
    closed: closedController.signal,
  };
  // One services object per family that has its own engine, made once: a request only picks it.
  const familyServices = new Map<ProtocolFamily, ServerServices>(
    Object.entries(options.engines ?? {}).map(([family, engine]) => [
      family as ProtocolFamily,
      { ...services, engine: engine as Engine },
    ]),
  );
  const servicesFor = (module: ProtocolModule): ServerServices =>
    familyServices.size === 0 ? services : (familyServices.get(protocolFamily(module)) ?? services);
  // What an internal request's routes see: the batch's own credentials were checked when it was created.
  const internalServicesFor = (module: ProtocolModule): ServerServices => ({
    ...servicesFor(module),
    options: { ...resolved, requireAuth: false },
  });
  const router = new Router();
  for (const protocol of protocols) router.register(protocol);
  const sockets = new Set<Socket>();
  // A LiveSet, not a Set: a Set kept every finished request reachable for the scavenger (live-set.ts).
  const inFlight = new LiveSet<AbortController>();
  const admission = new Admission();

  const listener: RequestListener = (req, res) => {
    const controller = new AbortController();
    const flight = inFlight.add(controller);
    rememberResponse(controller.signal, res);
    // While draining, a request on a kept-alive connection is still answered, but its connection then closes.
    if (draining) res.shouldKeepAlive = false;
    res.on('close', () => {
      // Only a request that did not finish has anyone waiting on its signal; an abort costs a DOMException.
      if (!res.writableFinished) controller.abort();
      inFlight.delete(flight);
      if (inFlight.size === 0) for (const done of settled) done();
    });
    void handle(req, res, controller.signal);
  };
  let server: ReturnType<typeof createHttpServer> | ReturnType<typeof createHttpsServer>;
  try {
    server = options.tls
      ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener)
      : createHttpServer(listener);
  } catch (error) {
    // A bad certificate or key throws here; callers wait on the promise, so report it there.
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  /** One request through the routes, in-process (ServerServices.dispatch): no socket, no fault, no request log. */
  async function dispatchInternal(call: InternalCall): Promise<InternalAnswer> {
    const found = router.dispatch(call.method, call.path);
    const res = new CapturedResponse();
    const request: RecordedRequest = {
      method: call.method,
      path: call.path,
      query: call.query ?? {},
      headers: { 'content-type': 'application/json', ...call.headers },
      body: call.body ?? '',
    };
    const json = parseJson(request.body);
    if (json.ok && jsonDepthExceededAt(request.body, MAX_BODY_DEPTH) === undefined) request.json = json.value;
    const ctx: RouteContext = {
      request,
      params: found.kind === 'route' ? found.params : {},
      // The routes write through the part of ServerResponse that CapturedResponse has (captured-response.ts).
      res: res as unknown as ServerResponse,
      signal: closedController.signal,
      server: internalServicesFor(found.module),
      internal: true,
    };
    if (call.fault) ctx.requestFault = call.fault;
    try {
      if (found.kind === 'not-found')
        found.module.sendError(ctx, 404, 'not_found', `No route for ${request.method} ${request.path}`);
      else if (found.kind === 'method-not-allowed')
        found.module.sendError(ctx, 405, 'method_not_allowed', `${request.method} is not allowed on ${request.path}`);
      else await found.handler(ctx);
    } catch (error) {
      resolved.log(`internal ${request.method} ${request.path}: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent)
        found.module.sendError(ctx, 500, 'internal_server_error', 'The local server failed to answer this request');
    }
    if (!res.writableFinished && !res.destroyed) res.destroy();
    return res.answer();
  }

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const started = Date.now();
    const url = requestTarget(req.url ?? '/');
    const method = req.method ?? 'GET';
    const foreign = guard ? foreignRequest(req.headers, guard) : undefined;
    const found = router.dispatch(method, url.pathname);
    // A body of the wrong type is refused before it is read (nor kept): the refusal does not depend on it.
    const mistyped =
      found.kind === 'route' ? wrongContentType(req.headers['content-type'], found.body, hasBody(req)) : undefined;
    const refused = foreign ?? mistyped;
    const limit = (found.kind === 'route' ? found.maxBodyBytes : undefined) ?? MAX_BODY_BYTES;
    const read = refused ? discardBody(req) : await readBody(req, limit);
    // The switches themselves are not protocol traffic: neither recorded nor faulted.
    if (url.pathname.startsWith(CONTROL_PREFIX)) {
      if (foreign) sendJson(res, foreign.status, { error: foreign.message });
      else handleControl(method, url.pathname, read.text, res, services.faults, resolved.log);
      return;
    }
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.query,
      headers: flattenHeaders(req.headers),
      body: read.text,
    };
    const tooDeep =
      found.kind === 'route' && found.body === 'json' && jsonDepthExceededAt(read.text, MAX_BODY_DEPTH) !== undefined;
    if (!tooDeep) {
      const json = parseJson(read.text);
      if (json.ok) request.json = json.value;
    }
    log?.record(request);
    if (logs(resolved.log))
      res.on('close', () => {
        const took = `${Date.now() - started} ms`;
        if (res.writableFinished) resolved.log(`${request.method} ${request.path} → ${res.statusCode} (${took})`);
        else
          resolved.log(
            `${request.method} ${request.path} → connection closed before the answer was complete (${took})`,
          );
      });

    const ctx: RouteContext = {
      request,
      params: found.kind === 'route' ? found.params : {},
      res,
      signal,
      server: servicesFor(found.module),
      admission,
    };
    const own = requestFault(req, url);
    if (own.fault) ctx.requestFault = own.fault;
    const replayable = options.replayableAnswers;
    if (replayable === undefined) return answer(ctx, found, refused, own.error, read.tooLarge, limit, tooDeep);
    const key = frontKey(request);
    const pinned = await replayable.recordedTime(key);
    return withReplayableClock(
      key,
      pinned,
      (ms) => replayable.remember(key, ms, request),
      () => answer(ctx, found, refused, own.error, read.tooLarge, limit, tooDeep),
    );
  }

  async function answer(
    ctx: RouteContext,
    found: ReturnType<typeof router.dispatch>,
    refused: ReturnType<typeof foreignRequest>,
    faultError: string | undefined,
    tooLarge: boolean | undefined,
    limit: number,
    tooDeep: boolean,
  ): Promise<void> {
    const { request, res } = ctx;
    try {
      if (refused) found.module.sendError(ctx, refused.status, refused.code, refused.message);
      else if (faultError !== undefined) found.module.sendError(ctx, 400, 'invalid_fault_spec', faultError);
      else if (tooLarge)
        found.module.sendError(ctx, 413, 'request_entity_too_large', `The request body is larger than ${limit} bytes`);
      else if (found.kind === 'not-found')
        found.module.sendError(ctx, 404, 'not_found', `No route for ${request.method} ${request.path}`);
      else if (found.kind === 'method-not-allowed')
        found.module.sendError(ctx, 405, 'method_not_allowed', `${request.method} is not allowed on ${request.path}`, {
          allow: found.allowed.join(', '),
        });
      else if (tooDeep)
        found.module.sendError(
          ctx,
          400,
          'invalid_request',
          `The request body nests deeper than ${MAX_BODY_DEPTH} levels`,
        );
      else {
        // One route start per turn of the event loop (admission.ts): a burst does not hold up streams in flight.
        const turn = admission.admit();
        if (turn) await turn;
        await found.handler(ctx);
      }
    } catch (error) {
      if (isEngineFailure(error)) {
        // An upstream's failure, in the front protocol's words: its error answer, or its in-stream error event.
        resolved.log(`${request.method} ${request.path}: ${error.status} ${error.code}: ${error.message}`);
        if (!res.headersSent) found.module.sendError(ctx, error.status, error.code, error.message, error.headers);
        else if (ctx.failStream) await ctx.failStream();
        else res.destroy();
        return;
      }
      resolved.log(`${request.method} ${request.path}: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent)
        found.module.sendError(ctx, 500, 'internal_server_error', 'The local server failed to answer this request');
      else res.destroy();
    }
  }

  /** Resolves when no request is in flight any more, or after `ms`, whichever comes first. */
  function allSettledWithin(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        settled.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      settled.add(done);
    });
  }

  // For HTTPS this is the raw TCP socket too, so close() still cuts every connection.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('the server has no TCP address'));
        return;
      }
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      guard = { names: acceptedHostNames(resolved.host), scheme: options.tls ? 'https' : 'http' };
      if (options.preloadTokenizer) preloadTokenizer(services.engine, resolved.log);
      let closing: Promise<void> | undefined;
      let closed: Promise<void> | undefined;
      resolve({
        url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
        requests,
        faults,
        expireTokens: () => services.tokens.expireAll(),
        async drain(graceMs) {
          draining = true;
          // Stops listening; kept-alive connections with nothing in flight go now, the rest as their answers end.
          closed ??= new Promise<void>((done) => server.close(() => done()));
          server.closeIdleConnections();
          if (inFlight.size > 0) await allSettledWithin(graceMs);
          return inFlight.size;
        },
        close() {
          closing ??= (async () => {
            draining = true;
            closed ??= new Promise<void>((done) => server.close(() => done()));
            closedController.abort();
            for (const controller of inFlight) controller.abort();
            for (const socket of sockets) socket.destroy();
            await closed;
            await services.engine.close();
            for (const other of familyServices.values()) await other.engine.close();
          })();
          return closing;
        },
      });
    });
  });
}

/** Whether the request says it carries a body (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A refused request's body is read and dropped, so the connection stays usable; nothing of it is kept. */
function discardBody(req: IncomingMessage): { text: string; tooLarge: boolean } {
  req.resume();
  return { text: '', tooLarge: false };
}

/**
 * The body as text, or tooLarge past `limit`. Events rather than `for await`: the async iterator cost a promise per
 * chunk and most of a small request's reading time. A client that goes away mid-body leaves what arrived.
 */
function readBody(req: IncomingMessage, limit: number): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      // One chunk (nearly every request) is decoded as it is; several are joined first, so a character split
      // between them survives.
      const text = tooLarge
        ? ''
        : chunks.length === 1
          ? chunks[0]!.toString('utf8')
          : Buffer.concat(chunks).toString('utf8');
      resolve({ text, tooLarge });
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    };
    if (req.readableEnded) {
      done();
      return;
    }
    req.on('data', onData);
    req.on('end', done);
    req.on('error', done);
    req.on('close', done);
  });
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
