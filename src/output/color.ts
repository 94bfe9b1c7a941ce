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
