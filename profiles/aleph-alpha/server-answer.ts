import type { RouteContext } from '../../src/server/router.js';
import { applyFaultBeforeHeaders, faultBody } from '../../src/server/apply-fault.js';
import { sendJson } from '../../src/server/respond.js';
import { codeForStatus, messageForStatus, sendAlephAlphaError } from './server-errors.js';

/**
 * The last step of every Aleph Alpha route: a queued fault (status, delay, drop) answers instead, in the
 * service's error shape; otherwise the 200 JSON answer goes out.
 */
export async function answerUnlessFault(ctx: RouteContext, body: unknown): Promise<void> {
  const handled = await applyFaultBeforeHeaders(ctx.server.faults.take(false), ctx, (f, headers) => {
    if (f.body === undefined) return sendAlephAlphaError(ctx.res, f.status, codeForStatus(f.status), messageForStatus(f.status), headers);
    const { text, contentType } = faultBody(f.body);
    ctx.res.writeHead(f.status, { 'content-type': contentType, ...headers });
    ctx.res.end(text);
  });
  if (!handled) sendJson(ctx.res, 200, body);
}
