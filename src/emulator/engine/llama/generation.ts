/**
 * One generation on a llama.cpp context sequence, decoded one of two ways (`decodePlan`):
 *
 * - **exact**: the model is evaluated with neutral sampling options, so the probability map it returns is the
 *   model's own distribution and logprobs, ranks and top alternatives are true ones. textgen then picks the token
 *   itself (src/emulator/engine/sampler.ts: greedy, or temperature, top-k, top-p and typical-p with a seeded
 *   generator, so a seed reproduces a sample), applying the repetition penalty and holding back end-of-generation
 *   tokens until min_new_tokens, and evaluates that token next. Building the map costs a pass over the vocabulary
 *   per token (the engine streamed at 0.55× of llama.cpp's own rate with it).
 * - **fast**: when no token scores are asked for and every sampler asked for is one llama.cpp has, node-llama-cpp's
 *   `sequence.evaluate` samples natively (temperature, top-k, top-p, its seeded generator, its repeat penalty) and
 *   only the token ids come back. With min_new_tokens the first min_new_tokens tokens go the exact way (llama.cpp's
 *   token bias cannot hold back end-of-generation tokens) and the rest the fast way.
 *
 * Stop sequences, max_new_tokens, the context window, time_limit and cancellation are checked after every token
 * by GenerationOutput, the same on both paths. Greedy text is the same on both; a seeded sample repeats on each
 * path, but the two paths draw differently (llama.cpp's generator, and it cuts top-p before the temperature).
 *
 * The producer runs on its own once iteration starts, filling a queue the consumer reads: several generations of
 * one request (n choices, best_of) read in turns can never wait on each other's sequences.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CanonicalParameters } from '../../../contract/canonical.js';
import { GenerationOutput } from '../output.js';
import { createRng } from '../random.js';
import { choose } from '../sampler.js';
import { StopSequences } from '../stop-sequences.js';
import type {
  EngineOptions,
  EngineRequest,
  EngineToken,
  Generation,
  GenerationStep,
  GenerationSummary,
  TokenAlternative,
} from '../types.js';
import type { EvaluateOptions, LlamaContextSequence, LlamaModel, Token } from './binding.js';
import type { SequencePool } from './sequence-pool.js';

export const DEFAULT_MAX_NEW_TOKENS = 20;
const TOP_TOKENS = 5;
/** Neutral options: the returned probabilities are the softmax of the model's logits, nothing cut or warped. */
export const NEUTRAL = { temperature: 1, topK: 0, topP: 1, minP: 0 };
/** Tokens below this probability are left out of sampling and ranking (a real vocabulary has 100k+). */
const NEGLIGIBLE = 1e-7;
/** Sampling looks at this many of the likeliest tokens at most (the rest of a real vocabulary holds next to nothing). */
const MAX_CANDIDATES = 4096;
/** A piece ending in U+FFFD is held back this many tokens at most, waiting for the rest of its UTF-8 character. */
const MAX_HELD = 4;

/** `exact` decodes every token the exact way (tests and the bench compare the paths); `auto` picks per request. */
export type DecodePath = 'auto' | 'exact';

/** The environment variable that forces the exact path in a `serve` process (tests and the bench). */
export const DECODE_PATH_ENV = 'TEXTGEN_LLAMA_DECODE';

export interface DecodePlan {
  /** Tokens decoded the exact way before llama.cpp samples the rest: 0 is all fast, Infinity all exact. */
  exactTokens: number;
  /** Why any token goes the exact way. */
  reason: 'forced' | 'token scores' | 'typical_p' | 'min_new_tokens' | undefined;
}

/** Whether the request asks for greedy decoding (watsonx's decoding_method, or temperature 0). */
export function isGreedy(p: CanonicalParameters): boolean {
  return p.decoding_method === 'greedy' || p.temperature === 0;
}

