/**
 * Credentials on the completions routes. Azure (`/openai/deployments/…`) takes its `api-key` header or a bearer
 * token (Entra ID); OpenAI's `/v1` routes take only `Authorization: Bearer`, as OpenAI does — so a client that sends
 * Azure's header to an OpenAI-compatible server gets the 401 that server would answer.
 */
import type { RouteContext } from '../../../src/emulator/core/router.js';
import type { Dialect } from './errors.js';

/** Without requireAuth anything goes; with it, the dialect's header must carry one of the server's API keys. */
export function completionsAuthorized(ctx: RouteContext, dialect: Dialect): boolean {
  const { requireAuth, apiKeys } = ctx.server.options;
  if (!requireAuth) return true;
  const apiKey = ctx.request.headers['api-key'];
  if (dialect === 'azure' && apiKey !== undefined && apiKeys.includes(apiKey.trim())) return true;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.request.headers.authorization ?? '');
  return bearer !== null && apiKeys.includes(bearer[1]!);
}
