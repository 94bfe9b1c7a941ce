import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';

const spec = {
  path: ['cassette', 'ls'],
  summary: 'List the entries of a cassette directory (--record DIR / --replay DIR)',
  description:
    'One line per entry: its key, protocol, method, path, status, whether it is a stream, and its size in bytes. ' +
    '-o json gives an array of {key, protocol, method, path, status, stream, size, file}. See docs/cassettes.md.',
  args: '<dir>',
  options: [],
  examples: ['textgen cassette ls ci/cassettes', 'textgen cassette ls ci/cassettes -o json'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { resolve } = await import('node:path');
  const { listEntries } = await import('../../src/cassette/manage.js');
  const dir = resolve(ctx.cwd, options.args[0] ?? '');
  const rows = await listEntries(dir);
  const { writeResult } = await import('../../src/flows/write-result.js');
  const { alignColumns } = await import('../../src/output/text-table.js');
  await writeResult(ctx, ctx.output().format, rows, () =>
    rows.length === 0
      ? `(no entries in ${options.args[0]})\n`
      : alignColumns(
          rows.map((r) => [
            r.key,
            r.protocol,
            r.method,
            r.path,
            String(r.status),
            r.stream ? 'stream' : 'whole',
            String(r.size),
          ]),
        ),
  );
  return 0;
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
