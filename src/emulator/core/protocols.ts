import { allAdapters } from '../../../profiles/registry.js';
import type { ProtocolModule } from './router.js';

/**
 * Every wire protocol `serve` speaks, each on its usual paths: the emulator modules of every adapter, each shared
 * loader once (OpenAI's `/v1` routes come with Azure's).
 */
export async function allProtocols(): Promise<ProtocolModule[]> {
  const loaders = [...new Set(allAdapters().map((adapter) => adapter.emulator))];
  return (await Promise.all(loaders.map((load) => load()))).flat();
}
