/**
 * What client.ts needs of an HTTP/1.1 transport: one request out, the status, headers and a body stream back. Two
 * implement it: node-transport.ts (node:http/node:https, for every request that goes straight to the service) and
 * undici-transport.ts (undici, only for requests through an HTTP(S)_PROXY: its proxy agents tunnel and honour
 * NO_PROXY). Failures are thrown, or emitted by the body, as errors whose `code` network-error.ts classifies (the
 * node transport gives its timeouts undici's codes, so one classification serves both).
 */

/** The body of an answer: a Node readable stream (undici's body and node:http's IncomingMessage both are). */
export type TransportBody = NodeJS.ReadableStream & {
  destroy(error?: Error): void;
  isPaused(): boolean;
  pause(): unknown;
  resume(): unknown;
};

export interface TransportResponse {
  statusCode: number;
  /** As the transport gives them: a repeated header may be an array (response.ts flattens). */
  headers: Record<string, string | string[] | undefined>;
  /** The headers are flattened already: lower-case names, one string each (the lean transport's). */
  flat?: boolean;
  body: TransportBody;
  /** Reads a small body to its end so that the connection can be reused; a large one is destroyed. */
  dump(): Promise<void>;
  /**
   * The whole body, as it came on the wire, without a stream (the lean transport, for a batch's thousands of
   * answers); rejects with the body's failure or one of `limits`' errors. Instead of `body`, never with it.
   */
  whole?(limits: WholeLimits): Promise<Buffer>;
  /**
   * The body handed to `listener` as the socket brings it, without a stream in between (the lean transport, for a
   * gateway's event streams: a Readable costs each event a push, a tick and an emit). Instead of `body` and
   * `whole`, never with them. Nothing is delivered before `start()`.
   */
  listen?(listener: BodyListener): BodySource;
}

/** Where `TransportResponse.listen` hands a body: its chunks, then one of `end` or `error`. */
export interface BodyListener {
  data(chunk: Buffer): void;
  end(): void;
  error(err: Error): void;
}

/** The control of a listened-to body: what response.ts asks of a Node stream. */
export interface BodySource {
  /** Delivers what came already, then the rest as it comes. */
  start(): void;
  pause(): void;
  resume(): void;
  isPaused(): boolean;
  /** The reader gives up: the connection cannot carry another answer. */
  destroy(error?: Error): void;
}

export interface WholeLimits {
  /** More body bytes than this: `tooLarge()`. */
  maxBytes: number;
  tooLarge(): Error;
  /** The whole body within this many ms of the headers (0: no bound), else `tooSlow()`. */
  wholeMs: number;
  tooSlow(): Error;
}

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface Transport {
  request(url: URL, request: TransportRequest): Promise<TransportResponse>;
  /**
   * True for a transport that never reaches the network (a cassette replay, src/cassette/): who sends through it
   * sends no credentials and exchanges no token.
   */
  readonly offline?: boolean;
  /** Destroys every connection (a body nobody reads must not keep the process alive). */
  destroy(): Promise<void>;
}

export interface TransportSettings {
  /** Bound on the wait for the response headers, and on silence inside a body. 0: none. */
  timeoutMs: number;
  /** Bound on connecting (TCP and the TLS handshake). */
  connectTimeoutMs: number;
  caCertPath?: string | undefined;
  insecure?: boolean | undefined;
  env?: Record<string, string | undefined> | undefined;
}
