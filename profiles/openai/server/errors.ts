/**
 * Error answers of the local completions server. The Azure path words them as Azure does (`code` first, null fields
 * left out); `/v1` as OpenAI does (`message`, `type`, `param`, `code`, nulls kept). Every answer carries
 * `apim-request-id` (and `x-request-id` on `/v1`), errors included: it is what a user quotes to support.
 */
import { randomUUID } from 'node:crypto';
import type { FaultWording } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';

export type Dialect = 'azure' | 'openai';

export function dialectOf(path: string): Dialect {
  return path.startsWith('/v1/') ? 'openai' : 'azure';
}

/** Sets the request-id headers once per answer; later writeHead calls keep them. */
export function stampRequestId(ctx: RouteContext): void {
  const { res } = ctx;
  if (res.headersSent || res.hasHeader('apim-request-id')) return;
  const id = randomUUID();
  res.setHeader('apim-request-id', id);
  if (dialectOf(ctx.request.path) === 'openai') res.setHeader('x-request-id', id);
}

export interface CompletionsError {
  message: string;
  code?: string | null;
  param?: string | null;
  type?: string | null;
  /** Azure's details, e.g. the content filter's verdict. */
  innererror?: Record<string, unknown>;
}

export function errorBody(dialect: Dialect, status: number, e: CompletionsError): { error: Record<string, unknown> } {
  if (dialect === 'openai') {
    const error: Record<string, unknown> = {
      message: e.message,
      type: e.type ?? null,
      param: e.param ?? null,
      code: e.code ?? null,
    };
    if (e.innererror) error.innererror = e.innererror;
    return { error };
  }
  const error: Record<string, unknown> = {};
  if (e.code != null) error.code = e.code;
  error.message = e.message;
  if (e.param != null) error.param = e.param;
  if (e.type != null) error.type = e.type;
  if (e.innererror) {
    error.status = status;
    error.innererror = e.innererror;
  }
  return { error };
}

export function sendCompletionsError(
  ctx: RouteContext,
  status: number,
  e: CompletionsError,
  headers: Record<string, string> = {},
): void {
  stampRequestId(ctx);
  sendJson(ctx.res, status, errorBody(dialectOf(ctx.request.path), status, e), headers);
}

/** The 400 for a body that is empty or not JSON, in OpenAI's and Azure's words. */
export function sendUnparsableBody(ctx: RouteContext): void {
  const empty = ctx.request.body.trim() === '';
  sendCompletionsError(
    ctx,
    400,
    invalidRequest(
      empty ? 'The request body is empty: expected a JSON object' : 'We could not parse the JSON body of your request.',
      null,
    ),
  );
}

/** A 400 about one request field, as both services word validation failures. */
export function invalidRequest(message: string, param: string | null): CompletionsError {
  return { code: null, message, param, type: 'invalid_request_error' };
}

/** How a fault's bare status is dressed when the test gave no body (Azure's codes and wording). */
export function statusError(
  status: number,
  apiVersion: string | undefined,
  retryAfter: string | undefined,
): CompletionsError {
  if (status === 429) {
    const version = apiVersion ? ` under Azure OpenAI API version ${apiVersion}` : '';
    return {
      code: '429',
      message: `Requests to the Completions_Create Operation${version} have exceeded call rate limit of your current pricing tier. Please retry after ${retryAfter ?? '1'} second${retryAfter === '1' || retryAfter === undefined ? '' : 's'}.`,
      type: 'requests',
    };
  }
  if (status === 401) return { code: '401', message: ACCESS_DENIED };
  if (status >= 500) {
    const codes: Record<number, string> = {
      500: 'InternalServerError',
      502: 'BadGateway',
      503: 'ServiceUnavailable',
      504: 'GatewayTimeout',
    };
    return {
      code: codes[status] ?? 'InternalServerError',
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
    };
  }
  return { code: String(status), message: `The request was rejected (HTTP ${status})` };
}

export const ACCESS_DENIED =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

/** What OpenAI answers when a model has more work than it can take. */
const OVERLOADED: CompletionsError = {
  code: null,
  message: 'The engine is currently overloaded, please try again later',
  type: 'server_error',
};

/**
 * Faults in the services' words. Busy: Azure reports capacity as its 429 rate-limit answer (with Retry-After);
 * OpenAI as 503 "engine overloaded".
 */
export function completionsFaultWording(ctx: RouteContext, apiVersion: string | undefined): FaultWording {
  return {
    status: (status, headers) =>
      sendCompletionsError(ctx, status, statusError(status, apiVersion, headers['retry-after']), headers),
    busy: (headers) =>
      dialectOf(ctx.request.path) === 'azure'
        ? sendCompletionsError(ctx, 429, statusError(429, apiVersion, headers['retry-after']), headers)
        : sendCompletionsError(ctx, 503, OVERLOADED, headers),
  };
}
