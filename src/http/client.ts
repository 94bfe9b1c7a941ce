/**
 * The one HTTP client (docs/design.md §7): retries with backoff, timeouts, proxy and TLS settings, errors
 * mapped to NetworkError/Interrupted, and the `--verbose` trace. Creating a client is free; the transport
 * and the modules around it load on the first `send`, because most invocations (help, version,
 * dry runs, usage errors) never send anything. A request goes out through node:http(s) (node-transport.ts), or,
 * when HTTP(S)_PROXY sends it through a proxy, through undici (undici-transport.ts), which loads only then.
 */
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS } from '../contract/call-defaults.js';
import { Interrupted, TextgenError, UsageError } from '../contract/errors.js';
import { KnownSecrets, redactUrl } from '../contract/redact.js';
import { isRetryableStatus, LONG_WAIT_MS, retryAfterMs, retryDelayMs, sleep as realSleep } from './retry.js';
import type { HttpClient, HttpClientOptions, HttpRequestSpec, HttpResponse, SendOptions } from '../contract/http.js';
import type { Transport, TransportResponse, TransportSettings } from './transport.js';
import type { CassetteSettings } from '../cassette/transport.js';
import type { WrappedResponse } from './response.js';
import { extensibleCopy } from '../contract/spread.js';

/**
 * `auto`: node:http(s) for direct requests (the lean transport for one that asks for it,
 * `SendOptions.lean`), undici for proxied ones; `undici`: undici for every request; `lean`: the lean transport for
 * every direct request (the tests run the client's whole suite over each).
 */
export type TransportChoice = 'auto' | 'undici' | 'lean';

export interface HttpClientSettings extends HttpClientOptions {
  /**
   * A choice, or the Transport itself: `serve --upstream` hands every upstream client the one transport it built
   * (src/http/upstream-transport.ts), which its owner destroys, not the client.
   */
  transport?: TransportChoice | Transport;
  /** `--record DIR` / `--replay DIR`: every request goes through a cassette around the transport (src/cassette/). */
  cassette?: CassetteSettings | undefined;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_SERVICE = 'server';

/** Everything that is loaded on the first send. */
interface Machinery {
  /** The transport for a URL (`lean`: the caller asked for the lean transport): created on its first request. */
  transportFor: (url: URL, lean?: boolean) => Promise<Transport>;
  /** The cassette every request goes through instead, with --record or --replay (it reaches transportFor itself). */
  cassette: Transport | undefined;
  /** Destroys the transports created so far. */
  destroy: () => Promise<void>;
  userAgent: string;
  /** The proxy `host:port` a URL goes through, for error messages. */
  proxyFor: (url: URL) => string | undefined;
  tracer: import('./trace.js').Tracer;
  describeRequestFailure: typeof import('./network-error.js').describeRequestFailure;
  flattenHeaders: typeof import('./response.js').flattenHeaders;
  wrapResponse: typeof import('./response.js').wrapResponse;
  readWholeResponse: typeof import('./response.js').readWholeResponse;
  readWholeDirect: typeof import('./response.js').readWholeDirect;
  isBodyReset: typeof import('./network-error.js').isBodyReset;
  acceptEncoding: string;
}

function count(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value));
}

