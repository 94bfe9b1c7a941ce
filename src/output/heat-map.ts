import type { HeatMapPainter } from '../contract/adapter.js';
import { paint, perLine, shade } from './paint.js';

export interface ScoredSpan {
  start: number;
  length: number;
  score: number;
}

/** Pale yellow (least important) to red (most important). */
const HEAT = [230, 229, 222, 215, 209, 203, 197] as const;

export interface ScoreRange {
  min: number;
  max: number;
}

/** The lowest and highest finite score over several span lists: one scale for the whole picture. */
export function scoreRange(spanLists: ReadonlyArray<readonly ScoredSpan[]>): ScoreRange {
  const scores = spanLists
    .flat()
    .map((s) => s.score)
    .filter(Number.isFinite);
  return scores.length === 0 ? { min: 0, max: 0 } : { min: Math.min(...scores), max: Math.max(...scores) };
}

/**
 * `text` with each scored span on a background from pale to red by its place between `range.min` and `range.max`;
 * text outside every span (and spans overlapping one already drawn) prints plain. Without colour: the text itself.
 */
export function renderHeatMap(text: string, spans: readonly ScoredSpan[], range: ScoreRange, color: boolean): string {
  if (!color) return text;
  const width = range.max - range.min;
  let out = '';
  let pos = 0;
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    if (span.start < pos || span.start >= text.length) continue;
    const end = Math.min(text.length, span.start + Math.max(0, span.length));
    out += text.slice(pos, span.start);
    const level = width > 0 ? (span.score - range.min) / width : 0;
    out += perLine(text.slice(span.start, end), (piece) => paint(color).background(piece, shade(HEAT, level)));
    pos = end;
  }
  return out + text.slice(pos);
}

/** The scale under a heat map: what pale and red stand for. */
export function heatScale(range: ScoreRange, color: boolean): string {
  const { background, dim } = paint(color);
  const steps = color ? HEAT.map((bg) => background(' ', bg)).join('') : '';
  const line = `score ${range.min.toFixed(4)} ${steps}${color ? ' ' : '… '}${range.max.toFixed(4)}`;
  return dim(line);
}

/** The heat map in colour, as lent to an adapter's `renderText` (src/contract/adapter-operations/tasks.ts). */
export const COLOUR_HEAT_MAP: HeatMapPainter = {
  range: scoreRange,
  paint: (text, spans, range) => renderHeatMap(text, spans, range, true),
  scale: (range) => heatScale(range, true),
};
