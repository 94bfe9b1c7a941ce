/**
 * The one parser of an integer flag (`--retries`, `--concurrency`, `-n`, `--page-size`, `--port`, `--max-time`, …):
 * digits only — no sign, no "1.5", "1e3" or "0x10" — within bounds, else one UsageError worded from the bounds:
 *   { min: 0 }        "--port must be a non-negative integer, got "x""
 *   { min: 1 }        "--page-size must be a positive integer, got "x""
 *   { min, max }      "--concurrency must be an integer from 1 to 64, got "x""
 * `says` replaces "must be …" where the flag words it its own way ("takes a number of alternatives from 0 to 5").
 */
import { UsageError } from '../contract/errors.js';

export interface IntegerBounds {
  min: number;
  max?: number;
  /** What the message says of the flag instead of "must be <bounds>". */
  says?: string;
  hint?: string;
}

function boundsWords({ min, max }: IntegerBounds): string {
  if (max !== undefined) return `an integer from ${min} to ${max}`;
  if (min === 0) return 'a non-negative integer';
  if (min === 1) return 'a positive integer';
  return `an integer of ${min} or more`;
}

export function parseIntegerFlag(name: string, text: string, bounds: IntegerBounds): number {
  const trimmed = text.trim();
  const n = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= bounds.min && (bounds.max === undefined || n <= bounds.max)) return n;
  throw new UsageError(
    `${name} ${bounds.says ?? `must be ${boundsWords(bounds)}`}, got ${JSON.stringify(text)}`,
    bounds.hint !== undefined ? { hint: bounds.hint } : {},
  );
}
