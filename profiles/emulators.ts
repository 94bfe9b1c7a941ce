/**
 * The one table from provider kind to the routes `textgen serve` answers in its protocol (each provider's
 * server/index.ts): what src/emulator/core/protocols.ts registers. Kept apart from the adapters (./registry.ts), so
 * that a client adapter never names its server and the contract (src/contract/adapter.ts) knows nothing of the
 * emulator. Kinds that share a protocol share the loader (OpenAI's `/v1` routes live with Azure's).
 */
import type { ProviderKind } from '../src/contract/profile.js';
import type { ProtocolModule } from '../src/emulator/core/router.js';

type ProtocolLoader = () => Promise<ProtocolModule[]>;

const azureOpenAi: ProtocolLoader = async () => (await import('./openai/server/index.js')).azureOpenAiEmulator();

const EMULATORS: Record<ProviderKind, ProtocolLoader> = {
  watsonx: async () => (await import('./watsonx/server/index.js')).watsonxEmulator(),
  'azure-openai': azureOpenAi,
  openai: azureOpenAi,
  'aleph-alpha': async () => (await import('./aleph-alpha/server/index.js')).alephAlphaEmulator(),
  'open-inference': async () => (await import('./open-inference/server/index.js')).openInferenceEmulator(),
};

/** Each protocol's loader once, in the order of `PROVIDER_KINDS`. */
export function protocolLoaders(): ProtocolLoader[] {
  return [...new Set(Object.values(EMULATORS))];
}
