/** Credentials on the completions routes: Azure's `api-key` header or a bearer token (Entra ID, OpenAI). */
import type { RouteContext } from '../../../src/emulator/core/router.js';

/** Without requireAuth anything goes; with it, either header must carry one of the server's API keys. */
export function completionsAuthorized(ctx: RouteContext): boolean {
  const { requireAuth, apiKeys } = ctx.server.options;
  if (!requireAuth) return true;
  const apiKey = ctx.request.headers['api-key'];
  if (apiKey !== undefined && apiKeys.includes(apiKey.trim())) return true;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.request.headers.authorization ?? '');
  return bearer !== null && apiKeys.includes(bearer[1]!);
}
