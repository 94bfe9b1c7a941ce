/**
 * The Open Inference side of `textgen serve`: the generate extension (plain and streamed, with and without a
 * model version) and the metadata and health routes of the v2 protocol.
 */
import type { ProtocolModule } from '../../../src/emulator/core/router.js';
import { sendOipError, tagRequestId } from './errors.js';
import { generateRoute } from './generate.js';
import { modelMetadata, modelReady, serverLive, serverMetadata, serverReady } from './metadata.js';

export const openInferenceProtocol: ProtocolModule = {
  name: 'open-inference',
  prefixes: ['/v2'],
  routes: [
    { method: 'POST', pattern: '/v2/models/:model/generate', handler: generateRoute(false) },
    { method: 'POST', pattern: '/v2/models/:model/generate_stream', handler: generateRoute(true) },
    { method: 'POST', pattern: '/v2/models/:model/versions/:version/generate', handler: generateRoute(false) },
    { method: 'POST', pattern: '/v2/models/:model/versions/:version/generate_stream', handler: generateRoute(true) },
    { method: 'GET', pattern: '/v2', handler: serverMetadata },
    { method: 'GET', pattern: '/v2/health/live', handler: serverLive },
    { method: 'GET', pattern: '/v2/health/ready', handler: serverReady },
    { method: 'GET', pattern: '/v2/models/:model', handler: modelMetadata },
    { method: 'GET', pattern: '/v2/models/:model/ready', handler: modelReady },
    { method: 'GET', pattern: '/v2/models/:model/versions/:version', handler: modelMetadata },
    { method: 'GET', pattern: '/v2/models/:model/versions/:version/ready', handler: modelReady },
  ],
  sendError(ctx, status, _code, message, headers) {
    tagRequestId(ctx);
    sendOipError(ctx.res, status, message, headers);
  },
};

/** Every Open Inference route `serve` answers: generation, health and metadata, and the model repository. */
export async function openInferenceEmulator(): Promise<ProtocolModule[]> {
  const { openInferenceRepositoryProtocol } = await import('./repository.js');
  return [openInferenceProtocol, openInferenceRepositoryProtocol];
}
