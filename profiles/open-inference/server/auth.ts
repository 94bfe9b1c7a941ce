/** `Authorization: Bearer <key>` on Open Inference routes, checked only when the server runs with requireAuth. */
import type { RouteContext } from '../../../src/emulator/core/router.js';
import { sendOipError } from './errors.js';

/** Answers 401 and returns false when the request may not go on. */
export function authorizeOip(ctx: RouteContext): boolean {
  const { requireAuth, apiKeys } = ctx.server.options;
  if (!requireAuth) return true;
  const header = ctx.request.headers.authorization ?? '';
  const [scheme = '', credential = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer' && credential !== '' && apiKeys.includes(credential)) return true;
  const message =
    header === ''
      ? 'Missing Authorization header: send "Authorization: Bearer <key>"'
      : 'Invalid credentials in the Authorization header';
  sendOipError(ctx.res, 401, message, { 'www-authenticate': 'Bearer' });
  return false;
}
