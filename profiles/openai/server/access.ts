/**
 * What every Azure OpenAI and OpenAI route checks first, in the services' order: the credentials (a 401 in each
 * dialect's words), then, on Azure, the `api-version` query parameter (a 400 naming it).
 */
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { completionsAuthorized } from './auth.js';
import { ACCESS_DENIED, type CompletionsError, type Dialect } from './errors.js';

/** A date, with `-preview` for the preview versions; the date is the first group. */
const API_VERSION = /^(\d{4}-\d{2}-\d{2})(-preview)?$/;

/** The 401 each dialect answers without valid credentials. */
export function unauthorized(dialect: Dialect): CompletionsError {
  return dialect === 'azure'
    ? { code: '401', message: ACCESS_DENIED }
    : {
        code: 'invalid_api_key',
        message: 'Incorrect or missing API key. Provide it as "Authorization: Bearer <key>".',
        type: 'invalid_request_error',
      };
}

/**
 * Azure's `api-version`: its date, or the 400 the service answers when it is missing or not a date (`example` is
 * how the route's message words the form it expects).
 */
export function apiVersionOf(ctx: RouteContext, example: string): { date: string } | { error: CompletionsError } {
  const version = ctx.request.query['api-version'];
  if (version === undefined || version === '') {
    return {
      error: {
        code: 'BadRequest',
        message: 'The api-version query parameter (?api-version=) is required for all requests.',
        param: 'api-version',
      },
    };
  }
  const match = API_VERSION.exec(version);
  if (!match) {
    return {
      error: {
        code: 'BadRequest',
        message: `Unsupported api-version '${version}': expected a date such as ${example}.`,
        param: 'api-version',
      },
    };
  }
  return { date: match[1] as string };
}

/** Both checks for `dialect`; the first problem as status and error, or undefined when the request may go on. */
export function accessProblem(
  ctx: RouteContext,
  dialect: Dialect,
  example: string,
): { status: number; error: CompletionsError } | undefined {
  if (!completionsAuthorized(ctx, dialect)) return { status: 401, error: unauthorized(dialect) };
  if (dialect === 'openai') return undefined;
  const version = apiVersionOf(ctx, example);
  return 'error' in version ? { status: 400, error: version.error } : undefined;
}
