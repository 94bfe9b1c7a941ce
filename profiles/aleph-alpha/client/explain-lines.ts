/**
 * An explanation for people: one `score  span` line per scored piece of the prompt, in prompt order; on a colour
 * terminal, a heat map of the prompt (and target) text instead, with lines only for pieces that are not text.
 */
import type { Explanation, ExplanationItem, HeatMapPainter } from '../../../src/contract/adapter.js';
import type { AlephAlphaPrompt, AlephAlphaPromptItem } from '../prompt-item-check.js';

const SCORE_WIDTH = 8;

function row(score: number, span: string): string {
  return `${(Number.isFinite(score) ? score.toFixed(4) : String(score)).padStart(SCORE_WIDTH)}  ${span}`;
}

function fraction(v: number): string {
  return v.toFixed(2);
}

function promptItemsOf(prompt: AlephAlphaPrompt): AlephAlphaPromptItem[] {
  return typeof prompt === 'string' ? [{ type: 'text', data: prompt }] : prompt;
}

/** The lines of one item; `image` is its number among the prompt's images. */
function itemLines(
  item: ExplanationItem,
  source: AlephAlphaPromptItem | undefined,
  target: string,
  image: number,
): string[] {
  switch (item.type) {
    case 'text':
    case 'target': {
      const text = item.type === 'target' ? target : source?.type === 'text' ? source.data : undefined;
      return item.scores.map((s) => {
        const span =
          text === undefined ? `[${s.start}, +${s.length}]` : JSON.stringify(text.slice(s.start, s.start + s.length));
        return row(s.score, item.type === 'target' ? `target ${span}` : span);
      });
    }
    case 'image':
      return item.scores.map((s) => {
        const r = s.rect;
        return row(
          s.score,
          `image ${image} [left ${fraction(r.left)}, top ${fraction(r.top)}, ${fraction(r.width)} × ${fraction(r.height)}]`,
        );
      });
    case 'token_ids': {
      const ids = source?.type === 'token_ids' ? source.data : [];
      return item.scores.map((score, k) => row(score, `token ${ids[k] ?? `#${k}`}`));
    }
  }
}

/** Each item with its prompt item and image number. Item i explains prompt item i; `target` items point into the target. */
function eachItem(
  explanation: Explanation,
  prompt: AlephAlphaPrompt,
  visit: (item: ExplanationItem, source: AlephAlphaPromptItem | undefined, image: number) => string[],
): string[] {
  const promptItems = promptItemsOf(prompt);
  let images = 0;
  return explanation.items.flatMap((item, i) => {
    if (item.type === 'image') images += 1;
    return visit(item, promptItems[i], images);
  });
}

/** The lines of one explanation. */
export function explanationLines(explanation: Explanation, prompt: AlephAlphaPrompt, target: string): string[] {
  return eachItem(explanation, prompt, (item, source, image) => itemLines(item, source, target, image));
}

/**
 * One explanation as a heat map: each text item of the prompt, then the target if it was scored, coloured on one
 * scale (printed last); images and token ids keep their lines.
 */
export function explanationHeatMap(
  explanation: Explanation,
  prompt: AlephAlphaPrompt,
  target: string,
  heatMap: HeatMapPainter,
): string[] {
  const range = heatMap.range(
    explanation.items.flatMap((item) => (item.type === 'text' || item.type === 'target' ? [item.scores] : [])),
  );
  const lines = eachItem(explanation, prompt, (item, source, image) => {
    if (item.type === 'text' && source?.type === 'text') return [heatMap.paint(source.data, item.scores, range)];
    if (item.type === 'target')
      return item.scores.length === 0 ? [] : [`target: ${heatMap.paint(target, item.scores, range)}`];
    return itemLines(item, source, target, image);
  });
  // Nothing scored: nothing to print, as without colour.
  return lines.length === 0 ? [] : [...lines, heatMap.scale(range)];
}

/**
 * Every explanation; several (target_granularity token) each get a heading naming the target piece explained.
 * `heatMap` (given on a colour terminal): the heat maps replace the lines.
 */
export function renderExplanations(
  explanations: Explanation[],
  prompt: AlephAlphaPrompt,
  target: string,
  heatMap?: HeatMapPainter,
): string {
  const view =
    heatMap === undefined
      ? explanationLines
      : (e: Explanation, p: AlephAlphaPrompt, t: string) => explanationHeatMap(e, p, t, heatMap);
  if (explanations.length === 1) return joinLines(view(explanations[0]!, prompt, target));
  return explanations
    .map((e) => joinLines([`explanation of ${JSON.stringify(e.target)}:`, ...view(e, prompt, target)]))
    .join('\n');
}

function joinLines(lines: string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}
