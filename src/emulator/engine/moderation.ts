/**
 * Stand-in HAP and PII detectors: a handful of fixed abusive words and e-mail / phone patterns,
 * reported in watsonx's moderation shape so clients can exercise the `moderations` option.
 */
import type { Moderations } from '../../contract/canonical.js';

export interface ModerationFlag {
  score: number;
  input: boolean;
  position: { start: number; end: number };
  entity: string;
  /** PII only: the detected value. */
  word?: string;
}

export interface ModerationReport {
  hap?: ModerationFlag[];
  pii?: ModerationFlag[];
}

const HAP_WORDS: Record<string, number> = { idiot: 0.97, stupid: 0.91, moron: 0.96, hate: 0.74, dumb: 0.88 };
const PII_PATTERNS: { entity: string; pattern: RegExp; score: number }[] = [
  { entity: 'EmailAddress', pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, score: 0.99 },
  { entity: 'PhoneNumber', pattern: /\+?\d[\d -]{7,}\d/g, score: 0.9 },
];

type Kind = 'hap' | 'pii';
type Direction = 'input' | 'output';

/** Reads `{hap|pii: {input|output: {enabled, threshold}}}`; a present direction is on unless `enabled: false`. */
function setting(
  moderations: Moderations | undefined,
  kind: Kind,
  direction: Direction,
): { threshold: number } | undefined {
  const section = moderations?.[kind];
  if (typeof section !== 'object' || section === null) return undefined;
  const dir = (section as Record<string, unknown>)[direction];
  if (typeof dir !== 'object' || dir === null) return undefined;
  const { enabled, threshold } = dir as { enabled?: unknown; threshold?: unknown };
  if (enabled === false) return undefined;
  return { threshold: typeof threshold === 'number' ? threshold : 0.5 };
}

function detect(kind: Kind, text: string): Omit<ModerationFlag, 'input'>[] {
  const found: Omit<ModerationFlag, 'input'>[] = [];
  if (kind === 'hap') {
    for (const m of text.matchAll(/[A-Za-z]+/g)) {
      const score = HAP_WORDS[m[0].toLowerCase()];
      if (score !== undefined)
        found.push({ score, position: { start: m.index, end: m.index + m[0].length }, entity: 'has_HAP' });
    }
  } else {
    for (const { entity, pattern, score } of PII_PATTERNS) {
      for (const m of text.matchAll(pattern))
        found.push({ score, position: { start: m.index, end: m.index + m[0].length }, entity, word: m[0] });
    }
  }
  return found;
}

/** Input spans to check: `input_ranges` when it names any non-empty range, else the whole input. */
function inputRanges(moderations: Moderations | undefined, length: number): { start: number; end: number }[] {
  const raw = moderations?.input_ranges;
  const ranges = Array.isArray(raw)
    ? raw.filter(
        (r): r is { start: number; end: number } =>
          typeof r?.start === 'number' && typeof r?.end === 'number' && r.end > r.start,
      )
    : [];
  return ranges.length > 0 ? ranges : [{ start: 0, end: length }];
}

export function moderate(
  moderations: Moderations | undefined,
  input: string,
  output: string,
): ModerationReport | undefined {
  const report: ModerationReport = {};
  for (const kind of ['hap', 'pii'] as const) {
    const onInput = setting(moderations, kind, 'input');
    const onOutput = setting(moderations, kind, 'output');
    if (!onInput && !onOutput) continue;
    const flags: ModerationFlag[] = [];
    if (onInput) {
      for (const range of inputRanges(moderations, input.length)) {
        for (const f of detect(kind, input.slice(range.start, range.end))) {
          if (f.score < onInput.threshold) continue;
          flags.push({
            ...f,
            input: true,
            position: { start: f.position.start + range.start, end: f.position.end + range.start },
          });
        }
      }
    }
    if (onOutput) {
      for (const f of detect(kind, output)) if (f.score >= onOutput.threshold) flags.push({ ...f, input: false });
    }
    report[kind] = flags;
  }
  return report.hap || report.pii ? report : undefined;
}
