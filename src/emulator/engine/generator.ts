/**
 * The local model: turns a prompt and watsonx-style parameters into a stream of real
 * cl100k_base tokens. Deterministic for a given input, seed and parameters; greedy decoding
 * ignores the seed.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { GenerationOutput } from './output.js';
import { Planner, type Piece } from './planner.js';
import { createRng, freshSeed, hashString, mix, unit } from './random.js';
import { StopSequences } from './stop-sequences.js';
import { loadTokenizer, type Tokenizer } from './tokenizer.js';
import type {
  EngineOptions,
  EngineRequest,
  EngineToken,
  Generation,
  GenerationStep,
  GenerationSummary,
  TokenAlternative,
} from './types.js';
import { WORDS } from './word-list.js';
import { scoredToken } from './lazy-token.js';

export const DEFAULT_MAX_NEW_TOKENS = 20;
/** Prompt plus output may not exceed this; reaching it ends with stop reason `token_limit`. */
export const CONTEXT_WINDOW = 32_768;
const TOP_TOKENS = 5;
/** Without a token delay, give the event loop a turn this often so aborts and other requests get through. */
const TOKENS_PER_TURN = 32;
/** What the steps yield where the generation waits: the token delay, or a turn of the event loop. */
const SLEEP = 1;
const TURN = 2;
type Wait = typeof SLEEP | typeof TURN;

export async function startGeneration(request: EngineRequest, options: EngineOptions = {}): Promise<LocalGeneration> {
  const tokenizer = await loadTokenizer();
  return new LocalGeneration(tokenizer, request, options);
}

/** Runs a generation to the end and returns its summary. */
export async function generate(request: EngineRequest, options: EngineOptions = {}): Promise<GenerationSummary> {
  const generation = await startGeneration(request, options);
  return generation.toEnd();
}

class LocalGeneration implements Generation {
  readonly inputText: string;
  readonly inputTokenCount: number;
  readonly seed: number | undefined;
  private output: GenerationOutput | undefined;
  private started = false;
  private readonly inputIds: readonly number[];
  private scoredInput: EngineToken[] | undefined;

  constructor(
    private readonly tokenizer: Tokenizer,
    readonly request: EngineRequest,
    private readonly options: EngineOptions,
  ) {
    const p = request.parameters ?? {};
    const all = tokenizer.encode(request.input);
    const truncate = p.truncate_input_tokens ?? 0;
    const ids = truncate > 0 && all.length > truncate ? all.slice(all.length - truncate) : all;
    this.inputText = ids === all ? request.input : tokenizer.decode(ids);
    this.inputTokenCount = ids.length;
    this.inputIds = ids;
    const greedy = p.decoding_method === 'greedy';
    this.seed = p.random_seed ?? (greedy ? undefined : freshSeed());
  }

  /** Scored on first read: only echo and input-token answers show them. */
  get inputTokens(): EngineToken[] {
    this.scoredInput ??= describeInput(this.tokenizer, this.inputIds, hashString(this.inputText));
    return this.scoredInput;
  }

  summary(): GenerationSummary {
    if (!this.output) throw new Error('the generation has not finished');
    return this.output.summary();
  }

  [Symbol.asyncIterator](): AsyncIterator<GenerationStep> {
    if (this.started) throw new Error('a generation can be iterated only once');
    this.started = true;
    return this.run();
  }

  /**
   * The whole generation without handing out its steps: the same steps as iterating, but a promise only where the
   * generation waits (a token delay, a turn every TOKENS_PER_TURN tokens), not one per step, which cost more than a
   * short answer's planning (runToEnd, engine.ts).
   */
  async toEnd(): Promise<GenerationSummary> {
    if (this.started) throw new Error('a generation can be iterated only once');
    this.started = true;
    const steps = this.steps();
    let r = steps.next(true);
    while (!r.done) r = steps.next(r.value === SLEEP || r.value === TURN ? await this.waited(r.value) : true);
    return this.summary();
  }

  private async *run(): AsyncGenerator<GenerationStep> {
    const steps = this.steps();
    let r = steps.next(true);
    while (!r.done) {
      const value = r.value;
      if (value === SLEEP || value === TURN) r = steps.next(await this.waited(value));
      else {
        yield value;
        r = steps.next(true);
      }
    }
  }

