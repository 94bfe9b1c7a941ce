/**
 * The Aleph Alpha side of `textgen serve`: `POST /complete` (plain, and streamed with `"stream": true`),
 * `GET /version` and `GET /models_available`, all at the root as on api.aleph-alpha.com. Known models: see
 * server-models.ts (luminous-* and any name ending in -local).
 */
import type { ProtocolModule } from '../../../src/emulator/core/router.js';
import { completeRoute } from './complete.js';
import { sendAlephAlphaError, upperSnake } from './errors.js';
import { modelsAvailable, version } from './models.js';

export const alephAlphaProtocol: ProtocolModule = {
  name: 'aleph-alpha',
  prefixes: ['/complete', '/version', '/models_available'],
  routes: [
    { method: 'POST', pattern: '/complete', handler: completeRoute },
    { method: 'GET', pattern: '/version', handler: version },
    { method: 'GET', pattern: '/models_available', handler: modelsAvailable },
  ],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};

/** Every Aleph Alpha route `serve` answers: completion, the tasks, tokenization and embeddings. */
export async function alephAlphaEmulator(): Promise<ProtocolModule[]> {
  const [
    { alephAlphaTasksProtocol },
    { alephAlphaTokenizeProtocol },
    { alephAlphaEmbedProtocol },
    { alephAlphaChatProtocol },
  ] = await Promise.all([import('./tasks.js'), import('./tokenize.js'), import('./embed.js'), import('./chat.js')]);
  return [
    alephAlphaProtocol,
    alephAlphaTasksProtocol,
    alephAlphaTokenizeProtocol,
    alephAlphaEmbedProtocol,
    alephAlphaChatProtocol,
  ];
}
