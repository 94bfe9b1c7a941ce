/**
 * The answer being written for a request, found by the request's signal (the one routes hand the engine in
 * EngineOptions). An engine that has something to tell the front client about the request itself — `serve
 * --upstream --ignore-unsupported` naming the parameters it dropped — sets a header on it before the route answers.
 */
import type { ServerResponse } from 'node:http';

const bySignal = new WeakMap<AbortSignal, ServerResponse>();

export function rememberResponse(signal: AbortSignal, res: ServerResponse): void {
  bySignal.set(signal, res);
}

export function responseOf(signal: AbortSignal | undefined): ServerResponse | undefined {
  return signal === undefined ? undefined : bySignal.get(signal);
}
