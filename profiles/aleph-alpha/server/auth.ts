import type { RouteContext } from '../../../src/emulator/core/router.js';

/**
 * `Authorization: Bearer <token>`, where the token is one of the server's API keys. Without requireAuth every
 * request is served, with or without a header.
 */
export function isAuthorized(ctx: RouteContext): boolean {
  const { requireAuth, apiKeys } = ctx.server.options;
  if (!requireAuth) return true;
  const [scheme = '', token = ''] = (ctx.request.headers.authorization ?? '').trim().split(/\s+/, 2);
  return scheme.toLowerCase() === 'bearer' && token !== '' && apiKeys.includes(token);
}

export const UNAUTHENTICATED_MESSAGE = 'Missing or invalid token: send Authorization: Bearer <token>';
