import type { RouteContext } from '../../../src/emulator/core/router.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { alephAlphaFaultWording } from './errors.js';

/**
 * The last step of every Aleph Alpha route: a fault (queued, or the request's own) answers instead, in the
 * service's error shape, or cuts the answer; otherwise the 200 JSON answer goes out.
 */
export async function answerUnlessFault(ctx: RouteContext, body: unknown): Promise<void> {
  const fault = takeFault(ctx, false);
  if (await applyFault(fault, ctx, alephAlphaFaultWording(ctx.res))) return;
  await sendAnswer(ctx, fault, body);
}
