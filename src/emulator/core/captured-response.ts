/**
 * A stand-in for `http.ServerResponse` that keeps what a route writes: how the server runs a request on its own
 * routes without a socket (ServerServices.dispatch, the batch services' lines). It has the part of the response API
 * the routes use (src/emulator/core/respond.ts, event-stream.ts, the protocols' servers); nothing is sent anywhere.
 */
import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import type { InternalAnswer } from './router.js';

export class CapturedResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  destroyed = false;
  /** No socket: a fault that would cut one has nothing to cut (internal requests take no fault anyway). */
  readonly socket = null;
  private readonly headers = new Map<string, string>();
  private readonly chunks: Buffer[] = [];
  private finish: (() => void) | undefined;
  /** Resolves once the route has ended (or destroyed) the answer. */
  readonly done = new Promise<void>((resolve) => {
    this.finish = resolve;
  });

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    return this;
  }

  getHeader(name: string): string | undefined {
    return this.headers.get(name.toLowerCase());
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    this.statusCode = status;
    if (headers && !Array.isArray(headers))
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) this.setHeader(name, value as string | number | readonly string[]);
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  write(chunk: string | Uint8Array): boolean {
    this.headersSent = true;
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return true;
  }

  end(chunk?: string | Uint8Array): this {
    if (chunk !== undefined) this.write(chunk);
    this.headersSent = true;
    this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
    this.finish?.();
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    this.finish?.();
    return this;
  }

  answer(): InternalAnswer {
    return {
      status: this.statusCode,
      headers: Object.fromEntries(this.headers),
      body: Buffer.concat(this.chunks).toString('utf8'),
    };
  }
}
