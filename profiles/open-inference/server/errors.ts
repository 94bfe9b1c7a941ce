/**
 * Open Inference error answers: `{"error": "<message>"}` with the spec's statuses (422 validation, 424 generation,
 * 429 overloaded, 500 incomplete), plus TGI's `error_type` for those four so clients get a code to show.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FaultWording } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';

export interface OipErrorBody {
  error: string;
  error_type?: string;
}

const ERROR_TYPES: Record<number, string> = {
  422: 'validation',
  424: 'generation',
  429: 'overloaded',
  500: 'incomplete_generation',
};

/** The spec's example messages for its statuses; a generic one for the rest. */
export function messageForStatus(status: number): string {
  const messages: Record<number, string> = {
    400: 'Bad request',
    404: 'Not found',
    408: 'Request timeout',
    422: 'Input validation error',
    424: 'Request failed during generation',
    429: 'Model is overloaded',
    500: 'Incomplete generation',
    502: 'Bad gateway',
    503: 'Service unavailable',
    504: 'Gateway timeout',
  };
  return messages[status] ?? `HTTP ${status}`;
}

export function oipErrorBody(status: number, message: string): OipErrorBody {
  const type = ERROR_TYPES[status];
  return type !== undefined ? { error: message, error_type: type } : { error: message };
}

export function sendOipError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, oipErrorBody(status, message), headers);
}

/**
 * Every answer carries `x-request-id` (the client's own, else a fresh one), as the gateways in front of KServe and
 * Triton add it: it is the trace id clients show in error messages.
 */
export function tagRequestId(ctx: RouteContext): void {
  if (ctx.res.headersSent) return;
  const given = ctx.request.headers['x-request-id'];
  ctx.res.setHeader('x-request-id', given !== undefined && given !== '' ? given : randomUUID());
}

/** Faults in the spec's words; busy is its 429 "Model is overloaded" (error_type overloaded), as TGI sends it. */
export function oipFaultWording(res: ServerResponse): FaultWording {
  return {
    status: (status, headers) => sendOipError(res, status, messageForStatus(status), headers),
    busy: (headers) => sendOipError(res, 429, messageForStatus(429), headers),
  };
}
