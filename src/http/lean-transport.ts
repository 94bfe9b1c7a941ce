/**
 * A lean HTTP/1.1 keep-alive transport on `net` (for https `tls`) sockets, for the lines of a batch (client.ts
 * chooses it when the caller asks, `SendOptions.lean`, for a URL that goes through no proxy and no cassette). A batch
 * sends thousands of alike requests; node:http's generic machinery (agent, ClientRequest, IncomingMessage, a socket
 * timer per request, two writes per request) was most of the CLI's CPU per prompt (docs/performance.md, "Batch").
 * Here: the request goes out in one write, its header block serialised once for as long as the headers stay the
 * same; the answer is read by lean-parser.ts; one timer per transport watches every exchange's deadlines.
 *
 * The guarantees of node-transport.ts hold: undici's timeout codes (connect, headers, body silence), one retry of a
 * request whose reused connection turns out closed before any answer, a connection opened only when no idle one
 * is left (so at most as many as requests in flight), a server's `keep-alive: timeout` honoured. A header node:http
 * would refuse goes through node-transport.ts, which refuses it in its words.
 */
import { connect, isIP, type Socket } from 'node:net';
import { trustedCas } from './trusted-cas.js';
import { Readable } from 'node:stream';
import { ResponseParser, type ResponseHead } from './lean-parser.js';
import type {
  BodyListener,
  BodySource,
  Transport,
  TransportBody,
  TransportRequest,
  TransportResponse,
  TransportSettings,
  WholeLimits,
} from './transport.js';
import { LiveSet, type Membership } from '../contract/live-set.js';

const DUMP_LIMIT = 128 * 1024;
/** Body bytes held for a reader that has not chosen how to read yet. */
const UNREAD_LIMIT = 64 * 1024;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What the lean transport writes as is: printable ASCII and tabs (anything else goes through node:http). */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;

function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const aborted = (): Error => coded('This operation was aborted', 'ABORT_ERR');

function isStale(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED';
}

interface Conn {
  socket: Socket;
  key: string;
  exchange: Exchange | undefined;
  /** Carried an answer before: a failure before any byte of the next one may be a stale connection. */
  reused: boolean;
  connected: boolean;
  idleSince: number;
  keepAliveMs: number | undefined;
  /** One per connection, reset for each answer. */
  parser: ResponseParser | undefined;
}

type Phase = 'connect' | 'headers' | 'body' | 'done';

