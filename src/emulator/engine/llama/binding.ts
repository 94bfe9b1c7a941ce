/**
 * Loading node-llama-cpp, lazily: it is ESM-only with top-level await (so `import()`, through src/import-esm.ts),
 * and large (about 730 MB with its prebuilt binaries), so it is no dependency of the CLI: `npm run engine:install`
 * puts it in engines/llama/node_modules, or a user installs it next to textgen. Normal resolution is tried first,
 * then `<package root>/engines/llama/node_modules`. Only the parts textgen uses are typed here, so the CLI
 * type-checks without the package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from '../../../contract/errors.js';
import { importEsm } from '../../../import-esm.js';

export const LLAMA_PACKAGE = 'node-llama-cpp';
/** The version textgen is tested with; the prebuilt binaries must match it exactly. */
export const LLAMA_VERSION = '3.21.1';
export const INSTALL_HINT = `install it with npm run engine:install in a textgen checkout, or npm install ${LLAMA_PACKAGE}@${LLAMA_VERSION} next to textgen`;

export type Token = number;

export interface ProbabilityOutput {
  next: { probabilities?: Map<Token, number> };
}

/** node-llama-cpp's `SequenceEvaluateOptions`, the parts the fast path passes: llama.cpp samples natively. */
export interface EvaluateOptions {
  /** 0 is greedy. */
  temperature: number;
  /** 0 or less: the whole vocabulary. */
  topK?: number;
  topP?: number;
  minP?: number;
  /** The seed of llama.cpp's own generator (an unsigned 32-bit integer). */
  seed?: number;
  repeatPenalty?: {
    /** Called before each token: the tokens a repeat is counted against. */
    punishTokens: () => Token[];
    maxPunishTokens?: number;
    penalty?: number;
    frequencyPenalty?: number;
    presencePenalty?: number;
  };
  /** End-of-generation tokens are yielded (and the caller stops) rather than ending the iteration unseen. */
  yieldEogToken?: boolean;
  /** Sampling under a grammar (structured output): where the answer stands in it. */
  grammarEvaluationState?: LlamaGrammarEvaluationState;
}

export interface LlamaContextSequence {
  readonly contextSize: number;
  clearHistory(): Promise<void>;
  /**
   * Evaluates `tokens`, then yields one sampled token per iteration, evaluating each before sampling the next
   * (llama.cpp's own sampler: the fast path, and generation under a grammar).
   */
  evaluate(tokens: Token[], options: EvaluateOptions): AsyncGenerator<Token, void, undefined>;
  controlledEvaluate(
    input: Array<Token | [Token, { generateNext?: { probabilities?: boolean; options?: Record<string, number> } }]>,
  ): Promise<Array<ProbabilityOutput | undefined>>;
  dispose(): void;
}

/** A grammar made from a JSON Schema (`llama.createGrammarForJsonSchema`); opaque to textgen. */
export interface LlamaGrammar {
  readonly grammar: string;
}

/** Where generation stands in a grammar; one per generated answer. */
export type LlamaGrammarEvaluationState = object;

export interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaContextSequence;
  dispose(): Promise<void>;
}

export interface LlamaEmbeddingContext {
  getEmbeddingFor(input: readonly Token[] | string): Promise<{ vector: readonly number[] }>;
  dispose(): Promise<void>;
}

export interface LlamaTextLike {
  tokenize(tokenizer: unknown): Token[];
}

export interface ChatWrapperLike {
  readonly wrapperName: string;
  generateContextState(options: { chatHistory: unknown[] }): { contextText: LlamaTextLike };
}

export interface LlamaModel {
  readonly tokens: { readonly bos: Token | null; readonly eos: Token | null; readonly shouldPrependBosToken: boolean };
  readonly tokenizer: unknown;
  readonly trainContextSize: number;
  readonly embeddingVectorSize: number;
  tokenize(text: string, specialTokens?: boolean): Token[];
  detokenize(tokens: readonly Token[], specialTokens?: boolean, lastTokens?: readonly Token[]): string;
  isEogToken(token: Token | undefined): boolean;
  createContext(options: {
    contextSize: number;
    sequences: number;
    threads: number;
    batchSize?: number;
  }): Promise<LlamaContext>;
  createEmbeddingContext(options: { contextSize: number; threads: number }): Promise<LlamaEmbeddingContext>;
  dispose(): Promise<void>;
}

export interface Llama {
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
  createGrammarForJsonSchema(schema: Record<string, unknown>): Promise<LlamaGrammar>;
  dispose(): Promise<void>;
}

export interface NodeLlamaCpp {
  getLlama(options: {
    gpu: false | 'auto';
    build: 'never';
    maxThreads: number;
    logLevel: unknown;
    logger?: (level: unknown, message: string) => void;
  }): Promise<Llama>;
  LlamaLogLevel: { error: unknown };
  readGgufFileInfo(path: string, options?: { readTensorInfo?: boolean }): Promise<{ version: number }>;
  resolveChatWrapper(model: LlamaModel): ChatWrapperLike | null;
  LlamaGrammarEvaluationState: new (options: {
    model: LlamaModel;
    grammar: LlamaGrammar;
  }) => LlamaGrammarEvaluationState;
}

let loading: Promise<NodeLlamaCpp> | undefined;

/** node-llama-cpp, loaded once; a UsageError (exit 2) saying how to install it when it cannot be found. */
export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  loading ??= load();
  return loading;
}

async function load(): Promise<NodeLlamaCpp> {
  try {
    return await importEsm<NodeLlamaCpp>(LLAMA_PACKAGE);
  } catch (error) {
    if (!isNotFound(error)) throw cannotLoad(error);
  }
  const entry = engineHolderEntry();
  if (entry === undefined) {
    throw new UsageError(`the llama engine needs ${LLAMA_PACKAGE}, which is not installed: ${INSTALL_HINT}`);
  }
  try {
    return await importEsm<NodeLlamaCpp>(pathToFileURL(entry).href);
  } catch (error) {
    throw cannotLoad(error);
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    (message.includes(LLAMA_PACKAGE) &&
      /cannot find|could not resolve|failed to (load|resolve)|does the file exist/i.test(message))
  );
}

function cannotLoad(error: unknown): UsageError {
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new UsageError(`cannot load ${LLAMA_PACKAGE} (${INSTALL_HINT}): ${why}`);
}

/** `<package root>/engines/llama/node_modules/node-llama-cpp`'s ES module entry, when it is installed there. */
export function engineHolderEntry(): string | undefined {
  const root = packageRoot();
  if (root === undefined) return undefined;
  const dir = join(root, 'engines', 'llama', 'node_modules', LLAMA_PACKAGE);
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports?: { '.'?: { import?: string } };
    main?: string;
  };
  const entry = join(dir, pkg.exports?.['.']?.import ?? pkg.main ?? 'dist/index.js');
  return existsSync(entry) ? entry : undefined;
}

/** The folder of textgen's own package.json, found upwards from this module (a source file or a bundle in dist/). */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'textgen') return dir;
      } catch {
        // Not ours; keep looking.
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
