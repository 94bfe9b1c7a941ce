/**
 * Who a call goes to: the provider's kind (for messages) and its error dialect. For the flows that are not
 * generations (models, health, embed, tokenize, the Aleph Alpha tasks) the dialect is loaded alone from the adapter.
 */
import type { ErrorDialect } from '../contract/adapter.js';
import type { ProviderKind } from '../contract/profile.js';

/** Who is being called: the provider's kind (for messages) and how it words its errors (its ErrorDialect). */
export interface Callee extends ErrorDialect {
  kind: string;
}

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
