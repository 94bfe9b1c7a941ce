import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { DOCUMENT_HELP, NICE_OPTION } from '../src/flows/task-flag-specs.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['summarize'],
  summary: 'Summarize a document (Aleph Alpha)',
  description:
    'Without --document, piped stdin is the document. The service picks the model itself. -o json ' +
    "gives the service's answer (POST /summarize).",
  options: [
    { flags: '--document <text|@file>', description: `the document: ${DOCUMENT_HELP}`, repeatable: true },
    NICE_OPTION,
  ],
  examples: [
    'textgen --profile local-aa summarize --document "Rivers start in mountains. They end in the sea."',
    'echo "Rivers start in mountains. They end in the sea." | textgen --profile local-aa summarize -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { missingFlagsError } = await import('../src/options/input.js');
  const t = await import('../src/flows/task-options.js');
  const { runTask } = await import('../src/flows/run-task.js');

  const values = options.document ?? [];
  if (values.length > 1)
    throw new UsageError(`summarize takes one --document, got ${values.length}`, {
      hint: 'join the texts into one file, or run summarize once per document',
    });
  const nice = t.niceFlag(options);
  const io = t.fileIo(ctx);

  return runTask(ctx, 'summarize', async (profile) => {
    if (values.length === 1) return { document: (await t.documentsFrom(values, io, profile))[0]!, nice };
    const piped = ctx.terminal.stdinIsTTY ? '' : await io.stdin!();
    if (piped.trim() === '') throw missingFlagsError(['--document (or the document piped on stdin)']);
    return { document: { text: piped }, nice };
  });
}

export const command = defineCommand({ spec, helpGroup: 'Aleph Alpha tasks:', run });
