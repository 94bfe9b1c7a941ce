/** Faults that act before any header is written: status answers, delays, hangs, dropped sockets. */
import type { RouteContext } from './router.js';
import { pause, untilAborted } from './respond.js';
import type { Fault, StatusFault } from './types.js';

export type SendStatusFault = (fault: StatusFault, headers: Record<string, string>) => void;

/**
 * Applies the part of a fault that comes before the headers. Returns true when the request has
 * been dealt with (answered, dropped, or abandoned), false when the handler should go on.
 */
export async function applyFaultBeforeHeaders(fault: Fault | undefined, ctx: RouteContext, sendStatus: SendStatusFault): Promise<boolean> {
  if (!fault) return false;
  switch (fault.kind) {
    case 'status': {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
      sendStatus(fault, headers);
      return true;
    }
    case 'delay':
      return !(await pause(fault.maxMs === undefined ? fault.ms : fault.ms + Math.random() * (fault.maxMs - fault.ms), ctx.signal));
    case 'hang':
      await untilAborted(ctx.signal);
      return true;
    case 'drop':
      if (fault.afterEvents !== undefined) return false;
      ctx.res.socket?.destroy();
      return true;
    default:
      // Stream faults act later, inside the event stream.
      return false;
  }
}

/** A fault's own body: strings go out as they are, anything else as JSON. */
export function faultBody(body: unknown): { text: string; contentType: string } {
  return typeof body === 'string' ? { text: body, contentType: 'text/plain' } : { text: JSON.stringify(body), contentType: 'application/json' };
}
