import { paint, type ColorLevel } from './paint.js';
import { visibleInLine } from './visible.js';

export interface GenerationStats {
  stopReasons: string[];
  inputTokens?: number | undefined;
  generatedTokens?: number | undefined;
  /** From sending the request to the first streamed text; undefined when the answer came whole. */
  firstTokenMs?: number | undefined;
  /** From sending the request to the end of the answer. */
  totalMs: number;
}

/**
 * A rate is shown only over at least 20 tokens and 500 ms: below that it measures the scheduler and the timer more
 * than the model (10 tokens arriving in one read within 2 ms read as 4 500 tokens/s), while from there a millisecond
 * of jitter moves it by at most 0.2 %, and a one-token boundary error by at most 5 %.
 */
export const RATE_MIN_TOKENS = 20;
export const RATE_MIN_MS = 500;

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The one-line summary after a generation on a terminal (stderr): stop reason, token counts, time to first token and
 * speed. A streamed speed counts from the first token (the wait before it is the prompt's cost, shown apart); a whole
 * answer has no first token of its own, so it shows the time to the answer and the speed over all of it.
 */
export function renderGenerationSummary(stats: GenerationStats, color: ColorLevel | boolean): string {
  const parts: string[] = [];
  // The stop reason is the service's word: shown, never obeyed, on the terminal this line is for.
  const reasons = [...new Set(stats.stopReasons)].map(visibleInLine);
  if (reasons.length > 0) parts.push(`stop: ${reasons.join(', ')}`);
  if (stats.inputTokens !== undefined) parts.push(`${stats.inputTokens} input tokens`);
  if (stats.generatedTokens !== undefined) parts.push(`${stats.generatedTokens} generated`);
  if (stats.firstTokenMs !== undefined) parts.push(`first token ${seconds(stats.firstTokenMs)}`);
  else parts.push(`answer in ${seconds(stats.totalMs)}`);
  const n = stats.generatedTokens;
  if (n !== undefined && n > 0) {
    const streamed = stats.firstTokenMs !== undefined && n > 1;
    const ms = streamed ? stats.totalMs - stats.firstTokenMs! : stats.totalMs;
    const count = streamed ? n - 1 : n;
    if (count >= RATE_MIN_TOKENS && ms >= RATE_MIN_MS) parts.push(`${(count / (ms / 1000)).toFixed(1)} tokens/s`);
  }
  const line = parts.join(' · ');
  return `${paint(color).dim(line)}\n`;
}
