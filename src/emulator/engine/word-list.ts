/**
 * The local model's whole vocabulary: a few hundred plain English words sorted by part of
 * speech, and sentence shapes that string them together. Output reads like text without any
 * model weights.
 */

export type WordClass = 'det' | 'adj' | 'noun' | 'verb' | 'adv' | 'prep' | 'conj' | 'comma' | 'period';

export const WORDS: Record<Exclude<WordClass, 'comma' | 'period'>, readonly string[]> = {
  det: ['the', 'a', 'this', 'every', 'each', 'our', 'their', 'that', 'one', 'another', 'some', 'no'],
  adj: [
    'quiet', 'bright', 'small', 'old', 'new', 'careful', 'simple', 'early', 'distant', 'warm', 'clear',
    'gentle', 'strong', 'open', 'green', 'silver', 'patient', 'curious', 'steady', 'hidden', 'broad',
    'narrow', 'busy', 'calm', 'golden', 'modest', 'final', 'common', 'rare', 'useful',
  ],
  noun: [
    'river', 'light', 'system', 'garden', 'model', 'city', 'road', 'morning', 'signal', 'story', 'window',
    'market', 'engine', 'forest', 'idea', 'answer', 'question', 'bridge', 'letter', 'voice', 'team',
    'journey', 'machine', 'harbor', 'pattern', 'library', 'mountain', 'field', 'message', 'process',
    'house', 'school', 'report', 'village', 'season', 'network', 'record', 'plan', 'method', 'result',
  ],
  verb: [
    'carries', 'follows', 'finds', 'builds', 'opens', 'shapes', 'reaches', 'crosses', 'holds', 'brings',
    'keeps', 'changes', 'guides', 'meets', 'records', 'explains', 'needs', 'shows', 'turns', 'writes',
    'supports', 'describes', 'connects', 'improves', 'measures',
  ],
  adv: ['slowly', 'quietly', 'often', 'always', 'soon', 'together', 'again', 'rarely', 'clearly', 'gently', 'still'],
  prep: ['across', 'near', 'beyond', 'under', 'through', 'around', 'toward', 'along', 'inside', 'above', 'with', 'after', 'before'],
  conj: ['and', 'but', 'while', 'because', 'so', 'yet'],
};

/** Sentence shapes; each ends with a period. */
export const SENTENCE_SHAPES: readonly (readonly WordClass[])[] = [
  ['det', 'adj', 'noun', 'verb', 'det', 'noun', 'prep', 'det', 'noun', 'period'],
  ['det', 'noun', 'verb', 'adv', 'comma', 'conj', 'det', 'adj', 'noun', 'verb', 'det', 'noun', 'period'],
  ['prep', 'det', 'noun', 'comma', 'det', 'noun', 'verb', 'det', 'adj', 'noun', 'period'],
  ['det', 'noun', 'verb', 'det', 'noun', 'period'],
  ['det', 'adj', 'noun', 'adv', 'verb', 'det', 'noun', 'conj', 'det', 'noun', 'verb', 'adv', 'period'],
  ['adv', 'comma', 'det', 'noun', 'verb', 'det', 'adj', 'noun', 'prep', 'det', 'noun', 'period'],
];

/** Punctuation choices per slot, with fixed preferences (a period is far likelier than "!"). */
export const PUNCTUATION: Record<'comma' | 'period', readonly { text: string; logit: number }[]> = {
  comma: [{ text: ',', logit: 3 }, { text: ';', logit: 0 }],
  period: [{ text: '.', logit: 4 }, { text: '!', logit: 0.5 }],
};

/** Words that never come from the input: too common to shape the output. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  ...WORDS.det, ...WORDS.prep, ...WORDS.conj,
  'about', 'also', 'been', 'does', 'from', 'have', 'here', 'into', 'just', 'like', 'make', 'more', 'most',
  'much', 'only', 'please', 'should', 'tell', 'than', 'them', 'then', 'there', 'these', 'they', 'what',
  'when', 'where', 'which', 'will', 'would', 'your', 'were', 'with', 'this', 'that', 'could', 'write',
]);
