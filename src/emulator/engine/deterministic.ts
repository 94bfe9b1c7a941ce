/**
 * The deterministic engine: the word generator, cl100k_base tokenizer and hashed embeddings of this folder behind
 * the Engine interface. The same prompt, seed and parameters always give the same answer, on every machine; it
 * answers for every model name the protocols know. The default engine of `serve` and the local profiles.
 */
import { conversationPrompt } from './conversation.js';
import { pooledEmbedding } from './embedding.js';
import type { Engine } from './engine.js';
import { CONTEXT_WINDOW, startGeneration } from './generator.js';
import { loadTokenizer } from './tokenizer.js';

export function deterministicEngine(): Engine {
  return {
    kind: 'deterministic',
    modelName: undefined,
    contextWindow: CONTEXT_WINDOW,
    embeddingDimensions: undefined,
    tokenizer: loadTokenizer,
    startGeneration: (request, options) =>
      startGeneration(
        request.messages ? { ...request, input: conversationPrompt(request.messages) } : request,
        options,
      ),
    embed: async ({ ids, space, pooling }) => ({ ok: true, vector: pooledEmbedding(ids, space, pooling) }),
    close: async () => {},
  };
}
