/**
 * Reads a Hugging Face `tokenizer.json` (what Aleph Alpha's `GET /models/{model}/tokenizer` returns) into the parts
 * a byte-level BPE tokenizer needs. Only that family is supported — `model.type: "BPE"` with a ByteLevel
 * pre-tokenizer (alone, or after Split regexes) and a ByteLevel decoder; anything else is a usage error that says
 * what the file holds.
 */
import { UnexpectedAnswer, UsageError } from '../contract/errors.js';
import { isRecord } from '../contract/wire-fields.js';
import { GPT2_SPLIT_PATTERN, toByteLevel } from './byte-level.js';
import { isKnownSplitPattern } from './known-split-patterns.js';
import { compileSplitPattern, SPLIT_BEHAVIORS, splitPiece, type SplitBehavior } from './split-regex.js';

export interface AddedToken {
  id: number;
  content: string;
}

export interface ByteLevelBpeParts {
  normalize(text: string): string;
  /** One text → the pieces BPE works on, already in the byte-level alphabet. */
  preTokenize(text: string): string[];
  vocab: Map<string, number>;
  /** In rank order: earlier merges apply first. */
  merges: Array<[string, string]>;
  /** Llama 3 style: a piece that is itself in the vocabulary is taken whole. */
  ignoreMerges: boolean;
  unkToken: string | undefined;
  addedTokens: AddedToken[];
}

function unsupported(what: string): UsageError {
  return new UsageError(`offline tokenization supports byte-level BPE tokenizers only; this tokenizer has ${what}`, {
    hint: 'tokenize without --local to let the service do it',
  });
}

function typeOf(v: unknown): string {
  return isRecord(v) && typeof v.type === 'string' ? v.type : JSON.stringify(v);
}

type Normalizer = (text: string) => string;

function readNormalizer(n: unknown): Normalizer {
  if (n === null || n === undefined) return (t) => t;
  if (!isRecord(n)) throw unsupported(`a normalizer ${JSON.stringify(n)}`);
  switch (n.type) {
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = n.type;
      return (t) => t.normalize(form);
    }
    case 'Lowercase':
      return (t) => t.toLowerCase();
    case 'Sequence': {
      if (!Array.isArray(n.normalizers)) throw unsupported('a Sequence normalizer without "normalizers"');
      const steps = n.normalizers.map(readNormalizer);
      return (t) => steps.reduce((s, step) => step(s), t);
    }
    default:
      throw unsupported(`a ${typeOf(n)} normalizer`);
  }
}

type PreTokenizeStep = (pieces: string[]) => string[];

function readPreTokenizer(p: unknown, steps: PreTokenizeStep[]): { byteLevel: boolean } {
  if (!isRecord(p))
    throw unsupported(
      p === null || p === undefined
        ? 'no pre-tokenizer (a byte-level one has ByteLevel)'
        : `a pre-tokenizer ${JSON.stringify(p)}`,
    );
  switch (p.type) {
    case 'ByteLevel': {
      const addPrefixSpace = p.add_prefix_space === true;
      const split =
        p.use_regex === false
          ? undefined
          : compileSplitPattern({ Regex: GPT2_SPLIT_PATTERN }, 'ByteLevel pre-tokenizer');
      steps.push((pieces) =>
        pieces.flatMap((piece) => {
          // As Hugging Face does it: to every piece an earlier step made, not just to the start of the text.
          const text = addPrefixSpace && !piece.startsWith(' ') ? ` ${piece}` : piece;
          return (split ? splitPiece(text, split, 'Isolated') : [text]).map(toByteLevel);
        }),
      );
      return { byteLevel: true };
    }
    case 'Split': {
      if (!isRecord(p.pattern)) throw unsupported('a Split pre-tokenizer without a pattern');
      const behavior = p.behavior ?? 'Isolated';
      if (typeof behavior !== 'string' || !(SPLIT_BEHAVIORS as readonly string[]).includes(behavior)) {
        throw unsupported(
          `a Split pre-tokenizer with behavior ${JSON.stringify(behavior)} (supported: ${SPLIT_BEHAVIORS.join(', ')})`,
        );
      }
      // The file comes from a service: only the public patterns run (known-split-patterns.ts says why).
      if (!isKnownSplitPattern(p.pattern))
        throw new UnexpectedAnswer(
          'the tokenizer file has a Split pre-tokenizer pattern that is not one of the public patterns textgen runs (a pattern can make pre-tokenizing take forever)',
        );
      const regex = compileSplitPattern(p.pattern, 'Split pre-tokenizer');
      const invert = p.invert === true;
      steps.push((pieces) => pieces.flatMap((piece) => splitPiece(piece, regex, behavior as SplitBehavior, invert)));
      return { byteLevel: false };
    }
    case 'Sequence': {
      if (!Array.isArray(p.pretokenizers)) throw unsupported('a Sequence pre-tokenizer without "pretokenizers"');
      let byteLevel = false;
      for (const inner of p.pretokenizers) byteLevel = readPreTokenizer(inner, steps).byteLevel || byteLevel;
      return { byteLevel };
    }
    default:
      throw unsupported(`a ${typeOf(p)} pre-tokenizer`);
  }
}

