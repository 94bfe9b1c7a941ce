/**
 * Azure OpenAI's v1 API (`/openai/v1/…`): the OpenAI-style routes with the model (the deployment name) in the body,
 * and no dated `api-version`. The query may leave it out or say `preview`, `latest` or `v1` (what @ai-sdk/azure
 * sends); a dated version is refused with Azure's 400. Credentials as on Azure's other routes: `api-key` or a bearer
 * token.
 */
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { unauthorized } from './access.js';
import { completionsAuthorized } from './auth.js';
import { sendCompletionsError, stampRequestId } from './errors.js';

/** The api-version values the v1 routes take; none at all is the usual case. */
export const AZURE_V1_API_VERSIONS = ['v1', 'preview', 'latest'] as const;

/** Answers the problem itself and returns false, or returns true when the request may go on. */
export function azureV1Access(ctx: RouteContext): boolean {
  stampRequestId(ctx);
  if (!completionsAuthorized(ctx, 'azure')) {
    sendCompletionsError(ctx, 401, unauthorized('azure'));
    return false;
  }
  const version = ctx.request.query['api-version'];
  if (version === undefined || (AZURE_V1_API_VERSIONS as readonly string[]).includes(version)) return true;
  sendCompletionsError(ctx, 400, {
    code: 'BadRequest',
    message: `API version not supported: the v1 routes (/openai/v1/) take no api-version, or api-version=preview or latest; got '${version}'.`,
    param: 'api-version',
  });
  return false;
}