/** One request and its answer on one connection. */
class Exchange {
  phase: Phase = 'connect';
  /** Its place among the exchanges in flight (the sweep's). */
  active: Membership | undefined;
  started = 0;
  lastActive = 0;
  headersAt = 0;
  head: ResponseHead | undefined;
  /** Body bytes not yet taken by a reader. */
  chunks: Buffer[] = [];
  received = 0;
  ended = false;
  failure: Error | undefined;
  stream: Readable | undefined;
  /** listen(): who gets the body as it comes. */
  listener: BodyListener | undefined;
  /** whole(): its limits and how to settle it. */
  collect: { limits: WholeLimits; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  /** dump() and close: called when the answer has ended or failed. */
  settled: Array<() => void> = [];
  onAbort: (() => void) | undefined;
  resolveHead: ((head: ResponseHead) => void) | undefined;
  rejectHead: ((err: Error) => void) | undefined;
  constructor(
    readonly conn: Conn,
    readonly signal: AbortSignal | undefined,
  ) {}
}

export async function createLeanTransport(
  settings: TransportSettings,
  fallback: () => Promise<Transport>,
): Promise<Transport> {
  const { timeoutMs, connectTimeoutMs } = settings;
  const ca = settings.caCertPath === undefined ? undefined : await trustedCas(settings.caCertPath);
  const idle = new Map<string, Conn[]>();
  const all = new Set<Conn>();
  // A LiveSet, not a Set: a Set kept every finished exchange reachable for the scavenger (live-set.ts).
  const active = new LiveSet<Exchange>();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  /** The last header block written: rebuilt only when the method, URL or a header changes. */
  let cached:
    | { method: string; target: string; host: string; headers: Record<string, string>; text: string }
    | undefined;

  // --- the one timer ---------------------------------------------------------------------------------------------
  const deadlineOf = (ex: Exchange): number => {
    if (ex.phase === 'connect') return connectTimeoutMs > 0 ? ex.started + connectTimeoutMs : Number.POSITIVE_INFINITY;
    let at = timeoutMs > 0 ? ex.lastActive + timeoutMs : Number.POSITIVE_INFINITY;
    if (ex.phase === 'body' && ex.collect !== undefined && ex.collect.limits.wholeMs > 0)
      at = Math.min(at, ex.headersAt + ex.collect.limits.wholeMs);
    return at;
  };
  const arm = (at: number): void => {
    if (at === Number.POSITIVE_INFINITY || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(sweep, Math.max(1, at - Date.now()));
    timer.unref();
  };
  function sweep(): void {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const ex of active) {
      const at = deadlineOf(ex);
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      if (ex.phase === 'connect')
        fail(ex, coded(`connect timeout after ${connectTimeoutMs} ms`, 'UND_ERR_CONNECT_TIMEOUT'));
      else if (ex.phase === 'headers')
        fail(ex, coded(`headers timeout after ${timeoutMs} ms`, 'UND_ERR_HEADERS_TIMEOUT'));
      else if (timeoutMs > 0 && ex.lastActive + timeoutMs <= now)
        fail(ex, coded(`body timeout after ${timeoutMs} ms`, 'UND_ERR_BODY_TIMEOUT'));
      else if (ex.collect !== undefined) fail(ex, ex.collect.limits.tooSlow());
    }
    arm(next);
  }

  // --- connections -----------------------------------------------------------------------------------------------
  function release(ex: Exchange): void {
    if (ex.active !== undefined) active.delete(ex.active);
    ex.active = undefined;
    if (ex.onAbort !== undefined) ex.signal?.removeEventListener('abort', ex.onAbort);
    const conn = ex.conn;
    if (conn.exchange === ex) conn.exchange = undefined;
    for (const f of ex.settled.splice(0)) f();
  }

  function destroyConn(conn: Conn): void {
    all.delete(conn);
    const list = idle.get(conn.key);
    const at = list?.indexOf(conn) ?? -1;
    if (at !== -1) list?.splice(at, 1);
    conn.socket.destroy();
  }

  /** The exchange failed: before its headers its promise rejects, after them its body reader gets the error. */
  function fail(ex: Exchange, err: Error): void {
    if (ex.phase === 'done') return;
    const before = ex.phase !== 'body';
    ex.phase = 'done';
    ex.failure = err;
    destroyConn(ex.conn);
    if (before) ex.rejectHead?.(err);
    else {
      ex.stream?.destroy(err);
      ex.listener?.error(err);
      ex.collect?.reject(err);
    }
    release(ex);
  }

  function ended(ex: Exchange): void {
    ex.phase = 'done';
    ex.ended = true;
    const conn = ex.conn;
    const head = ex.head as ResponseHead;
    release(ex);
    // A stream reader's backpressure may have paused the socket; the next answer on it must flow.
    if (conn.socket.isPaused()) conn.socket.resume();
    if (head.keepAlive && !conn.socket.destroyed) {
      conn.reused = true;
      conn.idleSince = Date.now();
      conn.keepAliveMs = head.keepAliveMs;
      conn.socket.unref();
      let list = idle.get(conn.key);
      if (list === undefined) idle.set(conn.key, (list = []));
      list.push(conn);
    } else destroyConn(conn);
    if (ex.stream !== undefined) ex.stream.push(null);
    ex.listener?.end();
    if (ex.collect !== undefined)
      ex.collect.resolve(ex.chunks.length === 1 ? (ex.chunks[0] as Buffer) : Buffer.concat(ex.chunks));
  }

  const parserOf = (conn: Conn): ResponseParser => conn.parser as ResponseParser;

  function newParser(conn: Conn): ResponseParser {
    const parser = new ResponseParser(
      {
        head(head) {
          const ex = conn.exchange;
          if (ex === undefined) return;
          ex.head = head;
          ex.phase = 'body';
          ex.headersAt = Date.now();
          ex.resolveHead?.(head);
        },
        data(chunk) {
          const ex = conn.exchange;
          if (ex === undefined) return;
          ex.received += chunk.length;
          if (ex.collect !== undefined) {
            if (ex.received > ex.collect.limits.maxBytes) {
              fail(ex, ex.collect.limits.tooLarge());
              return;
            }
            ex.chunks.push(chunk);
          } else if (ex.listener !== undefined) ex.listener.data(chunk);
          else if (ex.stream !== undefined) {
            if (!ex.stream.push(chunk)) conn.socket.pause();
          } else {
            ex.chunks.push(chunk);
            // Nobody reads yet: hold at most about one read's worth, as a paused stream would.
            if (ex.received > UNREAD_LIMIT) conn.socket.pause();
          }
        },
        end() {
          const ex = conn.exchange;
          if (ex !== undefined) ended(ex);
        },
      },
      false,
    );
    conn.parser = parser;
    return parser;
  }

  function open(key: string, host: string, port: number, https: boolean): Conn {
    // node:tls only for an https URL, with what node:https's agent gives it: SNI for a host name, --ca-cert, --insecure.
    const socket = https
      ? process.getBuiltinModule('node:tls').connect({
          host,
          port,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          rejectUnauthorized: settings.insecure !== true,
          ...(ca === undefined ? {} : { ca }),
        })
      : connect({ host, port, noDelay: true });
    if (https) socket.setNoDelay(true);
    const conn: Conn = {
      socket,
      key,
      exchange: undefined,
      reused: false,
      connected: false,
      idleSince: 0,
      keepAliveMs: undefined,
      parser: undefined,
    };
    all.add(conn);
    newParser(conn);
    // Connected, for https once the handshake is done: the connect timeout covers both, as in node-transport.ts.
    socket.once(https ? 'secureConnect' : 'connect', () => {
      conn.connected = true;
      const ex = conn.exchange;
      if (ex !== undefined && ex.phase === 'connect') {
        ex.phase = 'headers';
        ex.lastActive = Date.now();
        arm(deadlineOf(ex));
      }
    });
    socket.on('data', (chunk: Buffer) => {
      const ex = conn.exchange;
      if (ex === undefined) {
        // Bytes nobody asked for on an idle connection: it cannot be trusted with the next request.
        destroyConn(conn);
        return;
      }
      ex.lastActive = Date.now();
      const parser = parserOf(conn);
      try {
        parser.execute(chunk);
      } catch (err) {
        fail(ex, err as Error);
        return;
      }
      // Bytes after the end of the answer, in the same read: the connection went idle before the parser saw them.
      if (parser.leftover > 0 && conn.exchange === undefined) destroyConn(conn);
    });
    socket.on('error', (err: Error) => {
      const ex = conn.exchange;
      if (ex !== undefined) fail(ex, err);
      else destroyConn(conn);
    });
    socket.on('close', () => {
      all.delete(conn);
      const list = idle.get(key);
      const at = list?.indexOf(conn) ?? -1;
      if (at !== -1) list?.splice(at, 1);
      const ex = conn.exchange;
      if (ex === undefined || ex.phase === 'done') return;
      if (ex.phase === 'body' && parserOf(conn).closed()) return;
      // node:http's words for a connection that ended before (or in the middle of) its answer.
      fail(
        ex,
        ex.phase === 'body' ? coded('other side closed', 'UND_ERR_CLOSED') : coded('socket hang up', 'ECONNRESET'),
      );
    });
    return conn;
  }

  function take(key: string, host: string, port: number, https: boolean): Conn {
    const list = idle.get(key);
    const now = Date.now();
    while (list !== undefined && list.length > 0) {
      const conn = list.pop() as Conn;
      // As node:http's agent: a connection the server is about to close (its keep-alive timeout, less a second).
      if (
        conn.socket.destroyed ||
        (conn.keepAliveMs !== undefined && now - conn.idleSince >= conn.keepAliveMs - 1000)
      ) {
        destroyConn(conn);
        continue;
      }
      conn.socket.ref();
      return conn;
    }
    return open(key, host, port, https);
  }

  function headerBlock(method: string, url: URL, headers: Record<string, string>): string | undefined {
    const target = `${url.pathname}${url.search}`;
    if (
      cached !== undefined &&
      cached.method === method &&
      cached.target === target &&
      cached.host === url.host &&
      sameHeaders(cached.headers, headers)
    )
      return cached.text;
    let text = `${method} ${target} HTTP/1.1\r\n`;
    let host = false;
    for (const name in headers) {
      const value = headers[name] as string;
      if (!TOKEN.test(name) || !PLAIN_VALUE.test(value)) return undefined;
      const lower = name.toLowerCase();
      if (lower === 'host') host = true;
      // Framing and the connection are this transport's business, as they are node:http's.
      if (lower === 'content-length' || lower === 'connection' || lower === 'transfer-encoding') return undefined;
      text += `${name}: ${value}\r\n`;
    }
    if (!host) text += `host: ${url.host}\r\n`;
    text += 'connection: keep-alive\r\n';
    cached = { method, target, host: url.host, headers: { ...headers }, text };
    return text;
  }

  function send(url: URL, spec: TransportRequest, retried: boolean): Promise<TransportResponse> {
    const { signal } = spec;
    if (signal?.aborted) return Promise.reject(aborted());
    const https = url.protocol === 'https:';
    const block = https || url.protocol === 'http:' ? headerBlock(spec.method, url, spec.headers) : undefined;
    // Anything unusual goes the general way.
    if (block === undefined) return fallback().then((t) => t.request(url, spec));
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    const key = `${url.protocol}${host}:${port}`;
    const conn = take(key, host, port, https);
    const ex = new Exchange(conn, signal);
    conn.exchange = ex;
    parserOf(conn).reset(spec.method === 'HEAD');
    const now = Date.now();
    ex.started = now;
    ex.lastActive = now;
    if (conn.connected) ex.phase = 'headers';
    ex.active = active.add(ex);
    arm(deadlineOf(ex));
    return new Promise<TransportResponse>((resolve, reject) => {
      ex.resolveHead = (head) => resolve(response(ex, head));
      ex.rejectHead = (err) => {
        if (!retried && conn.reused && !parserOf(conn).started && isStale(err) && !signal?.aborted) {
          send(url, spec, true).then(resolve, reject);
          return;
        }
        reject(err);
      };
      if (signal !== undefined) {
        ex.onAbort = () => fail(ex, aborted());
        signal.addEventListener('abort', ex.onAbort, { once: true });
      }
      const body = spec.body ?? '';
      // As node:http: a POST or PUT says its length even when empty; a bodiless GET, HEAD or DELETE does not.
      const length =
        spec.body === undefined && spec.method !== 'POST' && spec.method !== 'PUT'
          ? ''
          : `content-length: ${Buffer.byteLength(body)}\r\n`;
      conn.socket.write(`${block}${length}\r\n${body}`);
    });
  }

  const readers: Readers = { streamOf, listen, whole, dump };
  const response = (ex: Exchange, head: ResponseHead): TransportResponse => new LeanResponse(ex, head, readers);

  /** The body as a stream, for the answers read as they come (an event stream, a compressed body). */
  function streamOf(ex: Exchange): TransportBody {
    const socket = ex.conn.socket;
    const stream = new Readable({
      read() {
        if (socket.isPaused() && ex.phase === 'body') socket.resume();
      },
      destroy(err, callback) {
        // The reader gave up on the body: the connection cannot carry another answer.
        if (ex.phase === 'body') fail(ex, err ?? aborted());
        callback(err);
      },
    });
    for (const chunk of ex.chunks.splice(0)) stream.push(chunk);
    if (ex.ended) stream.push(null);
    else if (ex.failure !== undefined) process.nextTick(() => stream.destroy(ex.failure));
    ex.stream = stream;
    return stream as TransportBody;
  }

  /** The body handed on as it comes, for a reader that takes every chunk at once (response.ts, an event stream). */
  function listen(ex: Exchange, listener: BodyListener): BodySource {
    const socket = ex.conn.socket;
    let paused = false;
    return {
      start() {
        ex.listener = listener;
        // What came with the head or before the reader asked: handed on first, in order.
        for (const chunk of ex.chunks.splice(0)) {
          if (ex.failure !== undefined) break;
          listener.data(chunk);
        }
        if (ex.ended) listener.end();
        else if (ex.failure !== undefined) listener.error(ex.failure);
        else if (!paused && socket.isPaused()) socket.resume();
      },
      pause() {
        paused = true;
        if (ex.phase === 'body') socket.pause();
      },
      resume() {
        paused = false;
        if (ex.phase === 'body' && socket.isPaused()) socket.resume();
      },
      isPaused: () => paused,
      destroy(error) {
        // The reader gave up on the body: the connection cannot carry another answer.
        if (ex.phase === 'body') fail(ex, error ?? aborted());
      },
    };
  }

  function whole(ex: Exchange, limits: WholeLimits): Promise<Buffer> {
    if (ex.ended) return Promise.resolve(Buffer.concat(ex.chunks));
    if (ex.failure !== undefined) return Promise.reject(ex.failure);
    if (ex.received > limits.maxBytes) {
      const err = limits.tooLarge();
      fail(ex, err);
      return Promise.reject(err);
    }
    return new Promise<Buffer>((resolve, reject) => {
      ex.collect = { limits, resolve, reject };
      if (ex.conn.socket.isPaused()) ex.conn.socket.resume();
      arm(deadlineOf(ex));
    });
  }

  function dump(ex: Exchange): Promise<void> {
    if (ex.phase === 'done') return Promise.resolve();
    if (ex.received > DUMP_LIMIT) {
      fail(ex, aborted());
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      ex.settled.push(resolve);
      ex.collect = {
        limits: { maxBytes: DUMP_LIMIT, tooLarge: aborted, wholeMs: 0, tooSlow: aborted },
        resolve: () => undefined,
        reject: () => undefined,
      };
      if (ex.conn.socket.isPaused()) ex.conn.socket.resume();
    });
  }

