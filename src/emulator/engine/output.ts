/**
 * The output side of a generation, the same for every engine: the tokens so far and their text, the rules that
 * end a generation after a token (a stop sequence, max_new_tokens, the context window, the time limit, in that
 * order), the text that may be sent while a stop sequence could still be starting, and the summary at the end.
 */
import type { StopReason } from '../../contract/canonical.js';
import { withReadThrough } from '../../contract/lazy-property.js';
import { moderate } from './moderation.js';
import type { StopSequences } from './stop-sequences.js';
import type { EngineRequest, EngineToken, GenerationStep, GenerationSummary } from './types.js';

/** What the generation was asked and given: the summary repeats it. */
export interface GenerationInput {
  request: EngineRequest;
  inputText: string;
  inputTokenCount: number;
  readonly inputTokens: EngineToken[];
  seed: number | undefined;
}

export interface OutputLimits {
  minNew: number;
  maxNew: number;
  /** New tokens the context window leaves room for after the prompt. */
  room: number;
  /** time_limit in milliseconds, against `now() - started`. */
  timeLimitMs: number | undefined;
  started: number;
  now: () => number;
  stops: StopSequences;
}

export class GenerationOutput {
  readonly tokens: EngineToken[] = [];
  /** Everything generated; `text` is the same, cut where a stop sequence matched. */
  private raw = '';
  private text = '';
  private sent = 0;
  private result: GenerationSummary | undefined;

  constructor(
    private readonly input: GenerationInput,
    private readonly limits: OutputLimits,
  ) {}

  /** Why the generation ends before its first token, if it does. */
  endsAtOnce(): StopReason | undefined {
    if (this.limits.maxNew === 0) return 'max_tokens';
    if (this.limits.room <= 0) return 'token_limit';
    return undefined;
  }

  /** A generated token and the text it adds ('' while it holds part of a character); why it ends the generation, if it does. */
  add(token: EngineToken, piece: string): StopReason | undefined {
    this.tokens.push(token);
    const previousLength = this.raw.length;
    this.raw += piece;
    this.text = this.raw;
    const count = this.tokens.length;
    const { minNew, maxNew, room, timeLimitMs, started, now, stops } = this.limits;
    const cut = count >= minNew && stops.active ? stops.match(this.raw, previousLength) : undefined;
    if (cut !== undefined) {
      this.text = this.raw.slice(0, cut);
      return 'stop_sequence';
    }
    if (count >= maxNew) return 'max_tokens';
    if (count >= room) return 'token_limit';
    if (timeLimitMs !== undefined && now() - started >= timeLimitMs) return 'time_limit';
    return undefined;
  }

  /** Text that comes after its token (a held part of a character, released at the end). */
  release(piece: string): void {
    this.raw += piece;
    this.text = this.raw;
  }

  /** The step of a token that does not end the generation: its text, less what a stop sequence may yet claim. */
  step(token: EngineToken): GenerationStep {
    const emittable = this.limits.stops.emittable(this.text);
    const step = { token, text: this.text.slice(this.sent, emittable), generatedTokenCount: this.tokens.length };
    this.sent = Math.max(this.sent, emittable);
    return step;
  }

  /** The last step: the rest of the text and the stop reason; the summary is ready after it. */
  finish(stopReason: StopReason, token?: EngineToken): GenerationStep {
    const input = this.input;
    const { request, inputText, inputTokenCount, seed } = input;
    // Read through, so an engine that scores its prompt lazily (generator.ts) does so only if someone asks; with
    // withReadThrough, not a literal's getter (lazy-property.ts: that would pin the generation until a full GC). The
    // keys after it are assigned, so that the summary's keys keep their order.
    const result: Omit<GenerationSummary, 'seed' | 'moderations'> & Partial<GenerationSummary> = withReadThrough(
      {
        generatedText: this.text,
        generatedTokenCount: this.tokens.length,
        generatedTokens: this.tokens,
        stopReason,
        inputText,
        inputTokenCount,
      },
      'inputTokens',
      () => input.inputTokens,
    );
    result.seed = seed;
    result.moderations = moderate(request.moderations, inputText, this.text);
    this.result = result as GenerationSummary;
    const step = { token, text: this.text.slice(this.sent), generatedTokenCount: this.tokens.length, stopReason };
    this.sent = this.text.length;
    return step;
  }

  /** The whole result; throws until the last step. */
  summary(): GenerationSummary {
    if (!this.result) throw new Error('the generation has not finished');
    return this.result;
  }
}