function parseUrl(request: HttpRequestSpec, service: string): URL {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new UsageError(`invalid URL for ${service}: ${redactUrl(request.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`unsupported URL scheme for ${service}: ${url.protocol} (use http or https)`);
  }
  return url;
}

export function createHttpClient(options: HttpClientSettings = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const secrets = options.secrets instanceof KnownSecrets ? options.secrets : new KnownSecrets(options.secrets ?? []);
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;

  let machinery: Promise<Machinery> | undefined;
  // A batch sends thousands of requests to one URL: parsed, and its proxy looked up, once.
  let lastUrl: { text: string; url: URL; origin?: string; proxy?: { host: string | undefined } } | undefined;
  // ... and sends the same credential headers every time: each value is learnt as a secret once.
  const learnt = new Map<string, string>();
  const urlOf = (spec: HttpRequestSpec, service: string): NonNullable<typeof lastUrl> => {
    if (lastUrl?.text !== spec.url) lastUrl = { text: spec.url, url: parseUrl(spec, service) };
    return lastUrl;
  };

  async function load(): Promise<Machinery> {
    const [proxyEnv, trace, network, response, agent] = await Promise.all([
      import('./proxy-env.js'),
      import('./trace.js'),
      import('./network-error.js'),
      import('./response.js'),
      import('./user-agent.js'),
    ]);
    const settings: TransportSettings = {
      timeoutMs,
      connectTimeoutMs,
      caCertPath: options.caCertPath,
      insecure: options.insecure,
      env: options.env,
    };
    const proxy = proxyEnv.proxyFromEnv(options.env);
    let direct: Promise<Transport> | undefined;
    let viaUndici: Promise<Transport> | undefined;
    let lean: Promise<Transport> | undefined;
    // A failed creation (an unreadable CA file) is not kept: the next request reports it again.
    const fresh = (make: () => Promise<Transport>, forget: () => void): Promise<Transport> =>
      make().catch((err: unknown) => {
        forget();
        throw err;
      });
    const undiciTransport = (): Promise<Transport> =>
      (viaUndici ??= fresh(
        async () => (await import('./undici/undici-transport.js')).createUndiciTransport(settings),
        () => (viaUndici = undefined),
      ));
    const given = typeof options.transport === 'object' ? options.transport : undefined;
    const nodeTransport = (): Promise<Transport> =>
      (direct ??= fresh(
        async () => (await import('./node-transport.js')).createNodeTransport(settings),
        () => (direct = undefined),
      ));
    const transportFor = (url: URL, wantsLean = false): Promise<Transport> => {
      if (given) return Promise.resolve(given);
      if (options.transport === 'undici' || proxyEnv.proxyFor(proxy, url) !== undefined) return undiciTransport();
      if (wantsLean || options.transport === 'lean')
        return (lean ??= fresh(
          async () => (await import('./lean-transport.js')).createLeanTransport(settings, nodeTransport),
          () => (lean = undefined),
        ));
      return nodeTransport();
    };
    // CA file errors show on the first send, as they did when the one dispatcher was built here.
    if (options.caCertPath !== undefined) await (await import('./trusted-cas.js')).trustedCas(options.caCertPath);
    const cassette =
      options.cassette === undefined
        ? undefined
        : (await import('../cassette/transport.js')).cassetteTransport(transportFor, options.cassette, secrets);
    return {
      transportFor,
      cassette,
      async destroy() {
        // The entries recorded so far reach the disk before the process may exit.
        await cassette?.destroy();
        const made = [lean, direct, viaUndici];
        lean = direct = viaUndici = undefined;
        await Promise.all(made.map(async (t) => (await t?.catch(() => undefined))?.destroy()));
      },
      userAgent: options.userAgent ?? agent.userAgent(),
      proxyFor: (url) => proxyEnv.proxyFor(proxy, url),
      tracer: new trace.Tracer(options.trace, secrets),
      describeRequestFailure: network.describeRequestFailure,
      flattenHeaders: response.flattenHeaders,
      wrapResponse: response.wrapResponse,
      readWholeResponse: response.readWholeResponse,
      readWholeDirect: response.readWholeDirect,
      isBodyReset: network.isBodyReset,
      acceptEncoding: response.ACCEPT_ENCODING,
    };
  }

  function ready(): Promise<Machinery> {
    // A failed load (unreadable CA file) is not cached: the next call reports it again.
    machinery ??= load().catch((err: unknown) => {
      machinery = undefined;
      throw err;
    });
    return machinery;
  }

  async function send(spec: HttpRequestSpec, sendOptions: SendOptions = {}): Promise<HttpResponse> {
    const { signal } = sendOptions;
    const service = sendOptions.service ?? DEFAULT_SERVICE;
    const retries = count(sendOptions.retries ?? options.retries, DEFAULT_RETRIES);
    const parsed = urlOf(spec, service);
    const { url } = parsed;

    const checkAbort = (): void => {
      if (signal?.aborted) throw new Interrupted();
    };
    const pause = async (ms: number): Promise<void> => {
      try {
        await sleep(ms, signal);
      } catch (err) {
        checkAbort();
        throw err;
      }
      // An injected sleep may ignore the signal.
      checkAbort();
    };

    checkAbort();
    const m = await ready();
    // Whatever credential goes out (an exchanged token, a ZenApiKey) is masked wherever it comes back.
    let agentChosen = false;
    let encodingChosen = false;
    for (const name in spec.headers) {
      const value = spec.headers[name] as string;
      if (learnt.get(name) !== value) {
        learnt.set(name, value);
        secrets.addHeader(name, value);
      }
      const lower = name.toLowerCase();
      if (lower === 'user-agent') agentChosen = true;
      else if (lower === 'accept-encoding') encodingChosen = true;
    }
    // The user agent is added here, the one place every request passes (token exchanges too), so `--verbose` shows
    // it as sent; one copy of the headers for both additions (a batch sends thousands of requests).
    const sent = agentChosen && encodingChosen ? spec.headers : extensibleCopy(spec.headers);
    if (!agentChosen) sent['user-agent'] = m.userAgent;
    const traced = m.tracer.enabled ? { ...spec, headers: { ...sent } } : undefined;
    // Gateways compress answers; the response layer decodes what is advertised here (unless the caller chose).
    if (!encodingChosen) sent['accept-encoding'] = m.acceptEncoding;
    parsed.proxy ??= { host: m.proxyFor(url) };
    parsed.origin ??= url.origin;
    const failureContext = { service, origin: parsed.origin, timeoutMs, connectTimeoutMs, proxy: parsed.proxy.host };
    for (let attempt = 0; ; attempt++) {
      checkAbort();
      if (traced !== undefined) m.tracer.request(traced);
      // process.hrtime, not performance.now(): the first use of `performance` loads node:perf_hooks (about 2 ms).
      const started = process.hrtime.bigint();
      const transport = m.cassette ?? (await m.transportFor(url, sendOptions.lean));
      let data: TransportResponse;
      try {
        data = await transport.request(url, { method: spec.method, headers: sent, body: spec.body, signal });
      } catch (err) {
        checkAbort();
        // A cassette miss, or a cassette that cannot be read, is said as it is (and never retried).
        if (err instanceof TextgenError) throw err;
        const failure = m.describeRequestFailure(err, failureContext);
        if (!failure.retryable || attempt >= retries) throw failure.error;
        const delay = retryDelayMs(attempt, undefined, random);
        m.tracer.retry(delay, failure.reason, attempt + 2, retries + 1);
        await pause(delay);
        continue;
      }

      const headers = data.flat === true ? (data.headers as Record<string, string>) : m.flattenHeaders(data.headers);
      m.tracer.response(data.statusCode, headers, Number(process.hrtime.bigint() - started) / 1e6);
      if (isRetryableStatus(data.statusCode) && attempt < retries) {
        const delay = retryDelayMs(attempt, headers, random);
        m.tracer.retry(delay, `HTTP ${data.statusCode}`, attempt + 2, retries + 1);
        if (delay >= LONG_WAIT_MS && retryAfterMs(headers) !== undefined) {
          options.notice?.(
            `note: ${service} answered HTTP ${data.statusCode} and asked to wait; retrying in ${Math.round(delay / 1000)} s (attempt ${attempt + 2} of ${retries + 1}; --retries 0 gives up at once)`,
          );
        }
        // Reading the (small) error body lets the transport reuse the socket; a big one is destroyed.
        await data.dump().catch(() => undefined);
        await pause(delay);
        continue;
      }
      const responseContext = { failure: failureContext, signal, secrets };
      // A transport that reads whole answers itself (the lean one) needs no stream around a JSON answer.
      const direct = m.readWholeDirect(data, responseContext, headers);
      const res = direct === undefined ? m.wrapResponse(data, responseContext, headers) : undefined;
      if (res !== undefined && (headers['content-type'] ?? '').includes('text/event-stream')) return res;
      try {
        return await (direct ?? m.readWholeResponse(res as WrappedResponse, responseContext));
      } catch (err) {
        checkAbort();
        if (!m.isBodyReset(err) || attempt >= retries) throw err;
        const delay = retryDelayMs(attempt, undefined, random);
        m.tracer.retry(delay, 'connection broke off in the middle of the answer', attempt + 2, retries + 1);
        await pause(delay);
      }
    }
  }

  async function close(): Promise<void> {
    const pending = machinery;
    machinery = undefined;
    if (!pending) return;
    let m: Machinery;
    try {
      m = await pending;
    } catch {
      return; // nothing was opened
    }
    // destroy, not close: close() would wait forever for a body the caller chose not to read.
    await m.destroy();
  }

  return { send, close };
}
