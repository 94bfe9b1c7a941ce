import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { Interrupted } from '../../src/contract/errors.js';

const spec = {
  path: ['batch', 'merge'],
  summary: 'Merge the outputs of a sharded batch (--shard K/N) into one JSONL file in line order',
  description:
    'Reads each part as a stream and holds only its next record, so memory does not grow with the files. The ' +
    'parts must fit together: each in line order, no line in two parts, no line without a record (exit 2 naming ' +
    'the files and the line, before anything is written). Without --input the line numbers must run from 1 with ' +
    'no gap; with --input FILE (the batch input) blank lines may have no record, and lines after the last record ' +
    'are checked too. Exit 0 when every record is a result, 4 when some are errors. See docs/batch.md.',
  args: '<parts...>',
  options: [
    {
      flags: '--input <file>',
      description: 'the batch input file: check every non-blank line of it has exactly one record',
    },
  ],
  examples: [
    'textgen batch merge part-*.jsonl > all.jsonl',
    'textgen batch merge --input prompts.jsonl part-1.jsonl part-2.jsonl part-3.jsonl > all.jsonl',
  ],
} as const satisfies CommandSpec;

/** `options` is typed from the spec's table (no re-checking of unknown values): `input` a string or absent, `args` the parts. */
async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { mergeParts } = await import('../../src/batch/merge.js');
  const { StdoutRecordSink, ReaderGone } = await import('../../src/batch/stdout-sink.js');
  const { resolve } = await import('node:path');
  const files = options.args.map((f) => resolve(ctx.cwd, f));
  const shown = new Map(files.map((f, i) => [f, options.args[i] as string]));
  const input = options.input === undefined ? undefined : resolve(ctx.cwd, options.input);
  const show = (message: string) =>
    [...shown].reduce(
      (m, [abs, given]) => m.split(abs).join(given),
      input && options.input ? message.split(input).join(options.input) : message,
    );
  const merge = async (emit?: (text: string) => void | Promise<void>) => {
    try {
      return await mergeParts(files, { input, emit, signal: ctx.signal });
    } catch (e) {
      // Messages name the files as they were given, not as resolved.
      if (e instanceof Error) e.message = show(e.message);
      throw e;
    }
  };
  // First pass: nothing is written unless the parts fit together. Second pass: the records, in line order.
  await merge();
  if (ctx.signal.aborted) throw new Interrupted();
  const sink = new StdoutRecordSink(ctx.out);
  let stats;
  try {
    stats = await merge((text) => sink.write(0, `${text}\n`));
    await sink.finish();
  } catch (e) {
    if (e instanceof ReaderGone) return 0;
    throw e;
  }
  if (ctx.signal.aborted) throw new Interrupted();
  const ok = stats.records - stats.failed;
  ctx.reporter.info(
    `batch merge: ${stats.records} records from ${files.length} ${files.length === 1 ? 'file' : 'files'}${stats.records > 0 ? ` (lines 1–${stats.lastLine})` : ''}, ${ok} succeeded, ${stats.failed} failed`,
  );
  return stats.failed > 0 ? 4 : 0;
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
