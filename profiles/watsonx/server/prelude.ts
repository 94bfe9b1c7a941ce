import type { RouteContext } from '../../../src/emulator/core/router.js';
import { authorizeGeneration } from './auth.js';
import { sendV4Error, sendWatsonxError } from './errors.js';

const VERSION_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * What every watsonx `/ml/v1` route checks first, in the service's order: credentials, the `version` query
 * parameter, and — for routes with a body — a body that is JSON (`field` names the field the service says is
 * missing when the body is empty). Returns the parsed body (undefined for routes without one), or false once the
 * problem has been answered — in the `/ml/v1` error shape, or the older `/ml/v4` one (`shape: 'v4'`).
 */
export function watsonxPrelude(
  ctx: RouteContext,
  body?: { field: string },
  shape: 'v1' | 'v4' = 'v1',
): { json: unknown } | false {
  const fail = shape === 'v4' ? failV4 : failV1;
  const auth = authorizeGeneration(ctx);
  if (!auth.ok) return fail(ctx, 401, auth.code, auth.message);
  const version = ctx.request.query.version;
  if (version === undefined || version === '')
    return fail(ctx, 400, 'invalid_request_entity', "Missing query parameter 'version'");
  if (!VERSION_DATE.test(version))
    return fail(
      ctx,
      400,
      'invalid_request_entity',
      `Invalid value '${version}' for query parameter 'version': expected YYYY-MM-DD`,
    );
  if (body === undefined) return { json: undefined };
  if (!('json' in ctx.request)) {
    const message =
      ctx.request.body.trim() === ''
        ? `'${body.field}' cannot be missing or empty in the request body`
        : 'the request body is not valid JSON';
    return fail(ctx, 400, 'json_validation_error', `Json document validation error: ${message}`);
  }
  return { json: ctx.request.json };
}

function failV1(ctx: RouteContext, status: number, code: string, message: string): false {
  sendWatsonxError(ctx.res, status, [{ code, message }]);
  return false;
}

function failV4(ctx: RouteContext, status: number, code: string, message: string): false {
  sendV4Error(ctx.res, status, [{ code, message }]);
  return false;
}
