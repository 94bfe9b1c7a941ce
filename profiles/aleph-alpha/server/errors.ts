/** Aleph Alpha error bodies: `{"error":"<message>","code":"<UPPER_SNAKE>"}`. */
import type { ServerResponse } from 'node:http';
import type { FaultWording } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';

export interface AlephAlphaErrorBody {
  error: string;
  code: string;
}

export function sendAlephAlphaError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body: AlephAlphaErrorBody = { error: message, code };
  sendJson(res, status, body, headers);
}

/**
 * The code a bare status is dressed in (fault switches, router errors). QUEUE_FULL (503) and UNKNOWN_MODEL (404)
 * are the service's documented codes; the others follow its UPPER_SNAKE style.
 */
export function codeForStatus(status: number): string {
  const codes: Record<number, string> = {
    400: 'BAD_REQUEST',
    401: 'UNAUTHENTICATED',
    402: 'OUT_OF_CREDITS',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    408: 'TIMEOUT',
    413: 'PAYLOAD_TOO_LARGE',
    429: 'TOO_MANY_REQUESTS',
    500: 'INTERNAL_ERROR',
    502: 'BAD_GATEWAY',
    503: 'QUEUE_FULL',
    504: 'GATEWAY_TIMEOUT',
  };
  return codes[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

export function messageForStatus(status: number): string {
  if (status === 429) return 'Too many requests; retry later';
  if (status === 503) return 'The model is busy: its queue is full; retry later';
  if (status >= 500) return `The service is temporarily unable to process the request (HTTP ${status})`;
  return `The request was rejected (HTTP ${status})`;
}

/** Router codes come in snake_case ("not_found"); AA writes them in upper case. */
export function upperSnake(code: string): string {
  return code.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** Faults in the service's words; busy is its documented 503 QUEUE_FULL (docs/protocols/aleph-alpha.md). */
export function alephAlphaFaultWording(res: ServerResponse): FaultWording {
  return {
    status: (status, headers) =>
      sendAlephAlphaError(res, status, codeForStatus(status), messageForStatus(status), headers),
    busy: (headers) => sendAlephAlphaError(res, 503, 'QUEUE_FULL', messageForStatus(503), headers),
  };
}