/** Which tokens of a generation need the model's whole distribution, and why. */
export function decodePlan(request: EngineRequest, path: DecodePath = 'auto'): DecodePlan {
  if (path === 'exact') return { exactTokens: Number.POSITIVE_INFINITY, reason: 'forced' };
  const p = request.parameters ?? {};
  const ro = p.return_options ?? {};
  if (request.tokenScores || ro.token_logprobs || ro.token_ranks || (ro.top_n_tokens ?? 0) > 0)
    return { exactTokens: Number.POSITIVE_INFINITY, reason: 'token scores' };
  // node-llama-cpp offers no locally typical sampler.
  if (!isGreedy(p) && p.typical_p !== undefined && p.typical_p < 1)
    return { exactTokens: Number.POSITIVE_INFINITY, reason: 'typical_p' };
  const minNew = p.min_new_tokens ?? 0;
  if (minNew > 0) return { exactTokens: minNew, reason: 'min_new_tokens' };
  return { exactTokens: 0, reason: undefined };
}

/** llama.cpp's sampling settings for the request: the fast path's counterpart of the exact path's `settings`. */
export function evaluateOptions(
  p: CanonicalParameters,
  seed: number | undefined,
  history: readonly Token[],
  contextSize: number,
): EvaluateOptions {
  const options: EvaluateOptions = isGreedy(p)
    ? { temperature: 0 }
    : {
        temperature: p.temperature ?? 1,
        // Without top_k the exact path samples from the MAX_CANDIDATES likeliest (node-llama-cpp's own default is 40).
        topK: p.top_k ?? MAX_CANDIDATES,
        topP: p.top_p ?? 1,
        minP: 0,
        // llama.cpp's seed is an unsigned 32-bit integer.
        seed: (seed ?? 0) >>> 0,
      };
  const penalty = p.repetition_penalty ?? 1;
  // Every token so far (prompt and output) counts, as on the exact path; llama.cpp divides a positive logit by the
  // penalty and multiplies a negative one (as Hugging Face's does), the exact path divides the probability.
  if (penalty !== 1)
    options.repeatPenalty = { punishTokens: () => history as Token[], maxPunishTokens: contextSize, penalty };
  options.yieldEogToken = true;
  return options;
}

export interface Distribution {
  /** Candidates, most likely first. */
  ids: Token[];
  logprobs: number[];
}

/** The map llama.cpp returns, as sorted arrays without the negligible tail. */
export function distribution(probabilities: Map<Token, number> | undefined): Distribution {
  const entries: Array<[Token, number]> = [];
  if (probabilities) for (const [id, p] of probabilities) if (p >= NEGLIGIBLE) entries.push([id, p]);
  entries.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { ids: entries.map((e) => e[0]), logprobs: entries.map((e) => Math.log(e[1])) };
}

export interface LlamaRuntime {
  model: LlamaModel;
  pool: SequencePool;
  /** Tokens one sequence holds: prompt plus output. */
  contextSize: number;
  tokenText(id: Token, before: readonly Token[]): string;
  /** `exact` forces the exact path for every request. */
  decodePath: DecodePath;
}

/** The next token: its id, and its true logprob, rank and alternatives when it was picked the exact way. */
interface Picked {
  id: Token;
  logprob?: number;
  rank?: number;
  topTokens?: TokenAlternative[];
}

export class LlamaGeneration implements Generation {
  readonly seed: number | undefined;
  private output: GenerationOutput | undefined;
  private started = false;

  constructor(
    private readonly rt: LlamaRuntime,
    private readonly request: EngineRequest,
    private readonly options: EngineOptions,
    /** BOS (when the model wants it) and the prompt's tokens. */
    private readonly prompt: readonly Token[],
    readonly inputText: string,
    readonly inputTokens: EngineToken[],
    seed: number | undefined,
  ) {
    this.seed = seed;
  }

  get inputTokenCount(): number {
    return this.inputTokens.length;
  }