  /** False when the wait was cut short (an abort during the token delay). */
  private async waited(wait: Wait): Promise<boolean> {
    try {
      if (wait === SLEEP) await sleep(this.options.tokenDelayMs, undefined, { signal: this.options.signal });
      else await nextTurn();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The generation's steps, in order; where it has to wait it yields SLEEP or TURN instead, and whoever drives it
   * passes back whether the wait ended normally (run, toEnd).
   */
  private *steps(): Generator<GenerationStep | Wait, unknown, boolean> {
    const p = this.request.parameters ?? {};
    const { signal, tokenDelayMs = 0 } = this.options;
    const now = this.options.now ?? (() => performance.now());
    const maxNew = p.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS;
    const minNew = p.min_new_tokens ?? 0;
    const stops = new StopSequences(p.stop_sequences, p.include_stop_sequence ?? true);
    const inputHash = hashString(this.inputText);
    const planner = new Planner(
      this.inputText,
      {
        greedy: p.decoding_method === 'greedy',
        temperature: p.temperature ?? 1,
        topK: p.top_k,
        topP: p.top_p,
        typicalP: p.typical_p,
        repetitionPenalty: p.repetition_penalty ?? 1,
        lengthPenalty: p.length_penalty
          ? { decayFactor: p.length_penalty.decay_factor ?? 1, startIndex: p.length_penalty.start_index ?? 0 }
          : undefined,
      },
      createRng(mix(this.seed ?? 0, inputHash)),
    );
    // The generation itself is the input: its inputTokens stay unscored until someone reads them.
    const output = new GenerationOutput(this, {
      minNew,
      maxNew,
      room: CONTEXT_WINDOW - this.inputTokenCount,
      timeLimitMs: p.time_limit,
      started: now(),
      now,
      stops,
    });
    this.output = output;
    let queue: EngineToken[] = [];
    let next: Piece | undefined = maxNew > 0 ? planner.next(0, minNew === 0) : undefined;

    const atOnce = output.endsAtOnce();
    if (atOnce !== undefined) return yield output.finish(atOnce);

    while (true) {
      if (signal?.aborted) return yield output.finish('cancelled');
      const wait = tokenDelayMs > 0 ? SLEEP : output.tokens.length % TOKENS_PER_TURN === TOKENS_PER_TURN - 1 ? TURN : 0;
      if (wait !== 0 && !(yield wait)) return yield output.finish('cancelled');
      if (signal?.aborted) return yield output.finish('cancelled');

      if (queue.length === 0) {
        // `next` is a text piece here: an EOS piece would have ended the loop below.
        queue = this.tokensOf(next as Extract<Piece, { kind: 'text' }>, output.tokens.length);
        next = undefined;
      }
      const token = queue.shift()!;
      let stopReason = output.add(token, token.text);
      if (stopReason === undefined && queue.length === 0) {
        // Plan the next piece now, so the token that ends the text can say so.
        const count = output.tokens.length;
        next = planner.next(count, count >= minNew);
        if (next.kind === 'eos') stopReason = 'eos_token';
      }
      if (stopReason !== undefined) return yield output.finish(stopReason, token);
      yield output.step(token);
    }
  }

  private tokensOf(piece: Extract<Piece, { kind: 'text' }>, position: number): EngineToken[] {
    const tokenizer = this.tokenizer;
    const ids = pieceIds(tokenizer, piece.text);
    return ids.map((id, i) => {
      const text = tokenizer.decode([id]);
      if (i > 0) {
        // The rest of a word is nearly certain once its first token is out.
        const logprob = -0.3 * unit(mix(id, position + i)) ** 2;
        return scoredToken(id, text, logprob, 1, () => ranked(tokenizer, text, logprob, 1, mix(id, position + i)));
      }
      return scoredToken(id, text, piece.logprob, piece.rank, () => {
        const topTokens: TokenAlternative[] = [];
        for (const alt of piece.alternatives()) {
          const altText = tokenizer.decode([pieceIds(tokenizer, alt.text)[0]!]);
          if (!topTokens.some((t) => t.text === altText)) topTokens.push({ text: altText, logprob: alt.logprob });
          if (topTokens.length === TOP_TOKENS) break;
        }
        return fillAlternatives(tokenizer, topTokens, mix(id, position));
      });
    });
  }
}

/** The token ids of each piece the planner writes: its words and marks, a few hundred spellings in all. */
const pieceCache = new WeakMap<Tokenizer, Map<string, readonly number[]>>();

function pieceIds(tokenizer: Tokenizer, text: string): readonly number[] {
  let cache = pieceCache.get(tokenizer);
  if (!cache) {
    cache = new Map();
    pieceCache.set(tokenizer, cache);
  }
  let ids = cache.get(text);
  if (ids === undefined) {
    ids = tokenizer.encode(text);
    // Input words join the vocabulary; the bound keeps endless new ones from growing the cache.
    if (cache.size < 10_000) cache.set(text, ids);
  }
  return ids;
}

/** Input token data as a model would score the prompt; the first token has no logprob. */
function describeInput(tokenizer: Tokenizer, ids: readonly number[], inputHash: number): EngineToken[] {
  return ids.map((id, i) => {
    const text = tokenizer.decode([id]);
    if (i === 0) return { id, text };
    const u = unit(mix(inputHash, id, i));
    const logprob = -(0.2 + 8 * u * u);
    // No more than 1/p tokens can each be at least as likely as one of probability p.
    const rank = Math.max(1, Math.min(1 + Math.floor(u * u * 40), Math.floor(0.999 / Math.exp(logprob))));
    return scoredToken(id, text, logprob, rank, () => ranked(tokenizer, text, logprob, rank, mix(inputHash, id, i, 1)));
  });
}

/** Token texts the made-up alternatives are drawn from: the first token of each word of the engine's vocabulary. */
const alternativeTexts = new WeakMap<Tokenizer, readonly string[]>();

function textsOf(tokenizer: Tokenizer): readonly string[] {
  let texts = alternativeTexts.get(tokenizer);
  if (!texts) {
    // Worked out once per tokenizer: a prompt of thousands of tokens needs alternatives for each.
    texts = [
      ...new Set(
        Object.values(WORDS)
          .flat()
          .map((word) => tokenizer.decode([tokenizer.encode(` ${word}`)[0]!])),
      ),
    ];
    alternativeTexts.set(tokenizer, texts);
  }
  return texts;
}

/** A token's text that is none of `taken`, drawn deterministically from the vocabulary. */
function otherText(tokenizer: Tokenizer, taken: ReadonlySet<string>, hash: number): string {
  const texts = textsOf(tokenizer);
  for (let k = 0; ; k++) {
    const text = texts[mix(hash, k) % texts.length]!;
    if (!taken.has(text)) return text;
  }
}

/**
 * The TOP_TOKENS most likely tokens at a position where the token of `logprob` has `rank`: rank − 1 likelier ones
 * above it, itself, less likely ones below, best first — so `logprobs: N` (OpenAI) or `top_n_tokens: N` (watsonx) get
 * N alternatives for every token, prompt tokens included. The probabilities are consistent: each one above is
 * likelier than the token, each one below less likely, and all of them together sum to at most 1.
 */
function ranked(tokenizer: Tokenizer, text: string, logprob: number, rank: number, hash: number): TokenAlternative[] {
  const p = Math.exp(logprob);
  const slack = Math.max(0, 1 - rank * p);
  const taken = new Set([text]);
  const out: TokenAlternative[] = [];
  for (let j = 1; j < rank && out.length < TOP_TOKENS; j++) {
    const alt = otherText(tokenizer, taken, mix(hash, j));
    taken.add(alt);
    out.push({ text: alt, logprob: Math.log(p + slack * 0.5 ** j) });
  }
  if (out.length < TOP_TOKENS) out.push({ text, logprob });
  return fillAlternatives(tokenizer, out, hash, slack * 0.5 ** (rank - 1));
}

/** Probability the filler tokens share when the planner's own options already hold all of it (punctuation). */
const FILLER_MASS = 1e-4;

/**
 * `top` completed with less likely tokens up to TOP_TOKENS, each below the last one and together within the
 * probability left (`room`, by default 1 minus what `top` holds; at least FILLER_MASS, so a choice the planner made
 * among two punctuation marks still reports N alternatives, as a model with a whole vocabulary would).
 */
function fillAlternatives(
  tokenizer: Tokenizer,
  top: TokenAlternative[],
  hash: number,
  room?: number,
): TokenAlternative[] {
  if (top.length >= TOP_TOKENS || top.length === 0) return top;
  const left = room ?? 1 - top.reduce((sum, t) => sum + Math.exp(t.logprob), 0);
  const floor = Math.min(Math.exp(top[top.length - 1]!.logprob), Math.max(left, FILLER_MASS));
  const taken = new Set(top.map((t) => t.text));
  const out = [...top];
  for (let k = 1; out.length < TOP_TOKENS; k++) {
    const alt = otherText(tokenizer, taken, mix(hash, 100 + k));
    taken.add(alt);
    out.push({ text: alt, logprob: Math.log(floor * 0.5 ** k) });
  }
  return out;
}
