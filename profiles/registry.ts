/**
 * The one table from provider kind to adapter. Adding a provider is a folder beside this file, one line here and its
 * name in `ProviderKind` (src/contract/profile.ts). Adapters are small objects of loaders: importing this table loads
 * no protocol code.
 */
import type { ProviderKind } from '../src/contract/profile.js';
import { alephAlphaAdapter } from './aleph-alpha/adapter.js';
import { azureOpenAiAdapter, openAiAdapter } from './openai/adapter.js';
import { openInferenceAdapter } from './open-inference/adapter.js';
import type { ProviderAdapter } from '../src/contract/adapter.js';
import { watsonxAdapter } from './watsonx/adapter.js';

const ADAPTERS: Record<ProviderKind, ProviderAdapter> = {
  watsonx: watsonxAdapter,
  'azure-openai': azureOpenAiAdapter,
  openai: openAiAdapter,
  'aleph-alpha': alephAlphaAdapter,
  'open-inference': openInferenceAdapter,
};

export function adapterFor(kind: ProviderKind): ProviderAdapter {
  return ADAPTERS[kind];
}

/** Every adapter, in the order of `PROVIDER_KINDS` (the order messages list providers in). */
export function allAdapters(): ProviderAdapter[] {
  return Object.values(ADAPTERS);
}

/** The kinds whose adapter has a capability, for messages that say where a command works. */
export function kindsWith(has: (adapter: ProviderAdapter) => boolean): ProviderKind[] {
  return allAdapters()
    .filter(has)
    .map((a) => a.kind);
}
