import type { CanonicalRequest } from '../../src/canonical.js';

/**
 * AA answers carry only `model_version`, and the parse functions receive only the canonical request. The CLI hands
 * the very request object it built the wire request from to parseGenerateResponse and createStreamDecoder, so the
 * model name is remembered per request object here (weakly: nothing outlives the request) to fill `model_id`.
 */
const models = new WeakMap<CanonicalRequest, string>();

export function rememberModel(request: CanonicalRequest, model: string): void {
  models.set(request, model);
}

export function modelOf(request: CanonicalRequest | undefined): string | undefined {
  return request === undefined ? undefined : models.get(request);
}
