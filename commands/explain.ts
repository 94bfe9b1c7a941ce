import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { MODEL_OPTION, NICE_OPTION, PROMPT_OPTIONS } from '../src/flows/task-flag-specs.js';
import { UsageError } from '../src/contract/errors.js';

const GRANULARITIES = ['token', 'word', 'sentence', 'paragraph', 'custom'] as const;
const TARGET_GRANULARITIES = ['complete', 'token'] as const;
const POSTPROCESSINGS = ['none', 'absolute', 'square'] as const;

const spec = {
  path: ['explain'],
  summary: 'Show how much each part of the prompt contributes to a target text (Aleph Alpha)',
  description:
    'Prints one "score  span" line per piece of the prompt, in prompt order. The pieces follow ' +
    '--granularity (unset: the service chooses, about 30 pieces); on a colour terminal the prompt is ' +
    "drawn as a heat map instead. -o json gives the service's explanations (POST /explain).",
  options: [
    MODEL_OPTION,
    ...PROMPT_OPTIONS,
    { flags: '--target <text>', description: 'the completion to explain' },
    {
      flags: '--granularity <kind>',
      description: 'pieces of the prompt to score: token, word, sentence, paragraph, custom',
      choices: GRANULARITIES,
    },
    { flags: '--delimiter <text>', description: 'split the prompt at this text (custom granularity; implies it)' },
    {
      flags: '--target-granularity <kind>',
      description: 'complete (one explanation, default) or token (one per target token)',
      choices: TARGET_GRANULARITIES,
    },
    {
      flags: '--postprocessing <kind>',
      description: 'none (default), absolute or square the scores',
      choices: POSTPROCESSINGS,
    },
    { flags: '--normalize [bool]', description: 'scale the scores so the lowest is 0 and the highest 1' },
    NICE_OPTION,
  ],
  examples: [
    'textgen --profile local-aa explain --prompt "An apple a day keeps the doctor away." --target " Apples are healthy."',
    'textgen --profile local-aa explain --prompt "An apple a day keeps the doctor away." --target " Apples are healthy." --granularity word -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { missingFlagsError } = await import('../src/options/input.js');
  const { parseBooleanFlag } = await import('../src/options/flag-values.js');
  const t = await import('../src/flows/task-options.js');
  const { runTask } = await import('../src/flows/run-task.js');

  const target = options.target;
  if (target === undefined) throw missingFlagsError(['--target']);
  if (target === '') throw new UsageError('--target needs the text to explain');
  let granularity = t.enumFlag('--granularity', options.granularity, GRANULARITIES);
  const delimiter = options.delimiter;
  if (delimiter !== undefined) {
    if (delimiter === '') throw new UsageError('--delimiter needs the text to split the prompt at');
    if (granularity !== undefined && granularity !== 'custom')
      throw new UsageError(`--delimiter goes with --granularity custom, not ${granularity}`);
    granularity = 'custom';
  } else if (granularity === 'custom') {
    throw new UsageError('--granularity custom needs --delimiter: the text to split the prompt at');
  }
  const targetGranularity = t.enumFlag('--target-granularity', options.targetGranularity, TARGET_GRANULARITIES);
  const postprocessing = t.enumFlag('--postprocessing', options.postprocessing, POSTPROCESSINGS);
  const normalize = parseBooleanFlag('--normalize', options.normalize);
  const nice = t.niceFlag(options);
  const io = t.fileIo(ctx);

  return runTask(ctx, 'explain', async (profile) => ({
    model: t.modelFor(options, profile),
    prompt: await t.promptFrom(options, ctx, io, profile),
    target,
    ...(granularity !== undefined ? { granularity } : {}),
    ...(delimiter !== undefined ? { delimiter } : {}),
    ...(targetGranularity !== undefined ? { targetGranularity } : {}),
    ...(postprocessing !== undefined ? { postprocessing } : {}),
    ...(normalize !== undefined ? { normalize } : {}),
    nice,
  }));
}

export const command = defineCommand({ spec, helpGroup: 'Aleph Alpha tasks:', run });