  summary(): GenerationSummary {
    if (!this.output) throw new Error('the generation has not finished');
    return this.output.summary();
  }

  [Symbol.asyncIterator](): AsyncIterator<GenerationStep> {
    if (this.started) throw new Error('a generation can be iterated only once');
    this.started = true;
    const queue = new StepQueue();
    void this.produce(queue);
    return queue.iterator();
  }

  private async produce(queue: StepQueue): Promise<void> {
    try {
      for await (const step of this.steps()) queue.push(step);
      queue.end();
    } catch (error) {
      queue.fail(error);
    }
  }

  private async *steps(): AsyncGenerator<GenerationStep> {
    const p: CanonicalParameters = this.request.parameters ?? {};
    const { signal, tokenDelayMs = 0 } = this.options;
    const now = this.options.now ?? (() => performance.now());
    const maxNew = p.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS;
    const minNew = p.min_new_tokens ?? 0;
    const stops = new StopSequences(p.stop_sequences, p.include_stop_sequence ?? true);
    const settings = {
      greedy: isGreedy(p),
      temperature: p.temperature ?? 1,
      topK: p.top_k,
      topP: p.top_p,
      typicalP: p.typical_p,
    };
    const penalty = p.repetition_penalty ?? 1;
    const draw = createRng(this.seed ?? 0);
    const model = this.rt.model;
    const { exactTokens } = decodePlan(this.request, this.rt.decodePath);
    const { request, inputText, inputTokenCount, inputTokens, seed } = this;
    const output = new GenerationOutput(
      { request, inputText, inputTokenCount, inputTokens, seed },
      {
        minNew,
        maxNew,
        room: this.rt.contextSize - this.prompt.length,
        timeLimitMs: p.time_limit,
        started: now(),
        now,
        stops,
      },
    );
    this.output = output;
    const ids: Token[] = [];
    /** Prompt and output: what the fast path's repeat penalty counts against. */
    const history: Token[] = [...this.prompt];
    let held: Token[] = [];

    const atOnce = output.endsAtOnce();
    if (atOnce !== undefined) return yield output.finish(atOnce);

    let sequence: LlamaContextSequence;
    try {
      sequence = await this.rt.pool.acquire(signal);
    } catch {
      return yield output.finish('cancelled');
    }
    /** The fast path's token source once llama.cpp samples; until then the exact path's next distribution. */
    let fast: AsyncGenerator<Token, void, undefined> | undefined;
    let next: Distribution | undefined;
    const goFast = (tokens: Token[]) => {
      fast = sequence.evaluate(tokens, evaluateOptions(p, this.seed, history, this.rt.contextSize));
      next = undefined;
    };
    try {
      await sequence.clearHistory();
      if (exactTokens === 0) goFast([...this.prompt]);
      else {
        const last = this.prompt.length - 1;
        const first = await sequence.controlledEvaluate(
          this.prompt.map((t, i) =>
            i === last ? [t, { generateNext: { probabilities: true, options: NEUTRAL } }] : t,
          ),
        );
        next = distribution(first[last]?.next.probabilities);
      }
      const seen = new Set<Token>(this.prompt);

      while (true) {
        if (signal?.aborted) return yield output.finish('cancelled');
        if (tokenDelayMs > 0) {
          try {
            await sleep(tokenDelayMs, undefined, { signal });
          } catch {
            return yield output.finish('cancelled');
          }
        }
        const before = ids.slice(-MAX_HELD);
        let picked: Picked | undefined;
        if (fast) {
          const r = await fast.next();
          picked = r.done ? undefined : { id: r.value };
        } else if (next) {
          const allowEnd = output.tokens.length >= minNew;
          const d = next;
          const chosen = pick(d, { model, seen, penalty, allowEnd, settings, draw });
          picked = chosen && { ...chosen, topTokens: alternatives(d, (id) => this.rt.tokenText(id, before)) };
        }
        if (picked === undefined || model.isEogToken(picked.id)) return yield output.finish('eos_token');

        const token: EngineToken = {
          id: picked.id,
          text: this.rt.tokenText(picked.id, before.length > 0 ? before : this.prompt.slice(-1)),
        };
        if (picked.logprob !== undefined) token.logprob = picked.logprob;
        if (picked.rank !== undefined) token.rank = picked.rank;
        if (picked.topTokens !== undefined) token.topTokens = picked.topTokens;
        ids.push(picked.id);
        history.push(picked.id);
        seen.add(picked.id);
        held.push(picked.id);
        const settled = ids.slice(0, ids.length - held.length);
        const context = settled.length > 0 ? settled.slice(-MAX_HELD) : this.prompt.slice(-1);
        const piece = model.detokenize(held, false, context);
        // A piece that ends inside a UTF-8 character waits for the tokens that complete it (a few at most).
        const whole = !piece.endsWith('\uFFFD') || held.length >= MAX_HELD;
        const stopReason = output.add(token, whole ? piece : '');
        if (whole) held = [];
        if (stopReason !== undefined) {
          if (held.length > 0 && stopReason !== 'stop_sequence') output.release(piece);
          return yield output.finish(stopReason, token);
        }
        yield output.step(token);

        if (signal?.aborted) return yield output.finish('cancelled');
        // The fast path's next iteration evaluates this token itself; the exact path evaluates it here.
        if (fast) continue;
        if (ids.length >= exactTokens) goFast([picked.id]);
        else {
          const out = await sequence.controlledEvaluate([
            [picked.id, { generateNext: { probabilities: true, options: NEUTRAL } }],
          ]);
          next = distribution(out[0]?.next.probabilities);
        }
      }
    } finally {
      // The sequence goes back to the pool only once llama.cpp has let go of it.
      await fast?.return();
      this.rt.pool.release(sequence);
    }
  }
}

