/**
 * `--record DIR`, `--replay DIR`, `--match RULE` and `--replay-timing MODE` (global options, src/global-options.ts)
 * checked once and turned into the settings of a cassette transport (transport.ts). Cheap: no I/O.
 */
import { UsageError } from '../contract/errors.js';
import { parseMatchRules } from './match.js';
import type { CassetteSettings, ReplayTiming } from './transport.js';

/** Which replay run this process counts its hits under: TEXTGEN_CASSETTE_RUN, the CI system's run id, or the day. */
export function runIdOf(env: Record<string, string | undefined>, now: Date): string {
  for (const name of ['TEXTGEN_CASSETTE_RUN', 'GITHUB_RUN_ID', 'CI_PIPELINE_ID', 'BUILD_BUILDID', 'BUILD_ID']) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      const safe = value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
      if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(safe) && safe !== '.' && safe !== '..') return safe;
    }
  }
  return now.toISOString().slice(0, 10);
}

export interface CassetteFlags {
  record?: string | undefined;
  replay?: string | undefined;
  match?: readonly string[] | undefined;
  replayTiming?: string | undefined;
}

/** The cassette settings minus the protocol (each profile's own), or undefined when neither flag is given. */
export type CassetteChoice = Omit<CassetteSettings, 'protocol'>;

export function cassetteChoice(
  flags: CassetteFlags,
  env: Record<string, string | undefined>,
  now: Date,
  opts: { onMiss?: 'fail' | 'forward' } = {},
): CassetteChoice | undefined {
  const { record, replay } = flags;
  if (record === undefined && replay === undefined) {
    if (flags.match !== undefined) throw new UsageError('--match needs --record DIR or --replay DIR');
    if (flags.replayTiming !== undefined) throw new UsageError('--replay-timing needs --replay DIR');
    return undefined;
  }
  if (record !== undefined && replay !== undefined)
    throw new UsageError('--record and --replay cannot be used together', {
      hint: 'record once with --record DIR, then replay with --replay DIR (serve: --replay DIR --on-miss forward records misses)',
    });
  const dir = replay ?? record ?? '';
  if (dir.trim() === '') throw new UsageError(`${replay !== undefined ? '--replay' : '--record'} needs a directory`);
  const timing = flags.replayTiming ?? 'none';
  if (timing !== 'none' && timing !== 'recorded')
    throw new UsageError(`--replay-timing must be none or recorded, not "${timing}"`);
  if (flags.replayTiming !== undefined && replay === undefined)
    throw new UsageError('--replay-timing needs --replay DIR');
  return {
    mode: replay !== undefined ? 'replay' : 'record',
    dir,
    match: parseMatchRules(flags.match),
    timing: timing as ReplayTiming,
    onMiss: opts.onMiss ?? 'fail',
    run: runIdOf(env, now),
  };
}
