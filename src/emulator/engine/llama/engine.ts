/**
 * The llama engine: a GGUF model run by llama.cpp (node-llama-cpp) behind the Engine interface, so every protocol of
 * `serve` answers with it. One context holds `parallel` sequences of `contextSize` tokens each; the model's own
 * tokenizer counts, lists and decodes tokens; chat routes go through the model's chat template; embeddings through
 * an embedding context. docs/local-model.md describes it for users.
 */
import { availableParallelism } from 'node:os';
import { UsageError } from '../../../contract/errors.js';
import { servedModelName } from '../../../contract/local-engine.js';
import type { EmbeddingResult, Engine } from '../engine.js';
import { freshSeed } from '../random.js';
import type { Tokenizer } from '../tokenizer.js';
import type { ConversationMessage, EngineToken } from '../types.js';
import {
  type LlamaContext,
  type LlamaEmbeddingContext,
  type LlamaModel,
  loadNodeLlamaCpp,
  type Llama,
  type NodeLlamaCpp,
  type Token,
} from './binding.js';
import {
  DECODE_PATH_ENV,
  type DecodePath,
  distribution,
  isGreedy,
  LlamaGeneration,
  type LlamaRuntime,
  NEUTRAL,
} from './generation.js';
import { generateJsonWithGrammar, type JsonGrammarRuntime } from './json-grammar.js';
import { checkModelFile } from './model-file.js';
import { SequencePool } from './sequence-pool.js';

export interface LlamaEngineSettings {
  /** The GGUF file. */
  modelPath: string;
  /** The name every route serves it under; default the file's base name without `.gguf`. */
  modelName?: string | undefined;
  /** CPU threads; default half the cores (at least 1): more threads than cores is dramatically slower. */
  threads?: number | undefined;
  /** Tokens per sequence (prompt plus output); default the model's training context, at most 4096. */
  contextSize?: number | undefined;
  /** 'auto' uses a GPU when node-llama-cpp has a binary for one; default 'off'. */
  gpu?: 'auto' | 'off' | undefined;
  /** Requests generated at once; more wait their turn. Default 2. */
  parallel?: number | undefined;
  /**
   * `exact` takes the model's whole distribution for every token, even where llama.cpp could sample (tests and the
   * bench compare the paths); default `auto`, or `exact` when TEXTGEN_LLAMA_DECODE=exact is set.
   */
  decodePath?: DecodePath | undefined;
}

export const DEFAULT_PARALLEL = 2;
const MAX_DEFAULT_CONTEXT = 4096;
const TOP_TOKENS = 5;

export function defaultThreads(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

/** Loads the model (checking the file first) and returns the engine; UsageError (exit 2) for what the user can fix. */
export async function createLlamaEngine(settings: LlamaEngineSettings): Promise<Engine> {
  const llamaCpp = await loadNodeLlamaCpp();
  await checkModelFile(settings.modelPath, llamaCpp);
  const threads = settings.threads ?? defaultThreads();
  const parallel = settings.parallel ?? DEFAULT_PARALLEL;
  let llama: Llama;
  try {
    llama = await llamaCpp.getLlama({
      gpu: settings.gpu === 'auto' ? 'auto' : false,
      build: 'never',
      maxThreads: threads,
      logLevel: llamaCpp.LlamaLogLevel.error,
      logger: () => {},
    });
  } catch (error) {
    throw new UsageError(`llama.cpp cannot start on this machine: ${firstLine(error)}`, {
      hint: 'node-llama-cpp has no prebuilt binary for this platform; see docs/local-model.md',
    });
  }
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: settings.modelPath });
  } catch (error) {
    await llama.dispose();
    throw new UsageError(`--model ${settings.modelPath}: llama.cpp cannot load it: ${firstLine(error)}`);
  }
  const contextSize =
    settings.contextSize ?? Math.min(model.trainContextSize || MAX_DEFAULT_CONTEXT, MAX_DEFAULT_CONTEXT);
  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize: contextSize * parallel,
      sequences: parallel,
      threads,
    });
  } catch (error) {
    await model.dispose();
    await llama.dispose();
    throw new UsageError(
      `cannot make a context of ${contextSize} tokens × ${parallel} sequences for ${settings.modelPath}: ${firstLine(error)}`,
      { hint: 'a smaller --context-size or --parallel needs less memory' },
    );
  }
  const sequences = Array.from({ length: parallel }, () => context.getSequence());
  return new LlamaEngine(llamaCpp, llama, model, context, sequences, {
    modelName: settings.modelName ?? servedModelName(settings.modelPath),
    contextSize: Math.min(contextSize, sequences[0]?.contextSize ?? contextSize),
    threads,
    decodePath: settings.decodePath ?? (process.env[DECODE_PATH_ENV] === 'exact' ? 'exact' : 'auto'),
  });
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