interface PickOptions {
  model: LlamaModel;
  seen: ReadonlySet<Token>;
  penalty: number;
  allowEnd: boolean;
  settings: Parameters<typeof choose>[1];
  draw: () => number;
}

/** The next token and its true logprob and rank; undefined when nothing is left to choose. */
function pick(
  d: Distribution,
  { model, seen, penalty, allowEnd, settings, draw }: PickOptions,
): { id: Token; logprob: number; rank: number } | undefined {
  const candidates: number[] = [];
  const scores: number[] = [];
  const logPenalty = penalty > 1 ? Math.log(penalty) : 0;
  d.ids.slice(0, MAX_CANDIDATES).forEach((id, i) => {
    if (!allowEnd && model.isEogToken(id)) return;
    candidates.push(i);
    // The repetition penalty in log space: a token already seen is `penalty` times less likely.
    scores.push(d.logprobs[i]! - (logPenalty > 0 && seen.has(id) ? logPenalty : 0));
  });
  if (candidates.length === 0) return undefined;
  const choice = choose(scores, settings, draw);
  const index = candidates[choice.index]!;
  return { id: d.ids[index]!, logprob: d.logprobs[index]!, rank: index + 1 };
}

function alternatives(d: Distribution, text: (id: Token) => string): TokenAlternative[] {
  return d.ids.slice(0, TOP_TOKENS).map((id, i) => ({ text: text(id), logprob: d.logprobs[i]! }));
}

/** Steps from the producer to the consumer; the producer never waits for the consumer. */
class StepQueue {
  private readonly items: GenerationStep[] = [];
  private done = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  push(step: GenerationStep): void {
    this.items.push(step);
    this.notify();
  }
  end(): void {
    this.done = true;
    this.notify();
  }
  fail(error: unknown): void {
    this.error = error ?? new Error('the generation failed');
    this.done = true;
    this.notify();
  }
  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
  async *iterator(): AsyncGenerator<GenerationStep> {
    while (true) {
      const step = this.items.shift();
      if (step) {
        yield step;
        continue;
      }
      if (this.done) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
