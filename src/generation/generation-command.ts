import type { Context } from '../context.js';
import type { ParameterFlagMapping } from '../options/generate-flag-specs.js';
import type { RawGenerateOptions } from '../options/generate-request.js';
import { UsageError } from '../contract/errors.js';

/** What `deployment text-generate` and `complete` each bring to the one generation flow. */
export interface GenerationCommand {
  /**
   * The commander options, and complete's synthetic keys (COMPLETE_PARAMETER_FLAGS) built from its flags at run time:
   * no spec declares those, hence the record.
   */
  raw: RawGenerateOptions & Record<string, unknown>;
  /** The command's granular parameter flags and how they combine with --parameters. */
  flags?: readonly ParameterFlagMapping[];
  parametersWithFlags?: 'conflict' | 'merge';
  /** Positional prompt words (complete); joined with spaces. */
  promptWords?: string[];
  /** text-generate: the deployment; complete: the model (or the profile's default model). */
  target: { kind: 'deployment'; idOrName: string | undefined } | { kind: 'model'; model: string | undefined };
  stream: boolean | 'auto';
  /** complete -n. */
  choices?: number;
  /** complete --image / --prompt-json: an Aleph Alpha multimodal prompt. */
  multimodal?: { images: string[]; promptJson?: string | undefined };
  /**
   * `text generate(-stream)`, the cpdctl mirror: watsonx only (elsewhere a usage error naming `complete`), the prompt
   * is `--input`, and structured output is the service's own body (as cpdctl's `-o json`).
   */
  mirror?: { name: string };
}

/**
 * The one generation flow behind both commands: validate flags (before anything costs a server start or a token
 * exchange), find the prompt, resolve the profile, check what is missing, and run the generation.
 */
