/** The engines every protocol of `textgen serve` answers with, and their shared vocabulary. */
export { CONTEXT_WINDOW, DEFAULT_MAX_NEW_TOKENS } from './generator.js';
export { deterministicEngine } from './deterministic.js';
export { runToEnd } from './engine.js';
export type { EmbeddingRequest, EmbeddingResult, Engine, EngineKind } from './engine.js';
export type { Tokenizer } from './tokenizer.js';
export type { ModerationFlag, ModerationReport } from './moderation.js';
export type {
  EngineOptions,
  EngineRequest,
  EngineToken,
  Generation,
  GenerationStep,
  GenerationSummary,
  TokenAlternative,
} from './types.js';