class LlamaEngine implements Engine {
  readonly kind = 'llama' as const;
  readonly modelName: string;
  readonly contextWindow: number;
  readonly embeddingDimensions: number | undefined;
  private readonly runtime: LlamaRuntime;
  private readonly tokenizerValue: Tokenizer;
  private readonly vocabularySize: number;
  private embedding: Promise<LlamaEmbeddingContext | Error> | undefined;
  /** Embedding requests one at a time: one embedding context. */
  private embedQueue: Promise<unknown> = Promise.resolve();
  private readonly threads: number;
  private readonly jsonRuntime: JsonGrammarRuntime;

  constructor(
    private readonly llamaCpp: NodeLlamaCpp,
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    sequences: ReturnType<LlamaContext['getSequence']>[],
    options: { modelName: string; contextSize: number; threads: number; decodePath: DecodePath },
  ) {
    this.modelName = options.modelName;
    this.contextWindow = options.contextSize;
    this.threads = options.threads;
    this.embeddingDimensions = model.embeddingVectorSize || undefined;
    this.vocabularySize = vocabularySizeOf(model);
    const tokenText = (id: Token, before: readonly Token[]) => model.detokenize([id], false, before);
    this.runtime = {
      model,
      pool: new SequencePool(sequences),
      contextSize: options.contextSize,
      tokenText,
      decodePath: options.decodePath,
    };
    this.jsonRuntime = {
      llamaCpp,
      llama,
      model,
      pool: this.runtime.pool,
      contextSize: options.contextSize,
      promptTokens: (messages) => this.withBos(this.chatTokens(messages)),
    };
    const checked = (ids: readonly number[]) => {
      const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= this.vocabularySize);
      if (bad !== undefined) throw new UsageError(`token id ${bad} is not in the model's vocabulary`);
      return ids;
    };
    this.tokenizerValue = {
      encoding: `gguf:${options.modelName}`,
      encode: (text) => (text === '' ? [] : model.tokenize(text, false)),
      decode: (ids) => model.detokenize(checked(ids), false),
      tokenTexts: (ids) => checked(ids).map((id, i) => tokenText(id, ids.slice(Math.max(0, i - 4), i))),
    };
  }

  tokenizer = async (): Promise<Tokenizer> => this.tokenizerValue;

  startGeneration: Engine['startGeneration'] = async (request, options = {}) => {
    const p = request.parameters ?? {};
    let ids: Token[];
    let inputText: string;
    if (request.messages) {
      ids = this.chatTokens(request.messages);
      inputText = this.model.detokenize(ids, true);
    } else {
      ids = this.tokenizerValue.encode(request.input);
      inputText = request.input;
    }
    const truncate = p.truncate_input_tokens ?? 0;
    if (truncate > 0 && ids.length > truncate) {
      ids = ids.slice(ids.length - truncate);
      inputText = this.model.detokenize(ids, !!request.messages);
    }
    const bos = this.model.tokens.bos;
    const prompt = this.withBos(ids);
    const promptIds = prompt !== ids || ids[0] !== bos ? ids : ids.slice(1);
    const inputTokens = request.scoreInput
      ? await this.scored(prompt, promptIds, options.signal)
      : promptIds.map((id, i) => ({ id, text: this.runtime.tokenText(id, promptIds.slice(Math.max(0, i - 4), i)) }));
    const seed = p.random_seed ?? (isGreedy(p) ? undefined : freshSeed());
    return new LlamaGeneration(this.runtime, request, options, prompt, inputText, inputTokens, seed);
  };

  /** JSON under the schema's grammar (json-grammar.ts): structured output and tool-call arguments. */
  generateJson: NonNullable<Engine['generateJson']> = (request, options) =>
    generateJsonWithGrammar(this.jsonRuntime, request, options);

  /** The tokens with BOS in front when the model wants it and they do not start with it (the same array otherwise). */
  private withBos(ids: Token[]): Token[] {
    const bos = this.model.tokens.bos;
    return bos !== null && this.model.tokens.shouldPrependBosToken && ids[0] !== bos ? [bos, ...ids] : ids;
  }

  /** The chat's tokens through the model's chat template (node-llama-cpp's wrapper for the model, else a generic one). */
  private chatTokens(messages: readonly ConversationMessage[]): Token[] {
    const wrapper = this.llamaCpp.resolveChatWrapper(this.model);
    const history: unknown[] = [];
    for (const m of messages) {
      if (m.role === 'system') history.push({ type: 'system', text: m.content });
      else if (m.role === 'assistant') history.push({ type: 'model', response: [m.content] });
      else history.push({ type: 'user', text: m.role === 'user' ? m.content : `${m.role}: ${m.content}` });
    }
    history.push({ type: 'model', response: [] });
    if (!wrapper) {
      const text = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
      return this.model.tokenize(`${text}\nassistant:`, false);
    }
    return wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.model.tokenizer);
  }

  /** Each prompt token with its logprob given what precedes it (the first has none without a BOS before it). */
  private async scored(prompt: Token[], promptIds: Token[], signal?: AbortSignal): Promise<EngineToken[]> {
    const offset = prompt.length - promptIds.length;
    const describe = (id: Token, i: number): EngineToken => ({
      id,
      text: this.runtime.tokenText(id, promptIds.slice(Math.max(0, i - 4), i)),
    });
    if (prompt.length === 0 || prompt.length > this.contextWindow) return promptIds.map(describe);
    const sequence = await this.runtime.pool.acquire(signal);
    try {
      await sequence.clearHistory();
      const out = await sequence.controlledEvaluate(
        prompt.map((t, i) =>
          i < prompt.length - 1 ? [t, { generateNext: { probabilities: true, options: NEUTRAL } }] : t,
        ),
      );
      return promptIds.map((id, i) => {
        const token = describe(id, i);
        const at = offset + i - 1;
        if (at < 0) return token;
        const d = distribution(out[at]?.next.probabilities);
        const rank = d.ids.indexOf(id);
        const p = out[at]?.next.probabilities?.get(id) ?? 0;
        token.logprob = p > 0 ? Math.log(p) : -1e9;
        token.rank = rank >= 0 ? rank + 1 : d.ids.length + 1;
        token.topTokens = d.ids.slice(0, TOP_TOKENS).map((alt, k) => ({
          text: this.runtime.tokenText(alt, promptIds.slice(Math.max(0, i - 4), i)),
          logprob: d.logprobs[k]!,
        }));
        return token;
      });
    } finally {
      this.runtime.pool.release(sequence);
    }
  }

  embed: Engine['embed'] = async ({ ids }) => {
    const run = this.embedQueue.then(() => this.embedNow(ids));
    this.embedQueue = run.catch(() => {});
    return run;
  };

  private async embedNow(ids: readonly number[]): Promise<EmbeddingResult> {
    if (ids.length === 0) return { ok: false, reason: 'the input has no tokens' };
    if (ids.length > this.contextWindow)
      return {
        ok: false,
        reason: `the input has ${ids.length} tokens, more than the ${this.contextWindow} of the context`,
      };
    this.embedding ??= this.model
      .createEmbeddingContext({ contextSize: this.contextWindow, threads: this.threads })
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const context = await this.embedding;
    if (context instanceof Error)
      return { ok: false, reason: `llama.cpp gives no embeddings for it: ${context.message}` };
    const { vector } = await context.getEmbeddingFor([...ids]);
    return { ok: true, vector: [...vector] };
  }

  close = async (): Promise<void> => {
    const embedding = await this.embedding;
    if (embedding && !(embedding instanceof Error)) await embedding.dispose();
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  };
}

function vocabularySizeOf(model: LlamaModel): number {
  const metadata = (model as unknown as { fileInfo?: { metadata?: Record<string, unknown> } }).fileInfo?.metadata;
  const tokens = (metadata?.tokenizer as { ggml?: { tokens?: unknown[] } } | undefined)?.ggml?.tokens;
  if (Array.isArray(tokens)) return tokens.length;
  const arch = metadata?.general as { architecture?: string } | undefined;
  const size = arch?.architecture
    ? (metadata?.[arch.architecture] as { vocab_size?: number } | undefined)?.vocab_size
    : undefined;
  return size ?? Number.MAX_SAFE_INTEGER;
}
