/**
 * Decides what comes next, one word or punctuation mark at a time: a sentence shape is picked,
 * each slot is filled from the word list (input words favoured for nouns), and after each
 * sentence the text may end. Scores come from hashes of the context, so greedy decoding is a
 * pure function of the input, and sampling only adds the seeded draws.
 */
import { choose, type SamplingSettings } from './sampler.js';
import { hashString, mix, unit } from './random.js';
import { FUNCTION_WORDS, PUNCTUATION, SENTENCE_SHAPES, WORDS, type WordClass } from './word-list.js';

export interface PlannerSettings extends SamplingSettings {
  repetitionPenalty: number;
  lengthPenalty?: { decayFactor: number; startIndex: number } | undefined;
}

export interface Alternative {
  text: string;
  logprob: number;
}

export type Piece =
  | { kind: 'text'; text: string; logprob: number; rank: number; alternatives: Alternative[] }
  | { kind: 'eos' };

/** Chance that the text ends after a sentence, before any length penalty. */
const EOS_CHANCE = 0.3;
const INPUT_WORD_BOOST = 2.5;
const MAX_INPUT_WORDS = 24;

export class Planner {
  private readonly inputHash: number;
  private readonly inputWords: string[];
  private readonly used = new Set<string>();
  private shape: readonly WordClass[] | undefined;
  private slot = 0;
  private sentences = 0;
  private prev: [string, string] = ['', ''];
  private spaceBefore: boolean;

  constructor(
    input: string,
    private readonly settings: PlannerSettings,
    /** Seeded draws for sampling; greedy never calls it. */
    private readonly draw: () => number,
  ) {
    this.inputHash = hashString(input);
    this.inputWords = inputWords(input);
    for (const w of this.inputWords) this.used.add(w);
    // Continue a word that was cut off ("Hello" → " world"), but not after a space or newline.
    this.spaceBefore = input.length > 0 && !/\s$/.test(input);
  }

  /** `generated` counts tokens so far (for the length penalty); `allowEos` is false until min_new_tokens. */
  next(generated: number, allowEos: boolean): Piece {
    if (this.shape === undefined || this.slot >= this.shape.length) {
      if (this.shape !== undefined && this.endsHere(generated) && allowEos) return { kind: 'eos' };
      this.startSentence();
    }
    const wordClass = this.shape![this.slot]!;
    const piece = wordClass === 'comma' || wordClass === 'period' ? this.punctuation(wordClass) : this.word(wordClass);
    this.slot++;
    return piece;
  }

  private endsHere(generated: number): boolean {
    let chance = EOS_CHANCE;
    const lp = this.settings.lengthPenalty;
    if (lp && generated > lp.startIndex)
      chance = Math.min(0.95, chance * lp.decayFactor ** (generated - lp.startIndex));
    // Drawn even when EOS is not allowed yet, so min_new_tokens does not shift later draws.
    const roll = this.settings.greedy ? unit(mix(this.context(), 0xe05)) : this.draw();
    return roll < chance;
  }

  private startSentence(): void {
    const ctx = mix(this.context(), 0x5e7);
    const logits = SENTENCE_SHAPES.map((_, i) => 4 * unit(mix(ctx, i)));
    this.shape = SENTENCE_SHAPES[choose(logits, this.settings, this.draw).index];
    this.slot = 0;
    this.sentences++;
  }

  private word(wordClass: Exclude<WordClass, 'comma' | 'period'>): Piece {
    const ctx = this.context();
    const words =
      wordClass === 'noun'
        ? [...WORDS.noun, ...this.inputWords.filter((w) => !WORDS.noun.includes(w))]
        : [...WORDS[wordClass]];
    const logits = words.map((w) => {
      // Cubed so a few words dominate each context, as in a real model's distribution.
      let logit = 6 * unit(mix(ctx, hashString(w))) ** 3 - 2;
      if (wordClass === 'noun' && this.inputWords.includes(w)) logit += INPUT_WORD_BOOST;
      if (this.used.has(w))
        logit = logit > 0 ? logit / this.settings.repetitionPenalty : logit * this.settings.repetitionPenalty;
      return logit;
    });
    const texts = words.map((w) => this.spell(w));
    const choice = choose(logits, this.settings, this.draw);
    const chosen = words[choice.index]!;
    this.used.add(chosen);
    this.remember(chosen);
    return {
      kind: 'text',
      text: texts[choice.index]!,
      logprob: choice.logprob,
      rank: choice.rank,
      alternatives: choice.ranked.map((r) => ({ text: texts[r.index]!, logprob: r.logprob })),
    };
  }

  private punctuation(slot: 'comma' | 'period'): Piece {
    const options = PUNCTUATION[slot];
    const choice = choose(
      options.map((o) => o.logit),
      this.settings,
      this.draw,
    );
    this.remember(options[choice.index]!.text);
    return {
      kind: 'text',
      text: options[choice.index]!.text,
      logprob: choice.logprob,
      rank: choice.rank,
      alternatives: choice.ranked.map((r) => ({ text: options[r.index]!.text, logprob: r.logprob })),
    };
  }

  /** The word as it appears in the text: leading space, capital at a sentence start. */
  private spell(word: string): string {
    const capital = this.slot === 0 ? word[0]!.toUpperCase() + word.slice(1) : word;
    return this.spaceBefore ? ` ${capital}` : capital;
  }

  private remember(text: string): void {
    this.prev = [this.prev[1], text];
    this.spaceBefore = true;
  }

  private context(): number {
    return mix(this.inputHash, hashString(this.prev[0]), hashString(this.prev[1]), this.sentences, this.slot);
  }
}

/** Content words of the input, most recent last; ASCII only so every token decodes on its own. */
function inputWords(input: string): string[] {
  const seen = new Set<string>();
  for (const match of input.matchAll(/[A-Za-z]{4,}/g)) {
    const w = match[0].toLowerCase();
    if (FUNCTION_WORDS.has(w)) continue;
    seen.delete(w);
    seen.add(w);
  }
  return [...seen].slice(-MAX_INPUT_WORDS);
}
