import { describe, expect, it } from 'vitest';
import { ResponseParser, type ResponseHead } from '../../src/http/lean-parser.js';

interface Parsed {
  heads: ResponseHead[];
  body: string;
  ends: number;
  parser: ResponseParser;
}

function parser(noBody = false): Parsed {
  const out: Parsed = { heads: [], body: '', ends: 0, parser: undefined as unknown as ResponseParser };
  out.parser = new ResponseParser(
    {
      head: (h) => out.heads.push(h),
      data: (c) => {
        out.body += c.toString('latin1');
      },
      end: () => {
        out.ends++;
      },
    },
    noBody,
  );
  return out;
}

/** Feeds `text` in pieces of `size` bytes (1: byte by byte, every split point a socket could make). */
function feed(p: Parsed, text: string, size = text.length): Parsed {
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += size) p.parser.execute(bytes.subarray(i, i + size));
  return p;
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5;ext=1\r\n{"a":\r\nA\r\n"012345678\r\n1\r\n}\r\n0\r\nX-Trailer: yes\r\n\r\n';

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return (e as { code?: unknown }).code;
  }
  return undefined;
}

describe('ResponseParser', () => {
  it('reads a content-length answer, headers lower-cased, and says it keeps the connection', () => {
    const p = feed(
      parser(),
      'HTTP/1.1 201 Created\r\nContent-Length: 7\r\nX-Id: a\r\nKeep-Alive: timeout=5\r\n\r\n{"a":1}',
    );
    expect(p.heads).toEqual([
      {
        statusCode: 201,
        headers: { 'content-length': '7', 'x-id': 'a', 'keep-alive': 'timeout=5' },
        keepAlive: true,
        keepAliveMs: 5000,
        framing: 'length',
      },
    ]);
    expect(p.body).toBe('{"a":1}');
    expect(p.ends).toBe(1);
    expect(p.parser.done).toBe(true);
  });

  it.each([1, 2, 3, 7, 1000])('reads a chunked answer with extensions and trailers split every %i bytes', (size) => {
    const p = feed(parser(), CHUNKED, size);
    expect(p.heads).toHaveLength(1);
    expect(p.heads[0]?.framing).toBe('chunked');
    expect(p.body).toBe('{"a":"012345678}');
    expect(p.ends).toBe(1);
  });

  it('reads headers split across reads byte by byte', () => {
    const p = feed(parser(), 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 1\r\n\r\nok', 1);
    expect(p.heads[0]?.headers).toEqual({ 'content-length': '2', 'x-a': '1' });
    expect(p.body).toBe('ok');
    expect(p.ends).toBe(1);
  });

  it('joins repeated headers as node:http does, keeping the first of those it keeps once', () => {
    const p = feed(
      parser(),
      'HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a: 2\r\nContent-Type: a\r\nContent-Type: b\r\nSet-Cookie: c=1\r\nSet-Cookie: d=2\r\ncontent-length: 0\r\n\r\n',
    );
    expect(p.heads[0]?.headers).toEqual({
      'x-a': '1, 2',
      'content-type': 'a',
      'set-cookie': 'c=1, d=2',
      'content-length': '0',
    });
    expect(p.ends).toBe(1);
  });

  it('skips a 100 Continue and a 103 before the answer', () => {
    const p = feed(
      parser(),
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nx',
    );
    expect(p.heads.map((h) => h.statusCode)).toEqual([200]);
    expect(p.body).toBe('x');
  });

  it('an answer without length is framed by the end of the connection, which it may not outlive', () => {
    const p = feed(parser(), 'HTTP/1.1 200 OK\r\n\r\npart one, ');
    feed(p, 'part two');
    expect(p.heads[0]).toMatchObject({ framing: 'close', keepAlive: false });
    expect(p.ends).toBe(0);
    expect(p.parser.closed()).toBe(true);
    expect(p.body).toBe('part one, part two');
    expect(p.ends).toBe(1);
  });

  it('a connection closed in the middle of a content-length body cuts the answer', () => {
    const p = feed(parser(), 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc');
    expect(p.parser.closed()).toBe(false);
    expect(p.ends).toBe(0);
  });

  it('Connection: close and HTTP/1.0 answers do not keep the connection; HTTP/1.0 keep-alive does', () => {
    const close = feed(parser(), 'HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 0\r\n\r\n');
    const old = feed(parser(), 'HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n');
    const oldKept = feed(parser(), 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\ncontent-length: 0\r\n\r\n');
    expect([close, old, oldKept].map((p) => p.heads[0]?.keepAlive)).toEqual([false, false, true]);
  });

  it('204, 304 and the answer to a HEAD have no body whatever their headers say', () => {
    expect(feed(parser(), 'HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\n').ends).toBe(1);
    expect(feed(parser(), 'HTTP/1.1 304 Not Modified\r\n\r\n').ends).toBe(1);
    expect(feed(parser(true), 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n').ends).toBe(1);
  });

  it('counts bytes after the end of the answer (the connection is then not reused)', () => {
    const p = feed(parser(), 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n');
    expect(p.body).toBe('ok');
    expect(p.parser.leftover).toBe(17);
  });

  it.each([
    ['not HTTP at all', 'SSH-2.0-OpenSSH_9.6\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a bad status line', 'HTTP/1.1 2000 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nbroken header\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a bare LF inside the head', 'HTTP/1.1 200 OK\r\nx-a: a\nx-b: c\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nx-a: a\u0001b\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
    ['a bad content-length', 'HTTP/1.1 200 OK\r\ncontent-length: 12abc\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH'],
    [
      'two different content-lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    [
      'content-length with chunked',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', 'HPE_INVALID_CHUNK_SIZE'],
    ['chunk data without its CRLF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n', 'HPE_STRICT'],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\n\r\n', 'HPE_INVALID_CONSTANT'],
  ])('%s is a parse error with a code', (_what, text, code) => {
    const p = parser();
    expect(codeOf(() => feed(p, text))).toBe(code);
  });

  it('headers larger than node:http reads are UND_ERR_HEADERS_OVERFLOW, even before their end', () => {
    const big = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}`;
    expect(codeOf(() => feed(parser(), big, 4096))).toBe('UND_ERR_HEADERS_OVERFLOW');
    expect(codeOf(() => feed(parser(), `${big}\r\n\r\n`))).toBe('UND_ERR_HEADERS_OVERFLOW');
  });
});
