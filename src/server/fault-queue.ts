/**
 * The fault switches tests flip on a running server. The queue is the array the test holds
 * (`server.faults`); `times` is counted down here without touching the test's objects.
 */
import type { Fault, StreamFault } from './types.js';

export function isStreamFault(fault: Fault): fault is StreamFault {
  return fault.kind === 'stream-error' || fault.kind === 'stall' || fault.kind === 'malformed' || (fault.kind === 'drop' && fault.afterEvents !== undefined);
}

export class FaultQueue {
  private readonly remaining = new WeakMap<Fault, number>();

  constructor(readonly queue: Fault[]) {}

  /** The first fault that applies to a generation request (stream faults only to streams), counted down. */
  take(stream: boolean): Fault | undefined {
    const index = this.queue.findIndex((f) => stream || !isStreamFault(f));
    if (index < 0) return undefined;
    const fault = this.queue[index]!;
    const left = (this.remaining.get(fault) ?? fault.times ?? 1) - 1;
    if (left <= 0) this.queue.splice(index, 1);
    else this.remaining.set(fault, left);
    return fault;
  }
}
