/**
 * The transport (transport.ts) for every request that goes straight to the service: node:http, or node:https for an
 * https URL, with keep-alive agents (a batch reuses its connections; the pool grows to the concurrency). Node's own
 * HTTP parser is native: loading undici and compiling its WebAssembly parser cost a one-shot request about as much
 * as everything else it does (docs/performance.md), and undici stays for proxies (undici-transport.ts).
 *
 * Timeouts keep undici's meaning and error codes, so network-error.ts classifies both transports alike:
 * connecting (TCP and the TLS handshake) within connectTimeoutMs (UND_ERR_CONNECT_TIMEOUT); then no more than
 * timeoutMs of silence before the headers (UND_ERR_HEADERS_TIMEOUT) or inside the body (UND_ERR_BODY_TIMEOUT).
 */
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { trustedCas } from './trusted-cas.js';
import type { Transport, TransportBody, TransportRequest, TransportResponse, TransportSettings } from './transport.js';
import { merged } from '../contract/spread.js';

/** As undici's `dump()`: a body up to this size is read to free the connection, a larger one is destroyed. */
const DUMP_LIMIT = 128 * 1024;

function coded(message: string, code: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

/** node:http refuses a malformed header (a key pasted with a newline) by throwing; undici's words and code. */
function invalidRequest(err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_HTTP_INVALID_HEADER_VALUE') {
    const name = /\["([^"]+)"\]/.exec(message)?.[1];
    return coded(name === undefined ? message : `invalid ${name.toLowerCase()} header`, 'UND_ERR_INVALID_ARG', err);
  }
  return coded(message, 'UND_ERR_INVALID_ARG', err);
}

/** A keep-alive connection the server had already closed fails before any answer: one more try on a new one. */
function isStaleConnection(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED';
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return true;
  return false;
}

function dumpBody(res: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (res.complete || res.destroyed) {
      resolve();
      return;
    }
    let read = 0;
    res.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > DUMP_LIMIT) res.destroy();
    });
    res.once('end', resolve);
    res.once('close', resolve);
    res.resume();
  });
}

export async function createNodeTransport(settings: TransportSettings): Promise<Transport> {
  const { timeoutMs, connectTimeoutMs } = settings;
  const ca = settings.caCertPath === undefined ? undefined : await trustedCas(settings.caCertPath);
  let httpAgent: Agent | undefined;
  let httpsAgent: HttpsAgent | undefined;

  function send(url: URL, spec: TransportRequest, retried: boolean): Promise<TransportResponse> {
    const https = url.protocol === 'https:';
    const headers =
      spec.body === undefined || hasHeader(spec.headers, 'content-length')
        ? spec.headers
        : merged(spec.headers, { 'content-length': String(Buffer.byteLength(spec.body)) });
    return new Promise<TransportResponse>((resolve, reject) => {
      const { signal } = spec;
      if (signal?.aborted) {
        reject(coded('This operation was aborted', 'ABORT_ERR'));
        return;
      }
      let agent: Agent | HttpsAgent;
      let request: typeof httpRequest;
      if (https) {
        // node:https (and with it tls and crypto) only for an https URL.
        const mod = process.getBuiltinModule('node:https');
        httpsAgent ??= new mod.Agent({
          keepAlive: true,
          rejectUnauthorized: settings.insecure !== true,
          ...(ca === undefined ? {} : { ca }),
        });
        agent = httpsAgent;
        request = mod.request;
      } else {
        httpAgent ??= new Agent({ keepAlive: true });
        agent = httpAgent;
        request = httpRequest;
      }
      let cr: ClientRequest;
      try {
        cr = request({
          hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: spec.method,
          headers,
          agent,
        });
      } catch (err) {
        reject(invalidRequest(err));
        return;
      }
      let res: IncomingMessage | undefined;
      let connectTimer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        const err = coded('This operation was aborted', 'ABORT_ERR');
        if (res) res.destroy(err);
        else cr.destroy(err);
      };
      const done = (): void => {
        clearTimeout(connectTimer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });

      cr.on('socket', (socket: Socket) => {
        if (cr.reusedSocket || connectTimeoutMs <= 0) return;
        // A new connection: TCP, and for https the handshake, within the connect timeout.
        connectTimer = setTimeout(
          () => cr.destroy(coded(`connect timeout after ${connectTimeoutMs} ms`, 'UND_ERR_CONNECT_TIMEOUT')),
          connectTimeoutMs,
        );
        socket.once(https ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      if (timeoutMs > 0) {
        // Node arms this on the socket once it is connected and disarms it when the answer has ended.
        cr.setTimeout(timeoutMs, () => {
          if (res) res.destroy(coded(`body timeout after ${timeoutMs} ms`, 'UND_ERR_BODY_TIMEOUT'));
          else cr.destroy(coded(`headers timeout after ${timeoutMs} ms`, 'UND_ERR_HEADERS_TIMEOUT'));
        });
      }
      cr.on('error', (err: NodeJS.ErrnoException) => {
        if (res) return; // the body reports it (response.ts listens to the body's errors and close)
        done();
        if (!retried && cr.reusedSocket && isStaleConnection(err) && !signal?.aborted) {
          send(url, spec, true).then(resolve, reject);
          return;
        }
        reject(err.code === 'HPE_HEADER_OVERFLOW' ? coded(err.message, 'UND_ERR_HEADERS_OVERFLOW', err) : err);
      });
      cr.on('response', (answer: IncomingMessage) => {
        res = answer;
        clearTimeout(connectTimer);
        // Until response.ts listens: an error in between must not be an uncaught 'error' event.
        answer.on('error', () => undefined);
        answer.once('close', done);
        resolve({
          statusCode: answer.statusCode ?? 0,
          headers: answer.headers,
          body: answer as TransportBody,
          dump: () => dumpBody(answer),
        });
      });
      cr.end(spec.body);
    });
  }

  return {
    request: (url, spec) => send(url, spec, false),
    async destroy() {
      httpAgent?.destroy();
      httpsAgent?.destroy();
    },
  };
}
