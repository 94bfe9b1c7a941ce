import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { DOCUMENT_HELP, NICE_OPTION } from '../src/flows/task-flag-specs.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['qa'],
  summary: 'Answer a question from documents, with a score and the evidence for each answer (Aleph Alpha)',
  description: "The service picks the model itself. -o json gives the service's answers (POST /qa).",
  options: [
    { flags: '--query <text>', description: 'the question' },
    {
      flags: '--document <text|@file>',
      description: `a document to search (repeatable): ${DOCUMENT_HELP}`,
      repeatable: true,
    },
    { flags: '--max-answers <n>', description: 'at most this many answers, 1 to 200 (service default 30)' },
    NICE_OPTION,
  ],
  examples: [
    'textgen --profile local-aa qa --query "Who likes pizza?" --document "Andreas likes pizza. Ben likes soup."',
    'textgen --profile local-aa qa --query "What is the notice period?" --document "The notice period is three months." --max-answers 1 -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { missingFlagsError } = await import('../src/options/input.js');
  const t = await import('../src/flows/task-options.js');
  const { runTask } = await import('../src/flows/run-task.js');

  const documents = options.document ?? [];
  const query = options.query;
  const missing = [...(query === undefined ? ['--query'] : []), ...(documents.length === 0 ? ['--document'] : [])];
  if (query === undefined || missing.length > 0) throw missingFlagsError(missing);
  if (query.trim() === '') throw new UsageError('--query needs the question to answer');
  const maxAnswers = t.intFlag('--max-answers', options.maxAnswers, 1, 200);
  const nice = t.niceFlag(options);
  const io = t.fileIo(ctx);

  return runTask(ctx, 'qa', async (profile) => ({
    query,
    documents: await t.documentsFrom(documents, io, profile),
    ...(maxAnswers !== undefined ? { maxAnswers } : {}),
    nice,
  }));
}

export const command = defineCommand({ spec, helpGroup: 'Aleph Alpha tasks:', run });