  return {
    request: (url, spec) => send(url, spec, false),
    async destroy() {
      clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      for (const conn of [...all]) {
        const ex = conn.exchange;
        if (ex !== undefined) fail(ex, coded('other side closed', 'UND_ERR_CLOSED'));
        else destroyConn(conn);
      }
      idle.clear();
    },
  };
}

interface Readers {
  streamOf(ex: Exchange): TransportBody;
  listen(ex: Exchange, listener: BodyListener): BodySource;
  whole(ex: Exchange, limits: WholeLimits): Promise<Buffer>;
  dump(ex: Exchange): Promise<void>;
}

/** A class, not an object literal with a getter: a batch makes thousands. */
class LeanResponse implements TransportResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly flat = true;
  #body: TransportBody | undefined;
  readonly #ex: Exchange;
  readonly #readers: Readers;
  constructor(ex: Exchange, head: ResponseHead, readers: Readers) {
    this.statusCode = head.statusCode;
    this.headers = head.headers;
    this.#ex = ex;
    this.#readers = readers;
  }
  /** Made on first use: a whole answer never needs a stream. */
  get body(): TransportBody {
    this.#body ??= this.#readers.streamOf(this.#ex);
    return this.#body;
  }
  whole(limits: WholeLimits): Promise<Buffer> {
    return this.#readers.whole(this.#ex, limits);
  }
  listen(listener: BodyListener): BodySource {
    return this.#readers.listen(this.#ex, listener);
  }
  dump(): Promise<void> {
    return this.#readers.dump(this.#ex);
  }
}

function sameHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  let n = 0;
  for (const name in b) {
    if (a[name] !== b[name]) return false;
    n++;
  }
  for (const _ in a) n--;
  return n === 0;
}
