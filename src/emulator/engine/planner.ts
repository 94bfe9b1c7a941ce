/**
 * Decides what comes next, one word or punctuation mark at a time: a sentence shape is picked,
 * each slot is filled from the word list (input words favoured for nouns), and after each
 * sentence the text may end. Scores come from hashes of the context, so greedy decoding is a
 * pure function of the input, and sampling only adds the seeded draws.
 */
import { choose, type SamplingSettings } from './sampler.js';
import { hashString, mix, mix2, unit } from './random.js';
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
  | {
      kind: 'text';
      text: string;
      logprob: number;
      rank: number;
      /** Every candidate, most likely first; worked out only when the token's alternatives are read. */
      alternatives: () => Alternative[];
    }
  | { kind: 'eos' };

/** Chance that the text ends after a sentence, before any length penalty. */
const EOS_CHANCE = 0.3;
const INPUT_WORD_BOOST = 2.5;
const MAX_INPUT_WORDS = 24;

export class Planner {
  private readonly inputHash: number;
  private readonly inputWords: string[];
  private readonly inputWordSet: ReadonlySet<string>;
  private nounList: readonly string[] | undefined;
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
    this.inputWordSet = new Set(this.inputWords);
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

  /** The vocabulary's nouns, then the input's words that are none of them (the same for the whole generation). */
  private nouns(): readonly string[] {
    this.nounList ??= [...WORDS.noun, ...this.inputWords.filter((w) => !WORDS.noun.includes(w))];
    return this.nounList;
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
    const logits = SENTENCE_SHAPES.map((_, i) => 4 * unit(mix2(ctx, i)));
    this.shape = SENTENCE_SHAPES[choose(logits, this.settings, this.draw).index];
    this.slot = 0;
    this.sentences++;
  }

  private word(wordClass: Exclude<WordClass, 'comma' | 'period'>): Piece {
    const ctx = this.context();
    const words = wordClass === 'noun' ? this.nouns() : WORDS[wordClass];
    const logits = words.map((w) => {
      // Cubed so a few words dominate each context, as in a real model's distribution.
      let logit = 6 * unit(mix2(ctx, wordHash(w))) ** 3 - 2;
      if (wordClass === 'noun' && this.inputWordSet.has(w)) logit += INPUT_WORD_BOOST;
      if (this.used.has(w))
        logit = logit > 0 ? logit / this.settings.repetitionPenalty : logit * this.settings.repetitionPenalty;
      return logit;
    });
    const spell = this.speller();
    const choice = choose(logits, this.settings, this.draw);
    const chosen = words[choice.index]!;
    this.used.add(chosen);
    this.remember(chosen);
    return {
      kind: 'text',
      text: spell(chosen),
      logprob: choice.logprob,
      rank: choice.rank,
      alternatives: () => choice.ranked.map((r) => ({ text: spell(words[r.index]!), logprob: r.logprob })),
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
      alternatives: () => choice.ranked.map((r) => ({ text: options[r.index]!.text, logprob: r.logprob })),
    };
  }

  /**
   * How a word appears in the text at this slot: leading space, capital at a sentence start. Fixed now, as the
   * alternatives spelled with it may be read after the planner has moved on.
   */
  private speller(): (word: string) => string {
    const capital = this.slot === 0;
    const space = this.spaceBefore;
    return (word) => {
      const text = capital ? word[0]!.toUpperCase() + word.slice(1) : word;
      return space ? ` ${text}` : text;
    };
  }

  private remember(text: string): void {
    this.prev = [this.prev[1], text];
    this.spaceBefore = true;
  }

  private context(): number {
    return mix(this.inputHash, hashString(this.prev[0]), hashString(this.prev[1]), this.sentences, this.slot);
  }
}

/** hashString of each word seen, kept: the vocabulary is a few hundred words, scored at every slot. */
const wordHashes = new Map<string, number>();

function wordHash(word: string): number {
  let h = wordHashes.get(word);
  if (h === undefined) {
    h = hashString(word);
    // Input words join the nouns too; a bound keeps a server fed endless new words from growing the map.
    if (wordHashes.size < 10_000) wordHashes.set(word, h);
  }
  return h;
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