export async function runGenerationCommand(ctx: Context, cmd: GenerationCommand): Promise<number> {
  const { parseBooleanFlag } = await import('../options/flag-values.js');
  const { buildCanonicalRequest } = await import('../options/generate-request.js');
  const { resolveInput, missingFlagsError, readStdinText } = await import('../options/input.js');

  const format = ctx.output().format;
  const raw = parseBooleanFlag('--raw', cmd.raw.raw) === true;
  const ignoreUnsupported = parseBooleanFlag('--ignore-unsupported', cmd.raw.ignoreUnsupported) === true;
  const showLogprobs = parseBooleanFlag('--show-logprobs', cmd.raw.showLogprobs) === true;
  // complete streams by default where a person watches the text arrive.
  const stream =
    cmd.stream === 'auto' ? ctx.terminal.stdoutIsTTY && format === 'text' && !ctx.output().jmes : cmd.stream;

  let stdinText: Promise<string> | undefined;
  const readStdin = () => (stdinText ??= readStdinText(ctx.stdin));
  const buildOpts = {
    cwd: ctx.cwd,
    stdin: readStdin,
    ...(cmd.flags ? { flags: cmd.flags } : {}),
    ...(cmd.parametersWithFlags ? { parametersWithFlags: cmd.parametersWithFlags } : {}),
  };
  let built = await buildCanonicalRequest(cmd.raw, buildOpts);

  const words = cmd.promptWords ?? [];
  if (words.length > 0 && (cmd.raw.input !== undefined || cmd.raw.inputFile !== undefined)) {
    throw new UsageError('give the prompt once: as words on the command line, or with --input-file');
  }
  let input =
    words.length > 0
      ? words.join(' ')
      : await resolveInput(
          {
            ...(cmd.raw.input !== undefined ? { input: cmd.raw.input } : {}),
            ...(cmd.raw.inputFile !== undefined ? { inputFile: cmd.raw.inputFile } : {}),
          },
          {
            cwd: ctx.cwd,
            // Read only when the prompt comes from stdin: with --input, stdin is never built (docs/performance.md).
            get stdin() {
              return ctx.stdin;
            },
            get stdinIsTTY() {
              return ctx.terminal.stdinIsTTY;
            },
          },
        );
  const inputFlag = cmd.target.kind === 'model' && cmd.mirror === undefined ? 'PROMPT' : '--input';

  const multimodal =
    cmd.multimodal && (cmd.multimodal.images.length > 0 || cmd.multimodal.promptJson !== undefined)
      ? cmd.multimodal
      : undefined;

  // On a terminal what is missing is asked for (docs/design.md §6), once the profile says what there is to pick from.
  const ask = ctx.terminal.interactive;
  let idOrName = cmd.target.kind === 'deployment' ? cmd.target.idOrName : undefined;
  // A deployment given prompt variables may have a prompt template, which the service fills instead of an input
  // (watsonx ignores input then): the client cannot tell, so it sends none and lets the service decide.
  const templateFill = cmd.target.kind === 'deployment' && built.request.parameters?.prompt_variables !== undefined;
  const needsInput =
    input === undefined && !templateFill && multimodal?.promptJson === undefined && !multimodal?.images.length;
  if (!ask) {
    const missing: string[] = [];
    if (cmd.target.kind === 'deployment' && idOrName === undefined) missing.push('--id-or-name');
    if (needsInput) missing.push(inputFlag);
    if (missing.length > 0) throw missingFlagsError(missing);
  }

  const profile = cmd.mirror
    ? (await (await import('../flows/run-text.js')).wxTextProfile(ctx, { name: cmd.mirror.name, friendly: 'complete' }))
        .profile
    : await ctx.connect(await ctx.profile());
  if (ask && cmd.target.kind === 'deployment' && idOrName === undefined) {
    const { askTarget } = await import('../prompt/ask-target.js');
    idOrName = await askTarget(ctx, profile, 'deployments');
  }
  if (profile.defaults.parameters)
    built = await buildCanonicalRequest(cmd.raw, { ...buildOpts, defaults: profile.defaults.parameters });
  let model = cmd.target.kind === 'model' ? (cmd.target.model ?? profile.defaults.model) : undefined;
  if (ask && cmd.target.kind === 'model' && model === undefined) {
    const { askTarget } = await import('../prompt/ask-target.js');
    model = await askTarget(ctx, profile, 'models', 'text_generation');
  }
  if (ask && needsInput) {
    const text = await (await ctx.prompter()).multiline('Prompt');
    if (text === '') throw missingFlagsError([inputFlag]);
    input = text;
  }
  if (cmd.target.kind === 'model' && model === undefined) {
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
      hint: (await import('../../profiles/registry.js')).adapterFor(profile.provider).missingModelHint,
    });
  }

  if (multimodal) {
    const { promptsFor } = await import('../flows/multimodal.js');
    const { cliFileIo } = await import('../options/file-io.js');
    const prompt = await (await promptsFor(profile)).buildPrompt(
      { text: input, images: multimodal.images, promptJson: multimodal.promptJson },
      cliFileIo({ cwd: ctx.cwd, stdin: readStdin, signal: ctx.signal }),
    );
    // The items replace the text prompt in the wire body (`extra` is merged last).
    built = { ...built, extra: { ...built.extra, prompt } };
  }
  if (showLogprobs) {
    // The colours need each token's log-probability: ask for it on top of whatever was asked.
    const returnOptions = { ...built.request.parameters?.return_options, generated_tokens: true, token_logprobs: true };
    built = {
      ...built,
      request: { ...built.request, parameters: { ...built.request.parameters, return_options: returnOptions } },
    };
  }
  const { adapterFor } = await import('../../profiles/registry.js');
  const provider = await adapterFor(profile.provider).generate();
  const { runGenerate } = await import('./run-generate.js');
  const modelVersion = cmd.raw.modelVersion;
  return runGenerate(ctx, {
    provider,
    profile,
    request: {
      ...built.request,
      ...(input !== undefined || !templateFill ? { input: input ?? '' } : {}),
      ...(cmd.choices !== undefined ? { n: cmd.choices } : {}),
    },
    target: {
      ...(cmd.target.kind === 'deployment' ? { deployment: idOrName as string } : { model: model as string }),
      ...(modelVersion ? { modelVersion } : {}),
      stream,
    },
    extra: built.extra,
    present: {
      format,
      jmes: ctx.output().jmes,
      rawOutput: ctx.output().rawOutput,
      // The mirror prints what cpdctl prints: the service's body, whenever the output is structured.
      raw: raw || (cmd.mirror !== undefined && (format !== 'text' || ctx.output().jmes !== undefined)),
      showLogprobs,
    },
    ignoreUnsupported,
  });
}
