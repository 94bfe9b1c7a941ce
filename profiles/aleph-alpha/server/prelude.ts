import { randomUUID } from 'node:crypto';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { isAuthorized, UNAUTHENTICATED_MESSAGE } from './auth.js';
import { sendAlephAlphaError } from './errors.js';

/**
 * What every Aleph Alpha route checks first, in the service's order: a request id, credentials, the `nice` query
 * parameter (where the route takes it), a body that is JSON. Returns the parsed body, or undefined once the
 * problem has been answered.
 */
export function alephAlphaPrelude(ctx: RouteContext, options: { nice: boolean }): { json: unknown } | undefined {
  ctx.res.setHeader('x-request-id', randomUUID());
  if (!isAuthorized(ctx)) return void sendAlephAlphaError(ctx.res, 401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
  const nice = ctx.request.query.nice;
  if (options.nice && nice !== undefined && nice !== 'true' && nice !== 'false') {
    return void sendAlephAlphaError(
      ctx.res,
      400,
      'BAD_REQUEST',
      `Invalid query parameter 'nice': expected true or false, got '${nice}'`,
    );
  }
  if (!('json' in ctx.request)) {
    const message =
      ctx.request.body.trim() === ''
        ? 'Invalid request: the request body is empty'
        : 'Invalid request: the request body is not valid JSON';
    return void sendAlephAlphaError(ctx.res, 400, 'BAD_REQUEST', message);
  }
  return { json: ctx.request.json };
}