function readVocab(v: unknown): Map<string, number> {
  if (!isRecord(v)) throw unsupported('a BPE model without a "vocab" object');
  const vocab = new Map<string, number>();
  for (const [token, id] of Object.entries(v)) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0)
      throw new UsageError(`the tokenizer's vocabulary gives "${token}" the id ${JSON.stringify(id)}`);
    vocab.set(token, id);
  }
  return vocab;
}

/** Merges are written "a b" (older files) or ["a", "b"] (newer ones). */
function readMerges(m: unknown): Array<[string, string]> {
  if (!Array.isArray(m)) throw unsupported('a BPE model without a "merges" list');
  return m.map((merge, i): [string, string] => {
    if (typeof merge === 'string') {
      const space = merge.indexOf(' ', 1);
      if (space > 0) return [merge.slice(0, space), merge.slice(space + 1)];
    } else if (
      Array.isArray(merge) &&
      merge.length === 2 &&
      typeof merge[0] === 'string' &&
      typeof merge[1] === 'string'
    ) {
      return [merge[0], merge[1]];
    }
    throw new UsageError(`the tokenizer's merge ${i} is not a pair: ${JSON.stringify(merge)}`);
  });
}

function readAddedTokens(a: unknown): AddedToken[] {
  if (a === undefined || a === null) return [];
  if (!Array.isArray(a)) throw new UsageError('the tokenizer\'s "added_tokens" is not a list');
  return a.map((t, i) => {
    if (
      !isRecord(t) ||
      typeof t.content !== 'string' ||
      t.content === '' ||
      typeof t.id !== 'number' ||
      !Number.isInteger(t.id) ||
      t.id < 0
    ) {
      throw new UsageError(`the tokenizer's added token ${i} needs a non-empty "content" and an integer "id"`);
    }
    return { id: t.id, content: t.content };
  });
}

/** The parts of a byte-level BPE tokenizer.json; UsageError for any other kind of tokenizer or a broken file. */
export function readTokenizerJson(doc: unknown): ByteLevelBpeParts {
  if (!isRecord(doc)) throw new UsageError('the tokenizer is not a JSON object');
  const model = doc.model;
  if (!isRecord(model)) throw unsupported('no "model"');
  // Files written by old versions of the library leave out the type of a BPE model.
  const modelType = model.type ?? (model.merges !== undefined ? 'BPE' : undefined);
  if (modelType !== 'BPE') throw unsupported(`a ${typeof modelType === 'string' ? modelType : 'untyped'} model`);
  for (const key of ['continuing_subword_prefix', 'end_of_word_suffix'] as const) {
    if (model[key] !== undefined && model[key] !== null && model[key] !== '')
      throw unsupported(`a BPE model with ${key} ${JSON.stringify(model[key])}`);
  }
  if (model.byte_fallback === true) throw unsupported('a BPE model with byte_fallback (SentencePiece style)');
  if (typeOf(doc.decoder) !== 'ByteLevel')
    throw unsupported(
      doc.decoder === null || doc.decoder === undefined ? 'no decoder' : `a ${typeOf(doc.decoder)} decoder`,
    );

  const steps: PreTokenizeStep[] = [];
  if (!readPreTokenizer(doc.pre_tokenizer, steps).byteLevel)
    throw unsupported('no ByteLevel step in its pre-tokenizer');
  const vocab = readVocab(model.vocab);
  const merges = readMerges(model.merges);
  for (const [a, b] of merges) {
    if (!vocab.has(a + b))
      throw new UsageError(`the tokenizer merges "${a}" and "${b}" into a token its vocabulary lacks`);
  }
  const unk = typeof model.unk_token === 'string' && model.unk_token !== '' ? model.unk_token : undefined;
  return {
    normalize: readNormalizer(doc.normalizer),
    preTokenize: (text) => steps.reduce<string[]>((pieces, step) => step(pieces), [text]).filter((p) => p !== ''),
    vocab,
    merges,
    ignoreMerges: model.ignore_merges === true,
    unkToken: unk,
    addedTokens: readAddedTokens(doc.added_tokens),
  };
}
