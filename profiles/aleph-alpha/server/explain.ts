/**
 * `POST /explain` of the local Aleph Alpha server. Each piece of the prompt (token, word, sentence, paragraph or
 * custom-delimited; image tiles 12×12 … 1×1; one score per token id) gets a score for each target piece explained:
 * how many of the target's words it shares, plus a small hashed offset that may be negative (the service's scores
 * are differences in cross entropy). Then `postprocessing` and `normalize`, as the service applies them. A null target
 * explains the engine's own greedy completion. Deterministic.
 */
import { DEFAULT_MAX_NEW_TOKENS, runToEnd, type Engine, type Tokenizer } from '../../../src/emulator/engine/index.js';
import { hashString, mix, unit } from '../../../src/emulator/engine/random.js';
import type { AlephAlphaPromptItem } from '../prompt-item-check.js';
import { badRequest, round, success, type TaskAnswer } from './task-answer.js';
import { decodeIds, promptItems, promptText } from './task-text.js';
import type { Granularity, ValidExplanationRequest } from './task-validate.js';
import { contextSize, MODEL_VERSION } from './models.js';
import {
  delimitedSpans,
  paragraphSpans,
  sentenceSpans,
  spanText,
  termsOf,
  tokenPieces,
  wordSpans,
  type Span,
} from './text-spans.js';

/** "If you do not choose a granularity then we will try to find the granularity that brings you closest to around 30 explanations." */
const AUTO_TARGET_COUNT = 30;
const AUTO_CHOICES: readonly Granularity[] = ['token', 'word', 'sentence', 'paragraph'];
/** Image tiles per side, per granularity (the 1.16 document); a custom delimiter cannot cut an image, so it stays whole. */
const TILES: Record<Granularity, number> = { token: 12, word: 6, sentence: 3, paragraph: 1, custom: 1 };
/** How far the hashed offset moves a score. */
const OFFSET_WEIGHT = 0.3;

interface Cut {
  granularity: Granularity;
  delimiter: string | undefined;
}

function spansOf(tokenizer: Tokenizer, text: string, cut: Cut): Span[] {
  switch (cut.granularity) {
    case 'token':
      return tokenPieces(tokenizer, text).map(({ start, length }) => ({ start, length }));
    case 'word':
      return wordSpans(text);
    case 'sentence':
      return sentenceSpans(text);
    case 'paragraph':
      return paragraphSpans(text);
    case 'custom':
      return delimitedSpans(text, cut.delimiter ?? '');
  }
}

/** How many scores a granularity gives for the whole prompt. */
function countAt(tokenizer: Tokenizer, items: AlephAlphaPromptItem[], granularity: Granularity): number {
  return items.reduce((n, item) => {
    if (item.type === 'text') return n + spansOf(tokenizer, item.data, { granularity, delimiter: undefined }).length;
    if (item.type === 'image') return n + TILES[granularity] ** 2;
    return n + item.data.length;
  }, 0);
}

function chooseCut(tokenizer: Tokenizer, items: AlephAlphaPromptItem[], body: ValidExplanationRequest): Cut {
  const asked = body.prompt_granularity;
  if (asked?.type !== undefined) return { granularity: asked.type, delimiter: asked.delimiter };
  let best: Granularity = 'token';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const g of AUTO_CHOICES) {
    const distance = Math.abs(countAt(tokenizer, items, g) - AUTO_TARGET_COUNT);
    if (distance < bestDistance) [best, bestDistance] = [g, distance];
  }
  return { granularity: best, delimiter: undefined };
}

/** Shared words with the target piece, plus the offset hashed from both texts. */
function scoreText(piece: string, target: { terms: Set<string>; salt: number }): number {
  const terms = termsOf(piece);
  let shared = 0;
  for (const t of terms) if (target.terms.has(t)) shared++;
  const overlap = target.terms.size === 0 ? 0 : shared / target.terms.size;
  return overlap + OFFSET_WEIGHT * (unit(mix(hashString(piece), target.salt)) - 0.35);
}

