import type { ColorLevel } from './paint.js';

/**
 * The colour policy, decided once. Order matters: an explicit `--no-color` wins, then the user's
 * standing wish (`NO_COLOR`, https://no-color.org), then `FORCE_COLOR` (which turns colour on even
 * into a pipe, as CI log viewers want), then what the terminal can do.
 */
export function colorEnabled(opts: {
  env: Record<string, string | undefined>;
  isTTY: boolean;
  /** false when --no-color was given. */
  flag?: boolean;
}): boolean {
  const { env } = opts;
  if (opts.flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    const lower = force.toLowerCase();
    return lower !== '0' && lower !== 'false';
  }
  if (env.TERM === 'dumb') return false;
  return opts.isTTY;
}

/**
 * How many colours, once colour is on: FORCE_COLOR=1|2|3 says so (as chalk reads it), COLORTERM=truecolor|24bit
 * means 16 million, and any other colour terminal gets 256, which the pictures are drawn in.
 */
export function colorLevel(opts: Parameters<typeof colorEnabled>[0]): ColorLevel {
  if (!colorEnabled(opts)) return 0;
  const force = opts.env.FORCE_COLOR;
  if (force === '1' || force === '2' || force === '3') return Number(force) as ColorLevel;
  const colorterm = opts.env.COLORTERM?.toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 3;
  return 2;
}
