import { protocolLoaders } from '../../../profiles/emulators.js';
import type { ProtocolModule } from './router.js';

/**
 * Every wire protocol `serve` speaks, each on its usual paths: the modules of every protocol in the table of
 * profiles/emulators.ts, each shared loader once (OpenAI's `/v1` routes come with Azure's).
 */
export async function allProtocols(): Promise<ProtocolModule[]> {
  return (await Promise.all(protocolLoaders().map((load) => load()))).flat();
}
