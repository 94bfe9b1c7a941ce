/**
 * An incremental HTTP/1.1 response parser for the lean transport (lean-transport.ts): the status line and headers
 * (within node:http's maxHeaderSize), 1xx answers skipped, then a body framed by content-length, chunked
 * transfer-encoding, or the end of the connection. What it cannot read is an error whose code says so (HPE_…, as
 * Node's own parser names them; UND_ERR_HEADERS_OVERFLOW for headers too large), so network-error.ts words it.
 */
import { maxHeaderSize } from 'node:http';

export type Framing = 'none' | 'length' | 'chunked' | 'close';

export interface ResponseHead {
  statusCode: number;
  /** Lower-case names; repeated headers joined as node:http and flattenHeaders (response.ts) would. */
  headers: Record<string, string>;
  /** The connection may carry the next request once this answer has ended. */
  keepAlive: boolean;
  /** The server's `keep-alive: timeout=N`, in ms (undefined: it said nothing). */
  keepAliveMs: number | undefined;
  framing: Framing;
}

export interface ParserEvents {
  head(head: ResponseHead): void;
  data(chunk: Buffer): void;
  end(): void;
}

export function parseError(message: string, code: string): Error {
  return Object.assign(new Error(`Parse Error: ${message}`), { code });
}

const CRLF2 = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Not a tab, CR, LF, printable ASCII or obs-text: no head may hold it (a lone CR or LF is looked for per line). */
const BAD_HEAD_CHAR = /[^\t\r\n\x20-\x7e\x80-\xff]/;
/** Header names seen, as written → lower-cased: a server spells the same few names in every answer. */
const NAMES = new Map<string, string>();
const MAX_NAMES = 512;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
/** Headers node:http keeps only the first of (IncomingMessage's `_addHeaderLine`). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);
/** Longest chunk-size line read (hex digits and extensions). */
const MAX_CHUNK_LINE = 4096;

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailer' | 'close' | 'done';

export class ResponseParser {
  #state: State = 'head';
  #pending: Buffer | undefined;
  #remaining = 0;
  #trailerBytes = 0;
  readonly #events: ParserEvents;
  /** The request was a HEAD: its answer has no body whatever its headers say. */
  #noBody: boolean;

  constructor(events: ParserEvents, noBody = false) {
    this.#events = events;
    this.#noBody = noBody;
  }

  /** Ready for the answer to the next request on the same connection. */
  reset(noBody: boolean): void {
    this.#state = 'head';
    this.#pending = undefined;
    this.#remaining = 0;
    this.#trailerBytes = 0;
    this.leftover = 0;
    this.#noBody = noBody;
  }

  /** True once the answer has ended. */
  get done(): boolean {
    return this.#state === 'done';
  }

  /** True once any byte of the answer has arrived. */
  get started(): boolean {
    return this.#state !== 'head' || this.#pending !== undefined;
  }

  /** Bytes left over after the answer ended (a server that sent more than one answer). */
  leftover = 0;

