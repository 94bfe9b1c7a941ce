import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { GENERATE_FLAG_SPECS } from '../../src/options/generate-flag-specs.js';
import { BATCH_FLAG_SPECS } from '../../src/options/batch-flag-specs.js';
import { SPACE_SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

const spec = {
  path: ['deployment', 'text-generate'],
  summary: 'Infer the next tokens for a deployed model (cpd-cli wx-ai deployment text-generate)',
  description:
    'JSON options (--parameters, --moderations, --parameters-return-options, ' +
    '--parameters-length-penalty, --parameters-prompt-variables, --extra) take inline JSON or ' +
    '@path/to/file.json. A JSON option and its granular --parameters-* twins are mutually exclusive. ' +
    'The prompt comes from --input, --input-file (- for stdin), or piped stdin. --version DATE after the command ' +
    'words is the API version date (as cpd-cli takes it); --space-id, --space NAME and --cpd-scope choose the ' +
    'space, as cpd-cli does (the inference call itself carries none).\n\n' +
    'Batch: --batch FILE.jsonl (or - for stdin) runs one request per line, --concurrency at a time, ' +
    'and prints one JSONL record per line in input order: {"line": N, "id"?: …, "result": {…}} or ' +
    '{"line": N, "id"?: …, "error": {"exit_code", "message", "status"?, "code"?}}. A line is {"input": ' +
    '"…", "parameters"?: {…}, "id"?: …} or a JSON string; its parameters override the flags for that ' +
    'line. Exit 0 when every line succeeded, 4 when some failed. Lines are not streamed (--stream is ' +
    'ignored with --batch). See docs/batch.md, e.g.:\n' +
    '  textgen --profile local deployment text-generate --id-or-name demo --batch prompts.jsonl ' +
    '--concurrency 16 > out.jsonl\n' +
    '  textgen --profile local deployment text-generate --id-or-name demo --batch prompts.jsonl ' +
    '--resume out.jsonl\n' +
    '  textgen --profile local deployment text-generate --id-or-name demo --batch prompts.jsonl ' +
    '--shard 2/3 > part-2.jsonl',
  options: [...GENERATE_FLAG_SPECS, ...BATCH_FLAG_SPECS, ...SPACE_SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local deployment text-generate --id-or-name demo --input "Hello" --parameters-max-new-tokens 30',
    'textgen --profile local deployment text-generate --id-or-name classification --input "how far is paris from bangalore:" \\\n' +
      '      --parameters-decoding-method greedy --parameters-max-new-tokens 30 --parameters-stop-sequences fail',
    'echo \'{"input":"Hello","id":"a1","parameters":{"max_new_tokens":5}}\' | textgen --profile local deployment text-generate --id-or-name demo --batch -',
  ],
} as const satisfies CommandSpec;

export interface TextGenerateMode {
  /** text-generate-stream: streaming is on whatever --stream says. */
  forceStream: boolean;
}

/** Both deployment commands' handler: text-generate-stream runs it with `forceStream`. */
export async function runTextGenerate(
  options: OptionsOf<typeof spec>,
  ctx: Context,
  mode: TextGenerateMode = { forceStream: false },
): Promise<number> {
  // --space-id/--space, --cpd-scope and --version: a deployment's inference call carries no scope, but the version
  // date is sent and a space name must exist (src/options/scope-resolve.ts).
  const { scopedContext } = await import('../../src/options/scope-resolve.js');
  ctx = scopedContext(ctx, options);
  const { parseBooleanFlag } = await import('../../src/options/flag-values.js');
  const { parseBatchSettings } = await import('../../src/options/batch-settings.js');
  const batch = parseBatchSettings(options);
  const idOrName = options.idOrName === '' ? undefined : options.idOrName;
  const command = {
    raw: options,
    target: { kind: 'deployment', idOrName } as const,
    stream: mode.forceStream || parseBooleanFlag('--stream', options.stream) === true,
  };
  if (batch) {
    const { runGenerationBatch } = await import('../../src/batch/generate-batch.js');
    return runGenerationBatch(ctx, command, batch);
  }
  const { runGenerationCommand } = await import('../../src/generation/generation-command.js');
  return runGenerationCommand(ctx, command);
}

function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextGenerate(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
