/**
 * The fault switches tests flip on a running server. The queue is the array the test holds
 * (`server.faults`); `times` is counted down here without touching the test's objects.
 */
import type { Fault, StreamFault } from './types.js';

/** A fault that acts inside an event stream (after some events). */
export function isStreamFault(fault: Fault): fault is StreamFault {
  return (
    fault.kind === 'stream-error' ||
    fault.kind === 'stall' ||
    fault.kind === 'truncate' ||
    fault.kind === 'malformed' ||
    (fault.kind === 'drop' && fault.afterEvents !== undefined)
  );
}

/** A queued fault that lets non-stream requests pass and waits for the next stream. */
export function waitsForStream(fault: Fault): boolean {
  return isStreamFault(fault) && !('plain' in fault && fault.plain === true);
}

/** The request a queued fault may hit: its path, and whether its route is auxiliary (listing, tokens, …). */
export interface FaultTarget {
  path?: string;
  /** True for routes that take queued faults only when a fault names their path. */
  auxiliary?: boolean;
  /** True for the batch-create routes: the only ones a `batch-*` fault applies to. */
  batch?: boolean;
}

function aimedAt(fault: Fault, request: FaultTarget): boolean {
  // A batch fault waits for the next batch created, as a stream fault waits for the next stream.
  if (fault.kind === 'batch')
    return request.batch === true && (fault.path === undefined || request.path?.startsWith(fault.path) === true);
  if (fault.path === undefined) return request.auxiliary !== true;
  return request.path?.startsWith(fault.path) === true;
}

export interface QueuedFault {
  fault: Fault;
  /** Matching requests it will still hit; Infinity for `times=*`. */
  remaining: number;
}

export class FaultQueue {
  private readonly remaining = new WeakMap<Fault, number>();

  constructor(readonly queue: Fault[]) {}

  /**
   * The first fault that applies to a request (stream-only faults only to streams), counted down. A fault with a
   * `path` applies to the requests under it, on any route; one without applies to operation requests only, so a
   * listing or a token exchange made on the way never takes the fault queued for the generation after it.
   */
  take(stream: boolean, request: FaultTarget = {}): Fault | undefined {
    const index = this.queue.findIndex((f) => (stream || !waitsForStream(f)) && aimedAt(f, request));
    if (index < 0) return undefined;
    const fault = this.queue[index]!;
    const left = this.left(fault) - 1;
    if (left <= 0) this.queue.splice(index, 1);
    else this.remaining.set(fault, left);
    return fault;
  }

  push(...faults: Fault[]): void {
    // One at a time: spreading 100 001 faults into one call overflows the stack.
    for (const fault of faults) this.queue.push(fault);
  }

  /** The same, for a list of any length (a POST of many faults). */
  pushAll(faults: readonly Fault[]): void {
    for (const fault of faults) this.queue.push(fault);
  }

  /** Empties the queue; returns how many faults it held. */
  clear(): number {
    const n = this.queue.length;
    this.queue.length = 0;
    return n;
  }

  list(): QueuedFault[] {
    return this.queue.map((fault) => ({ fault, remaining: this.left(fault) }));
  }

  private left(fault: Fault): number {
    return this.remaining.get(fault) ?? fault.times ?? 1;
  }
}
