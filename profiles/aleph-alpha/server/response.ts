/** Engine results in Aleph Alpha's shapes: CompletionResponse items and the pieces of the 1.19+ stream. */
import type { StopReason } from '../../../src/contract/canonical.js';
import type { EngineToken, GenerationSummary } from '../../../src/emulator/engine/index.js';

/** What the request asked to get back with each completion. */
export interface TokenOptions {
  echo: boolean;
  /** `log_probs`: null/undefined = none, 0 = the sampled token's, N = plus the top N. */
  logProbs: number | null | undefined;
  tokens: boolean;
  raw: boolean;
}

export interface AlephCompletion {
  completion: string;
  finish_reason: string;
  log_probs?: Array<Record<string, number>>;
  completion_tokens?: string[];
  raw_completion?: string;
}

export function finishReason(stop: StopReason): string {
  switch (stop) {
    case 'max_tokens':
    case 'token_limit':
      return 'maximum_tokens';
    case 'eos_token':
      return 'end_of_text';
    case 'stop_sequence':
      return 'stop_sequence_reached';
    default:
      return stop;
  }
}

/** The sampled token and, with log_probs N, the N most likely ones. The first prompt token has none: `{}`. */
function logProbEntry(token: EngineToken, topN: number): Record<string, number> {
  const entry: Record<string, number> = {};
  if (token.logprob !== undefined) entry[token.text] = token.logprob;
  for (const alt of (token.topTokens ?? []).slice(0, topN)) entry[alt.text] ??= alt.logprob;
  return entry;
}

/** Token data fields for a list of tokens, as far as the request asked for them. */
export function tokenFields(
  tokens: EngineToken[],
  opts: TokenOptions,
): Pick<AlephCompletion, 'log_probs' | 'completion_tokens'> {
  const out: Pick<AlephCompletion, 'log_probs' | 'completion_tokens'> = {};
  if (opts.tokens) out.completion_tokens = tokens.map((t) => t.text);
  if (opts.logProbs !== null && opts.logProbs !== undefined) {
    const topN = opts.logProbs;
    out.log_probs = tokens.map((t) => logProbEntry(t, topN));
  }
  return out;
}

export function wantsRaw(opts: TokenOptions): boolean {
  // 1.16: "Setting tokens to true or log_probs to any value will also trigger the raw completion to be returned."
  return opts.raw || opts.tokens || (opts.logProbs !== null && opts.logProbs !== undefined);
}

/**
 * Hands out generated tokens as the text they make up is released, so token data always matches the completion:
 * a token is given once the released text covers it; at the end a token that reaches past the text (a stop
 * sequence that was cut off) is shortened to fit and the ones after it are dropped.
 */
export class TokenRelease {
  private readonly queue: EngineToken[] = [];
  private released = 0;
  private covered = 0;

  take(tokens: readonly EngineToken[], text: string, final: boolean): EngineToken[] {
    this.queue.push(...tokens);
    this.released += text.length;
    const out: EngineToken[] = [];
    while (this.queue.length > 0) {
      const t = this.queue[0]!;
      if (this.covered + t.text.length <= this.released) {
        out.push(t);
        this.covered += t.text.length;
        this.queue.shift();
        continue;
      }
      if (final && this.covered < this.released) {
        out.push({ ...t, text: t.text.slice(0, this.released - this.covered) });
        this.covered = this.released;
      }
      break;
    }
    if (final) this.queue.length = 0;
    return out;
  }
}

/** One item of `completions` (non-streamed). */
export function completionObject(summary: GenerationSummary, opts: TokenOptions): AlephCompletion {
  const echoed = opts.echo ? summary.inputText : '';
  const generated = new TokenRelease().take(summary.generatedTokens, summary.generatedText, true);
  const completion = echoed + summary.generatedText;
  const out: AlephCompletion = {
    completion,
    finish_reason: finishReason(summary.stopReason),
    ...tokenFields(opts.echo ? [...summary.inputTokens, ...generated] : generated, opts),
  };
  if (wantsRaw(opts)) out.raw_completion = completion;
  return out;
}

/** Mean log probability per generated token: how `best_of` ranks completions. */
export function scoreOf(summary: GenerationSummary): number {
  const lps = summary.generatedTokens.map((t) => t.logprob).filter((lp): lp is number => lp !== undefined);
  return lps.length === 0 ? Number.NEGATIVE_INFINITY : lps.reduce((a, b) => a + b, 0) / lps.length;
}
