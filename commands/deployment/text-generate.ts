import type { CommandSpec } from '../../src/command.js';
import type { Context } from '../../src/context.js';
import { GENERATE_FLAG_SPECS } from '../../src/options/generate-flag-specs.js';
import type { RawFlagValue } from '../../src/options/flag-values.js';

export const spec: CommandSpec = {
  path: ['deployment', 'text-generate'],
  summary: 'Infer the next tokens for a deployed model (cpd-cli wx-ai deployment text-generate)',
  description:
    'JSON options (--parameters, --moderations, --parameters-return-options, --parameters-length-penalty,\n' +
    '--parameters-prompt-variables, --extra) take inline JSON or @path/to/file.json. A JSON option and its\n' +
    'granular --parameters-* twins are mutually exclusive. The prompt comes from --input, --input-file\n' +
    '(- for stdin), or piped stdin.',
  options: GENERATE_FLAG_SPECS,
  examples: [
    'textgen --profile local deployment text-generate --id-or-name demo --input "Hello"',
    'textgen deployment text-generate --id-or-name classification --input "how far is paris from bangalore:" \\\n' +
      '      --parameters-decoding-method greedy --parameters-max-new-tokens 30 --parameters-stop-sequences fail',
    'textgen deployment text-generate --id-or-name demo --parameters @params.json --input-file prompt.txt -o json',
    'echo "Tell me a story" | textgen deployment text-generate --id-or-name demo --stream',
    'textgen deployment text-generate --id-or-name demo --input Hi -o json -j "results[0].generated_text" --raw-output',
  ],
};

export interface TextGenerateMode {
  /** text-generate-stream: streaming is on whatever --stream says. */
  forceStream: boolean;
}

export async function run(options: Record<string, unknown>, ctx: Context, mode: TextGenerateMode = { forceStream: false }): Promise<number> {
  const { parseBooleanFlag } = await import('../../src/options/flag-values.js');
  const { readStreamText } = await import('../../src/options/read-stream.js');
  const { parseOutputFormat } = await import('../../src/output/format.js');
  const { buildCanonicalRequest } = await import('../../src/options/generate-request.js');
  const { resolveInput, missingFlagsError } = await import('../../src/options/input.js');

  const format = parseOutputFormat(ctx.globals.output);
  const stream = mode.forceStream || parseBooleanFlag('--stream', options.stream as RawFlagValue) === true;
  const raw = parseBooleanFlag('--raw', options.raw as RawFlagValue) === true;
  // stdin can be read once; `@-` options share this one read.
  let stdinText: Promise<string> | undefined;
  const readStdin = () => (stdinText ??= readStreamText(ctx.stdin));

  // Flags are validated before the profile is resolved, so a typo never costs a server start or a token exchange.
  let built = await buildCanonicalRequest(options, { cwd: ctx.cwd, stdin: readStdin });

  const idOrName = typeof options.idOrName === 'string' && options.idOrName !== '' ? options.idOrName : undefined;
  const input = await resolveInput(
    {
      ...(typeof options.input === 'string' ? { input: options.input } : {}),
      ...(typeof options.inputFile === 'string' ? { inputFile: options.inputFile } : {}),
    },
    { cwd: ctx.cwd, stdin: ctx.stdin, stdinIsTTY: ctx.terminal.stdinIsTTY },
  );
  const missing: string[] = [];
  if (idOrName === undefined) missing.push('--id-or-name');
  if (input === undefined) missing.push('--input');
  if (missing.length > 0) throw missingFlagsError(missing);

  const profile = await ctx.profile();
  if (profile.defaults.parameters) {
    built = await buildCanonicalRequest(options, { cwd: ctx.cwd, stdin: readStdin, defaults: profile.defaults.parameters });
  }
  const { loadProviderProfile } = await import('../../profiles/registry.js');
  const provider = await loadProviderProfile(profile.provider);
  const { runGenerate } = await import('../../src/generation/run-generate.js');
  return runGenerate(ctx, {
    provider,
    profile,
    request: { ...built.request, input: input as string },
    target: { deployment: idOrName as string, stream },
    extra: built.extra,
    present: { format, jmes: ctx.globals.jmesQuery, rawOutput: ctx.globals.rawOutput === true, raw },
  });
}
