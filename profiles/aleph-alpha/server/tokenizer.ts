/**
 * The tokenizer of the local Aleph Alpha server: a small byte-level BPE vocabulary trained on first use from a
 * built-in corpus (the engine's words and a paragraph about tokens), so `GET /models/{model}/tokenizer` serves a
 * real Hugging Face tokenizer.json and `/tokenize` and `/detokenize` answer with exactly that tokenizer: offline
 * (`tokenize --local`) and online results agree. Deterministic: the same corpus always trains the same merges.
 */
import { createByteLevelBpe } from '../../../src/tokenizers/byte-level-bpe.js';
import { byteLevelTokenizerJson, trainByteLevelBpe } from '../../../src/tokenizers/train-bpe.js';
import type { OfflineTokenizer } from '../../../src/tokenizers/types.js';
import type { Engine } from '../../../src/emulator/engine/index.js';
import { WORDS } from '../../../src/emulator/engine/word-list.js';

/** Enough merges for whole common words; few enough that training takes milliseconds. */
export const LOCAL_MERGES = 400;
export const END_OF_TEXT = '<|endoftext|>';

const PARAGRAPH = [
  'An apple a day keeps the doctor away. A tokenizer splits the text of a prompt into tokens,',
  'and each token has an id: the model reads the ids, not the letters. Common words are one token;',
  'rare words, names and numbers like 2048 or 3.14 are split into pieces. Hello, world! What is the',
  'weather like today? It is 21 degrees in the city, and the river is quiet. The café serves crème',
  'brûlée; naïve tokenizers count characters, careful ones count bytes. Tell me a story about rivers,',
  'mountains and the sea. Write a haiku. Summarise this document in three sentences, please.',
].join(' ');

export function localCorpus(): string {
  const words = Object.values(WORDS).flat();
  // Each engine word with and without its leading space, so generated text is mostly whole-word tokens.
  return [
    PARAGRAPH,
    words.join(' '),
    words.join(' '),
    words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' '),
  ].join('\n');
}

let document: Record<string, unknown> | undefined;
let tokenizer: OfflineTokenizer | undefined;

/** The tokenizer.json the server hands out (the same object every time). */
export function localTokenizerJson(): Record<string, unknown> {
  document ??= byteLevelTokenizerJson(trainByteLevelBpe(localCorpus(), LOCAL_MERGES), [END_OF_TEXT]);
  return document;
}

/** The tokenizer built from that same file, as a client would build it. */
export function localTokenizer(): OfflineTokenizer {
  tokenizer ??= createByteLevelBpe(localTokenizerJson());
  return tokenizer;
}

/**
 * The tokenizer a route uses for `model`: the served model's own (a real model's vocabulary), else the local
 * Luminous stand-in above.
 */
export async function modelTokenizer(
  engine: Engine,
  model: string,
): Promise<Pick<OfflineTokenizer, 'encode' | 'decode' | 'tokenTexts'>> {
  return model === engine.modelName ? engine.tokenizer() : localTokenizer();
}
