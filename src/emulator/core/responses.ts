/**
 * The answer being written for a request, found by the request's signal (the one routes hand the engine in
 * EngineOptions). An engine that has something to tell the front client about the request itself — `serve
 * --upstream --ignore-unsupported` naming the parameters it dropped — sets a header on it before the route answers.
 *
 * Kept on the signal itself (a hidden symbol-keyed slot), not in a module-level WeakMap: the map lives in the old
 * generation, and each young answer stored in it stayed reachable for the scavenger until a full collection, so every
 * request's answer, socket state and route closures were promoted (bench/serve-delay.mjs: 2.7 MB a scavenge).
 */
import type { ServerResponse } from 'node:http';

const RESPONSE = Symbol('textgen.response');

interface WithResponse {
  [RESPONSE]?: ServerResponse;
}

export function rememberResponse(signal: AbortSignal, res: ServerResponse): void {
  (signal as AbortSignal & WithResponse)[RESPONSE] = res;
}

export function responseOf(signal: AbortSignal | undefined): ServerResponse | undefined {
  return (signal as (AbortSignal & WithResponse) | undefined)?.[RESPONSE];
}
