import { formatFault } from './fault-spec.js';
import { logs } from './silent-log.js';
import type { RouteContext } from './router.js';
import type { Fault } from './types.js';

/**
 * The fault for this request: its own (`X-Textgen-Fault` / `?textgen_fault=`) if it carries one, else the
 * queue's. Call it only once the request has passed the checks the service would make, so that a fault never
 * hides a 400. `auxiliary` routes (listings, tokenization, token exchanges) take a queued fault only when it names
 * their path (`path=`); their own header or query fault always applies.
 */
export function takeFault(
  ctx: RouteContext,
  stream: boolean,
  options: { auxiliary?: boolean; batch?: boolean } = {},
): Fault | undefined {
  // A batch line the server runs itself is no client's request: only the fault the batch gave it applies.
  if (ctx.internal === true) return ctx.requestFault;
  const fault =
    ctx.requestFault ??
    ctx.server.faults.take(stream, {
      path: ctx.request.path,
      auxiliary: options.auxiliary === true,
      batch: options.batch === true,
    });
  if (fault && logs(ctx.server.log))
    ctx.server.log(`fault ${formatFault(fault)} on ${ctx.request.method} ${ctx.request.path}`);
  return fault;
}