  /** Feeds the bytes the socket read; throws a parse error. */
  execute(chunk: Buffer): void {
    let buf = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = undefined;
    while (buf.length > 0) {
      switch (this.#state) {
        case 'head': {
          const end = buf.indexOf(CRLF2);
          if (end === -1) {
            if (buf.length > maxHeaderSize) throw parseError('Header overflow', 'UND_ERR_HEADERS_OVERFLOW');
            this.#pending = buf;
            return;
          }
          if (end + 4 > maxHeaderSize) throw parseError('Header overflow', 'UND_ERR_HEADERS_OVERFLOW');
          const head = this.#parseHead(buf.toString('latin1', 0, end));
          buf = buf.subarray(end + 4);
          if (head === undefined) continue; // a 1xx: the real answer follows
          this.#events.head(head);
          this.#begin(head);
          continue;
        }
        case 'length': {
          const take = Math.min(this.#remaining, buf.length);
          this.#remaining -= take;
          this.#events.data(take === buf.length ? buf : buf.subarray(0, take));
          buf = buf.subarray(take);
          if (this.#remaining === 0) this.#finish();
          continue;
        }
        case 'close':
          this.#events.data(buf);
          return;
        case 'chunk-size': {
          const eol = buf.indexOf('\r\n');
          if (eol === -1) {
            if (buf.length > MAX_CHUNK_LINE) throw parseError('Chunk size line too long', 'HPE_INVALID_CHUNK_SIZE');
            this.#pending = buf;
            return;
          }
          const line = buf.toString('latin1', 0, eol);
          const hex = (line.includes(';') ? line.slice(0, line.indexOf(';')) : line).trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex))
            throw parseError('Invalid character in chunk size', 'HPE_INVALID_CHUNK_SIZE');
          this.#remaining = Number.parseInt(hex, 16);
          buf = buf.subarray(eol + 2);
          this.#state = this.#remaining === 0 ? 'trailer' : 'chunk-data';
          continue;
        }
        case 'chunk-data': {
          const take = Math.min(this.#remaining, buf.length);
          this.#remaining -= take;
          this.#events.data(take === buf.length ? buf : buf.subarray(0, take));
          buf = buf.subarray(take);
          if (this.#remaining === 0) this.#state = 'chunk-crlf';
          continue;
        }
        case 'chunk-crlf': {
          if (buf.length < 2) {
            this.#pending = buf;
            return;
          }
          if (buf[0] !== 13 || buf[1] !== 10) throw parseError('Expected LF after chunk data', 'HPE_STRICT');
          buf = buf.subarray(2);
          this.#state = 'chunk-size';
          continue;
        }
        case 'trailer': {
          // Trailer fields, then an empty line: read and dropped, as node:http's body readers do.
          const eol = buf.indexOf('\r\n');
          if (eol === -1) {
            this.#trailerBytes += buf.length;
            if (this.#trailerBytes > maxHeaderSize) throw parseError('Header overflow', 'UND_ERR_HEADERS_OVERFLOW');
            this.#pending = buf;
            return;
          }
          this.#trailerBytes += eol + 2;
          if (this.#trailerBytes > maxHeaderSize) throw parseError('Header overflow', 'UND_ERR_HEADERS_OVERFLOW');
          buf = buf.subarray(eol + 2);
          if (eol === 0) this.#finish();
          continue;
        }
        case 'done':
          this.leftover += buf.length;
          return;
      }
    }
  }

  /** The connection ended: true when that ends the answer (a body framed by the close), false when it cut it. */
  closed(): boolean {
    if (this.#state === 'close') {
      this.#finish();
      return true;
    }
    return this.#state === 'done';
  }

  #begin(head: ResponseHead): void {
    if (head.framing === 'none') this.#finish();
    else if (head.framing === 'chunked') this.#state = 'chunk-size';
    else if (head.framing === 'close') this.#state = 'close';
    else {
      this.#remaining = Number(head.headers['content-length']);
      if (this.#remaining === 0) this.#finish();
      else this.#state = 'length';
    }
  }

  #finish(): void {
    this.#state = 'done';
    this.#events.end();
  }

  /** The head of an answer; undefined for a 1xx that another head follows. */
  #parseHead(text: string): ResponseHead | undefined {
    // One scan of the whole head for characters no header may hold (the line breaks are split on below).
    if (BAD_HEAD_CHAR.test(text)) throw parseError('Invalid header value char', 'HPE_INVALID_HEADER_TOKEN');
    let eol = text.indexOf('\r\n');
    if (eol === -1) eol = text.length;
    const status = STATUS_LINE.exec(text.slice(0, eol));
    if (status === null) throw parseError('Expected HTTP/1.x status line', 'HPE_INVALID_CONSTANT');
    const statusCode = Number(status[2]);
    const headers: Record<string, string> = {};
    while (eol < text.length) {
      const start = eol + 2;
      eol = text.indexOf('\r\n', start);
      if (eol === -1) eol = text.length;
      const colon = text.indexOf(':', start);
      if (colon <= start || colon > eol) throw parseError('Invalid header token', 'HPE_INVALID_HEADER_TOKEN');
      const name = text.slice(start, colon);
      let key = NAMES.get(name);
      if (key === undefined) {
        if (!TOKEN.test(name)) throw parseError('Invalid header token', 'HPE_INVALID_HEADER_TOKEN');
        key = name.toLowerCase();
        if (NAMES.size < MAX_NAMES) NAMES.set(name, key);
      }
      const value = text.slice(colon + 1, eol).trim();
      if (value.includes('\n') || value.includes('\r'))
        throw parseError('Invalid header value char', 'HPE_INVALID_HEADER_TOKEN');
      const had = headers[key];
      if (had === undefined) headers[key] = value;
      else if (!FIRST_ONLY.has(key)) headers[key] = `${had}${key === 'cookie' ? '; ' : ', '}${value}`;
      else if (key === 'content-length' && had !== value)
        throw parseError('Duplicate Content-Length', 'HPE_UNEXPECTED_CONTENT_LENGTH');
    }
    if (statusCode >= 100 && statusCode < 200) {
      if (statusCode === 101) throw parseError('Unexpected protocol switch (101)', 'HPE_INVALID_CONSTANT');
      return undefined;
    }
    const http10 = status[1] === '0';
    const connection = (headers.connection ?? '').toLowerCase();
    const keepAlive = http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection);
    const te = headers['transfer-encoding'];
    const cl = headers['content-length'];
    let framing: Framing;
    if (this.#noBody || statusCode === 204 || statusCode === 304) framing = 'none';
    else if (te !== undefined) {
      if (cl !== undefined) throw parseError('Content-Length with Transfer-Encoding', 'HPE_UNEXPECTED_CONTENT_LENGTH');
      framing = /(?:^|,)\s*chunked\s*$/i.test(te) ? 'chunked' : 'close';
    } else if (cl !== undefined) {
      if (!/^\d{1,15}$/.test(cl)) throw parseError('Invalid Content-Length', 'HPE_INVALID_CONTENT_LENGTH');
      framing = 'length';
    } else framing = 'close';
    const timeout = /\btimeout=(\d+)/.exec(headers['keep-alive'] ?? '');
    return {
      statusCode,
      headers,
      keepAlive: keepAlive && framing !== 'close',
      keepAliveMs: timeout ? Number(timeout[1]) * 1000 : undefined,
      framing,
    };
  }
}
