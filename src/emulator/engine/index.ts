/** The local text generator every protocol of `textgen serve` answers with. */
export { CONTEXT_WINDOW, DEFAULT_MAX_NEW_TOKENS, generate, startGeneration } from './generator.js';
export { loadTokenizer, type Tokenizer } from './tokenizer.js';
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
