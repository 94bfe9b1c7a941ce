import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/contract/errors.js';

const spec = {
  path: ['cassette', 'prune'],
  summary: 'Remove cassette entries a replay no longer uses, or that are old',
  description:
    'Every --replay run notes the entries it used in DIR/.hits/RUN (RUN: TEXTGEN_CASSETTE_RUN, the CI run id, or ' +
    'the day). --unused-since-run removes the entries the latest run (or RUN) did not use; --older-than AGE those ' +
    "neither recorded nor replayed within AGE (30d, 12h); both together, the entries that are both. serve's kept " +
    'answer times (DIR/.front) go by the same rule. With --dry-run nothing is removed. Prints each file removed. ' +
    'See docs/cassettes.md.',
  args: '<dir>',
  options: [
    { flags: '--unused-since-run [run]', description: 'remove the entries the latest replay run (or RUN) did not use' },
    {
      flags: '--older-than <age>',
      description: 'remove the entries not recorded or replayed within AGE (30d, 12h, 90m)',
    },
  ],
  examples: [
    'textgen cassette prune ci/cassettes --unused-since-run',
    'textgen cassette prune ci/cassettes --older-than 90d --dry-run',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  if (options.unusedSinceRun === undefined && options.olderThan === undefined)
    throw new UsageError('cassette prune needs --unused-since-run or --older-than');
  const { resolve } = await import('node:path');
  const { parseAge, pruneEntries } = await import('../../src/cassette/manage.js');
  const dir = resolve(ctx.cwd, options.args[0] ?? '');
  const dryRun = ctx.globals.dryRun === true;
  const result = await pruneEntries(dir, {
    unusedSinceRun: options.unusedSinceRun,
    olderThanMs: options.olderThan === undefined ? undefined : parseAge(options.olderThan),
    now: ctx.now(),
    dryRun,
  });
  const entries = result.removed.length - result.timesRemoved;
  const times =
    result.timesRemoved === 0
      ? ''
      : ` and ${result.timesRemoved} kept answer time${result.timesRemoved === 1 ? '' : 's'}`;
  const { writeResult } = await import('../../src/flows/write-result.js');
  await writeResult(ctx, ctx.output().format, result.removed, () => result.removed.map((name) => `${name}\n`).join(''));
  ctx.reporter.info(
    `cassette prune: ${dryRun ? 'would remove' : 'removed'} ${entries} of ${entries + result.kept} entries${times}${result.run === undefined ? '' : ` (run ${result.run})`}`,
  );
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
