/**
 * An explanation for people: one `score  span` line per scored piece of the prompt, in prompt order. Kept apart so
 * a richer view (a heat map over the prompt text) can replace `explanationLines` without touching the wire code.
 */
import type { Explanation, ExplanationItem } from '../../src/operations/aleph-alpha-tasks.js';
import type { AlephAlphaPrompt, AlephAlphaPromptItem } from './prompt-item-check.js';

const SCORE_WIDTH = 8;

function row(score: number, span: string): string {
  return `${(Number.isFinite(score) ? score.toFixed(4) : String(score)).padStart(SCORE_WIDTH)}  ${span}`;
}

function fraction(v: number): string {
  return v.toFixed(2);
}

/** The lines of one explanation. Item i explains prompt item i; `target` items point into the target text. */
export function explanationLines(explanation: Explanation, prompt: AlephAlphaPrompt, target: string): string[] {
  const promptItems: AlephAlphaPromptItem[] = typeof prompt === 'string' ? [{ type: 'text', data: prompt }] : prompt;
  const lines: string[] = [];
  let images = 0;
  explanation.items.forEach((item: ExplanationItem, i) => {
    const source = promptItems[i];
    switch (item.type) {
      case 'text':
      case 'target': {
        const text = item.type === 'target' ? target : source?.type === 'text' ? source.data : undefined;
        for (const s of item.scores) {
          const span = text === undefined ? `[${s.start}, +${s.length}]` : JSON.stringify(text.slice(s.start, s.start + s.length));
          lines.push(row(s.score, item.type === 'target' ? `target ${span}` : span));
        }
        break;
      }
      case 'image': {
        images += 1;
        for (const s of item.scores) {
          const r = s.rect;
          lines.push(row(s.score, `image ${images} [left ${fraction(r.left)}, top ${fraction(r.top)}, ${fraction(r.width)} × ${fraction(r.height)}]`));
        }
        break;
      }
      case 'token_ids': {
        const ids = source?.type === 'token_ids' ? source.data : [];
        item.scores.forEach((score, k) => lines.push(row(score, `token ${ids[k] ?? `#${k}`}`)));
        break;
      }
    }
  });
  return lines;
}

/** Every explanation; several (target_granularity token) each get a heading naming the target piece explained. */
export function renderExplanations(explanations: Explanation[], prompt: AlephAlphaPrompt, target: string): string {
  if (explanations.length === 1) return joinLines(explanationLines(explanations[0]!, prompt, target));
  return explanations.map((e) => joinLines([`explanation of ${JSON.stringify(e.target)}:`, ...explanationLines(e, prompt, target)])).join('\n');
}

function joinLines(lines: string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}