function postprocess(score: number, how: ValidExplanationRequest['postprocessing']): number {
  if (how === 'absolute') return Math.abs(score);
  if (how === 'square') return score * score;
  return score;
}

type Item =
  | { type: 'text' | 'target'; scores: Array<Span & { score: number }> }
  | {
      type: 'image';
      scores: Array<{ rect: { top: number; left: number; width: number; height: number }; score: number }>;
    }
  | { type: 'token_ids'; scores: number[] };

/** Rewrites every score of an explanation in place (postprocessing, normalising, rounding). */
function eachScore(items: Item[], visit: (score: number) => number): void {
  for (const item of items) {
    if (item.type === 'token_ids') item.scores = item.scores.map(visit);
    else for (const s of item.scores) s.score = visit(s.score);
  }
}

export async function explain(body: ValidExplanationRequest, signal: AbortSignal, engine: Engine): Promise<TaskAnswer> {
  const tokenizer = await engine.tokenizer();
  const prompt = promptText(tokenizer, body.prompt, 'prompt');
  if (!prompt.ok) return badRequest(prompt.message);
  const promptTokens = tokenizer.encode(prompt.text).length + prompt.imageTokens;
  const context = contextSize(engine, body.model);
  let target = body.target;
  if (target === null) {
    target = (
      await runToEnd(
        engine,
        {
          input: prompt.text,
          parameters: {
            decoding_method: 'greedy',
            max_new_tokens: DEFAULT_MAX_NEW_TOKENS,
            include_stop_sequence: false,
          },
        },
        { signal },
      )
    ).generatedText;
  }
  const targetTokens = tokenPieces(tokenizer, target);
  if (promptTokens + targetTokens.length > context) {
    return badRequest(
      `Invalid request: the prompt (${promptTokens} tokens) plus 'target' (${targetTokens.length} tokens) exceeds the ${context} tokens of ${body.model}`,
    );
  }

  const items = promptItems(body.prompt);
  const cut = chooseCut(tokenizer, items, body);
  const explained: Span[] = body.target_granularity === 'token' ? targetTokens : [{ start: 0, length: target.length }];
  const explanations = explained.map((piece) => {
    const text = spanText(target, piece);
    const scoring = { terms: termsOf(text), salt: hashString(text) };
    const out: Item[] = items.map((item): Item => {
      if (item.type === 'text')
        return {
          type: 'text',
          scores: spansOf(tokenizer, item.data, cut).map((s) => ({
            ...s,
            score: scoreText(spanText(item.data, s), scoring),
          })),
        };
      if (item.type === 'token_ids')
        return {
          type: 'token_ids',
          scores: item.data.map((id) => scoreText(decodeIds(tokenizer, [id]) ?? '', scoring)),
        };
      const n = TILES[cut.granularity];
      const image = hashString(item.data);
      const scores = [];
      for (let row = 0; row < n; row++) {
        for (let col = 0; col < n; col++) {
          const score = OFFSET_WEIGHT * (unit(mix(image, scoring.salt, row * n + col)) - 0.35);
          scores.push({ rect: { top: row / n, left: col / n, width: 1 / n, height: 1 / n }, score });
        }
      }
      return { type: 'image', scores };
    });
    // The target text before the piece explained (nothing, for the complete target).
    const before = target.slice(0, piece.start);
    out.push({
      type: 'target',
      scores: spansOf(tokenizer, before, cut).map((s) => ({ ...s, score: scoreText(spanText(before, s), scoring) })),
    });

    eachScore(out, (s) => postprocess(s, body.postprocessing));
    if (body.normalize === true) {
      const all: number[] = [];
      eachScore(out, (s) => {
        all.push(s);
        return s;
      });
      const min = Math.min(...all);
      const spread = Math.max(...all) - min;
      // With every score equal there is no spread to stretch: all become 0, the minimum.
      eachScore(out, (s) => (spread > 0 ? (s - min) / spread : 0));
    }
    eachScore(out, round);
    return { target: text, items: out };
  });
  return success({ model_version: MODEL_VERSION, explanations });
}
