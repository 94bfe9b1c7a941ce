/**
 * Faults on the way to an answer: the ones that act before any header is written (status and busy answers, wrong
 * content types, delays, hangs, dropped sockets), and the cut of a non-stream answer halfway through its body.
 */
import type { RouteContext } from './router.js';
import { flushed, pause, sendJson, untilAborted, write } from './respond.js';
import type { Fault } from './types.js';

/** How one protocol words the answers a fault makes up. */
export interface FaultWording {
  /** An error status in the protocol's own error shape; `headers` carry Retry-After and retry-after-ms. */
  status(status: number, headers: Record<string, string>): void;
  /** The protocol's "busy, come back later" answer (Aleph Alpha: 503 QUEUE_FULL). */
  busy(headers: Record<string, string>): void;
}

/**
 * Applies the part of a fault that comes before the headers, with the protocol's wording. Returns true when the
 * request has been dealt with (answered, dropped, or abandoned), false when the handler should go on.
 */
export async function applyFault(fault: Fault | undefined, ctx: RouteContext, wording: FaultWording): Promise<boolean> {
  if (!fault) return false;
  switch (fault.kind) {
    case 'status':
      if (fault.body === undefined) wording.status(fault.status, retryHeaders(fault));
      else sendOwnBody(ctx, fault.status, fault.body, retryHeaders(fault));
      return true;
    case 'busy':
      wording.busy(retryHeaders(fault));
      return true;
    case 'content-type':
      sendWrongType(ctx, fault.type);
      return true;
    case 'delay':
      return !(await pause(
        fault.maxMs === undefined ? fault.ms : fault.ms + Math.random() * (fault.maxMs - fault.ms),
        ctx.signal,
      ));
    case 'hang':
      await untilAborted(ctx.signal);
      return true;
    case 'drop':
      if (fault.afterEvents !== undefined) return false;
      ctx.res.socket?.destroy();
      return true;
    default:
      // Stream faults act later, inside the event stream.
      return false;
  }
}

/**
 * A non-stream 200 answer, unless the request's fault (with `plain`) cuts it after its headers and half its body:
 * `drop` then destroys the socket, `stall` goes silent until the client gives up, `truncate` ends the body cleanly
 * (no content-length, so the short body is a complete HTTP message).
 */
export async function sendAnswer(ctx: RouteContext, fault: Fault | undefined, body: unknown): Promise<void> {
  if (ctx.signal.aborted) return;
  if (
    !fault ||
    (fault.kind !== 'drop' && fault.kind !== 'stall' && fault.kind !== 'truncate') ||
    fault.plain !== true
  ) {
    sendJson(ctx.res, 200, body);
    return;
  }
  const text = Buffer.from(JSON.stringify(body));
  const half = text.subarray(0, Math.floor(text.length / 2));
  if (fault.kind === 'truncate') {
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.end(half);
    return;
  }
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
  if (!(await write(ctx.res, half, ctx.signal))) return;
  if (fault.kind === 'stall') {
    await untilAborted(ctx.signal);
    return;
  }
  // What was written must reach the client before the cut, or the test could not tell a cut from a refusal.
  await flushed(ctx.res);
  ctx.res.socket?.destroy();
}

/** A fault's own body: strings go out as they are, anything else as JSON. */
export function faultBody(body: unknown): { text: string; contentType: string } {
  return typeof body === 'string'
    ? { text: body, contentType: 'text/plain' }
    : { text: JSON.stringify(body), contentType: 'application/json' };
}

function retryHeaders(fault: { retryAfter?: string; retryAfterMs?: number }): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
  return headers;
}

function sendOwnBody(ctx: RouteContext, status: number, body: unknown, headers: Record<string, string>): void {
  const { text, contentType } = faultBody(body);
  ctx.res.writeHead(status, { 'content-type': contentType, ...headers });
  ctx.res.end(text);
}

/** What a captive portal or a misrouted proxy sends with a 200. */
const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to continue</title></head>\n' +
  '<body><h1>Network login required</h1><p>This network requires you to sign in before you can reach the Internet.</p></body></html>\n';

/** A 200 with the given content type and a body of that type, which is not what the protocol promises. */
export function sendWrongType(ctx: RouteContext, type: string): void {
  const body = wrongTypeBody(type);
  ctx.res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
  ctx.res.end(body);
}

export function wrongTypeBody(type: string): Buffer {
  const subtype = type.split('/')[1] ?? '';
  if (subtype === 'html' || subtype === 'xhtml+xml') return Buffer.from(HTML_PAGE);
  if (subtype === 'json' || subtype.endsWith('+json'))
    return Buffer.from('{"status":"ok","message":"this is not the answer the protocol promises"}');
  if (subtype === 'xml' || subtype.endsWith('+xml')) return Buffer.from('<?xml version="1.0"?>\n<status>ok</status>\n');
  if (subtype === 'octet-stream') return junkBytes(256);
  return Buffer.from('OK\n');
}

/**
 * Bytes that are not UTF-8: lead bytes without continuations, stray continuations, 0xFE/0xFF and NULs. Never CR
 * or LF, so as an event line they stay one line. The same bytes every time, so failures reproduce.
 */
export function junkBytes(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 0x2545f491;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const b = i % 7 === 3 ? 0 : 0x80 | ((x >>> 16) & 0x7f);
    out[i] = b;
  }
  return out;
}
