/**
 * Who a call goes to, for the flows that are not generations (models, health, embed, tokenize, the Aleph Alpha
 * tasks): the provider's kind and name for messages, and its error dialect, loaded alone from the adapter.
 */
import type { ProviderKind } from '../contract/profile.js';
import type { Callee } from './send.js';

export interface NamedCallee extends Callee {
  /** Human name for messages ("watsonx.ai"). */
  displayName: string;
}

export async function calleeFor(kind: ProviderKind): Promise<NamedCallee> {
  const { adapterFor } = await import('../../profiles/registry.js');
  const adapter = adapterFor(kind);
  const { parseError } = await adapter.errors();
  return { kind: adapter.kind, displayName: adapter.displayName, parseError };
}
