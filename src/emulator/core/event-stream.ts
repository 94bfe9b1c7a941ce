/**
 * A server-sent event stream that carries out stream faults: after `afterEvents` events (or at
 * the end, when the stream is shorter) it sends an error event, drops the socket, stalls, or
 * slips in a data line that is not JSON (broken JSON, one oversized line, or binary junk).
 */
import type { RouteContext } from './router.js';
import { junkBytes } from './apply-fault.js';
import { DEFAULT_LONG_LINE_BYTES } from './fault-spec.js';
import { flushed, untilAborted, write } from './respond.js';
import { isStreamFault } from './fault-queue.js';
import type { Fault, StreamFault } from './types.js';

export interface OutgoingEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface StreamFaultWording {
  /** The protocol's in-stream error event. */
  errorEvent(): OutgoingEvent;
  /** An event whose data is not JSON. */
  malformedEvent(): OutgoingEvent;
}

export function formatEvent(e: OutgoingEvent): string {
  let out = '';
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  // JSON.stringify's output has no newline: one data line, without splitting (one event per token).
  if (!e.data.includes('\n')) return `${out}data: ${e.data}\n\n`;
  for (const line of e.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

export class EventStream {
  private readonly fault: StreamFault | undefined;
  private sent = 0;
  private fired = false;
  private over = false;

  constructor(
    private readonly ctx: RouteContext,
    fault: Fault | undefined,
    private readonly wording: StreamFaultWording,
  ) {
    this.fault = fault && isStreamFault(fault) ? fault : undefined;
  }

  /** Sends the 200 headers at once, as streaming services do. */
  open(): void {
    this.ctx.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    this.ctx.res.flushHeaders();
    this.ctx.failStream = () => this.fail();
    this.ctx.admission?.streamOpened(this.ctx.res);
  }

  /** Ends the stream with the protocol's error event (an engine failed mid-stream); nothing after it. */
  async fail(): Promise<void> {
    if (this.over) return;
    this.over = true;
    await write(this.ctx.res, formatEvent(this.wording.errorEvent()), this.ctx.signal);
    this.ctx.res.end();
  }

  /** Sends one event; false when the stream is over (fault, or the client went away). */
  send(event: OutgoingEvent): boolean | Promise<boolean> {
    if (this.over) return false;
    if (this.fault && !this.fired && this.sent >= this.fault.afterEvents) return this.sendAfterFault(event);
    // Not async: one event per token, and the common case (written at once) needs no promise.
    const written = write(this.ctx.res, formatEvent(event), this.ctx.signal);
    if (written === true) {
      this.sent++;
      return true;
    }
    if (written === false) return this.stop();
    return written.then((ok) => {
      if (!ok) return this.stop();
      this.sent++;
      return true;
    });
  }

  private async sendAfterFault(event: OutgoingEvent): Promise<boolean> {
    if (!(await this.fire())) return false;
    if (!(await write(this.ctx.res, formatEvent(event), this.ctx.signal))) return this.stop();
    this.sent++;
    return true;
  }

  /** Closes the body, unless a fault that has not fired yet says otherwise. */
  async end(): Promise<void> {
    if (this.over) return;
    if (this.fault && !this.fired && !(await this.fire())) return;
    this.over = true;
    this.ctx.res.end();
  }

  private async fire(): Promise<boolean> {
    this.fired = true;
    const { res, signal } = this.ctx;
    const fault = this.fault!;
    switch (fault.kind) {
      case 'stream-error':
        await write(res, formatEvent(this.wording.errorEvent()), signal);
        res.end();
        return this.stop();
      case 'drop':
        // Let the events already written reach the client first: a drop must cut after them, not eat them.
        await flushed(res);
        res.socket?.destroy();
        return this.stop();
      case 'stall':
        await untilAborted(signal);
        return this.stop();
      case 'truncate':
        res.end();
        return this.stop();
      case 'malformed':
        return this.malformed(fault);
    }
  }

  private async malformed(fault: Extract<StreamFault, { kind: 'malformed' }>): Promise<boolean> {
    const { res, signal } = this.ctx;
    switch (fault.as) {
      case 'long': {
        // One line far past any sane size, in pieces, with no newline until the very end.
        const piece = Buffer.alloc(64 * 1024, 'x');
        let left = fault.bytes ?? DEFAULT_LONG_LINE_BYTES;
        if (!(await write(res, 'data: ', signal))) return this.stop();
        while (left > 0) {
          const n = Math.min(left, piece.length);
          if (!(await write(res, n === piece.length ? piece : piece.subarray(0, n), signal))) return this.stop();
          left -= n;
        }
        return (await write(res, '\n\n', signal)) || this.stop();
      }
      case 'binary':
        return (
          (await write(res, Buffer.concat([Buffer.from('data: '), junkBytes(64), Buffer.from('\n\n')]), signal)) ||
          this.stop()
        );
      default:
        return (await write(res, formatEvent(this.wording.malformedEvent()), signal)) || this.stop();
    }
  }

  private stop(): false {
    this.over = true;
    return false;
  }
}
