/**
 * Engine output as completion choices: the whole choice of a finished generation, and a streamed choice that
 * releases text (and its token data) step by step. Both apply the content filter and keep only the tokens that
 * start inside the returned text, so a stream adds up to the plain answer.
 */
import type { StopReason } from '../../../src/contract/canonical.js';
import type { EngineToken, Generation, GenerationStep, GenerationSummary } from '../../../src/emulator/engine/index.js';
import { outputCut, releasable } from './content-filter.js';
import type { WireChoice, WireLogprobs } from '../wire.js';

export interface ChoiceOptions {
  /** The prompt, when echo was asked for: the choice text starts with it. */
  echo: string | undefined;
  /** `logprobs` of the request: undefined = no token data. */
  logprobs: number | undefined;
}

interface PlacedToken {
  token: EngineToken;
  /** Where the token starts in the choice text (the echoed prompt included). */
  offset: number;
}

export function finishReasonOf(stop: StopReason): string {
  return stop === 'max_tokens' || stop === 'token_limit' ? 'length' : 'stop';
}

function topOf(token: EngineToken, top: number): Record<string, number> {
  const out: Record<string, number> = {};
  const alternatives =
    token.topTokens ?? (token.logprob === undefined ? [] : [{ text: token.text, logprob: token.logprob }]);
  for (const alt of alternatives.slice(0, top)) out[alt.text] = alt.logprob;
  return out;
}

/** Parallel arrays; the first prompt token has no logprob, so its entries are null, as the services send them. */
export function logprobsObject(placed: readonly PlacedToken[], top: number): WireLogprobs {
  return {
    tokens: placed.map((p) => p.token.text),
    token_logprobs: placed.map((p) => p.token.logprob ?? null),
    top_logprobs: placed.map((p) => (p.token.logprob === undefined ? null : topOf(p.token, top))),
    text_offset: placed.map((p) => p.offset),
  };
}

function place(tokens: readonly EngineToken[], start: number): PlacedToken[] {
  let offset = start;
  return tokens.map((token) => {
    const placed = { token, offset };
    offset += token.text.length;
    return placed;
  });
}

export interface BuiltChoice {
  choice: WireChoice;
  /** Generated tokens that start inside the returned text. */
  completionTokens: number;
  /** Mean logprob of those tokens: how best_of ranks candidates. */
  meanLogprob: number;
}

/** The complete choice of a finished generation (`index` is set by the caller). */
export function wholeChoice(summary: GenerationSummary, options: ChoiceOptions): BuiltChoice {
  const cut = outputCut(summary.generatedText);
  const text = cut === undefined ? summary.generatedText : summary.generatedText.slice(0, cut);
  const prefix = options.echo ?? '';
  const kept = place(summary.generatedTokens, prefix.length).filter((p) => p.offset < prefix.length + text.length);
  let logprobs: WireLogprobs | null = null;
  if (options.logprobs !== undefined) {
    const prompt = options.echo === undefined ? [] : place(summary.inputTokens, 0);
    logprobs = logprobsObject([...prompt, ...kept], options.logprobs);
  }
  const sum = kept.reduce((acc, p) => acc + (p.token.logprob ?? 0), 0);
  return {
    choice: {
      text: prefix + text,
      index: 0,
      logprobs,
      finish_reason: cut === undefined ? finishReasonOf(summary.stopReason) : 'content_filter',
    },
    // An engine that gives no tokens (an upstream service, src/gateway/) gives its count.
    completionTokens: summary.generatedTokens.length === 0 ? summary.generatedTokenCount : kept.length,
    meanLogprob: kept.length === 0 ? 0 : sum / kept.length,
  };
}

/** One choice of a stream: `next()` advances the engine one step and says what to send, if anything. */
export class StreamedChoice {
  done = false;
  completionTokens = 0;
  private readonly steps: AsyncIterator<GenerationStep>;
  private readonly prefixLength: number;
  /** Generated text the engine has released so far. */
  private released = '';
  /** Characters of `released` already sent. */
  private sent = 0;
  private readonly placed: PlacedToken[] = [];
  private rawLength = 0;
  private cursor = 0;

  constructor(
    private readonly generation: Generation,
    readonly index: number,
    private readonly options: ChoiceOptions,
  ) {
    this.steps = generation[Symbol.asyncIterator]();
    this.prefixLength = options.echo?.length ?? 0;
  }

  /** The echoed prompt, sent before any generated text. */
  opening(): WireChoice | undefined {
    if (this.options.echo === undefined) return undefined;
    const logprobs =
      this.options.logprobs === undefined
        ? null
        : logprobsObject(place(this.generation.inputTokens, 0), this.options.logprobs);
    return { text: this.options.echo, index: this.index, logprobs, finish_reason: null };
  }

  async next(): Promise<WireChoice | undefined> {
    const r = await this.steps.next();
    if (r.done) {
      this.done = true;
      return undefined;
    }
    const step = r.value;
    if (step.token) {
      this.placed.push({ token: step.token, offset: this.prefixLength + this.rawLength });
      this.rawLength += step.token.text.length;
    }
    this.released += step.text;
    const cut = outputCut(this.released);
    let finish: string | null = null;
    let upTo: number;
    if (cut !== undefined) {
      finish = 'content_filter';
      upTo = cut;
      // The rest of this generation will never be sent.
      await this.steps.return?.(undefined);
    } else if (step.stopReason !== undefined) {
      finish = finishReasonOf(step.stopReason);
      upTo = this.released.length;
    } else {
      upTo = releasable(this.released);
    }
    if (finish !== null) this.done = true;
    upTo = Math.max(upTo, this.sent);
    const text = this.released.slice(this.sent, upTo);
    this.sent = upTo;
    const tokens: PlacedToken[] = [];
    while (this.cursor < this.placed.length && this.placed[this.cursor]!.offset < this.prefixLength + upTo)
      tokens.push(this.placed[this.cursor++]!);
    this.completionTokens += tokens.length;
    // An engine that gives no tokens (an upstream service, src/gateway/) says the count on its last step.
    if (finish !== null && this.placed.length === 0) this.completionTokens = step.generatedTokenCount;
    if (finish === null && text === '' && tokens.length === 0) return undefined;
    const logprobs = this.options.logprobs === undefined ? null : logprobsObject(tokens, this.options.logprobs);
    return { text, index: this.index, logprobs, finish_reason: finish };
  }
}
