/**
 * Turning the task commands' flags into request parts: the model, the prompt (with piped stdin as the fallback),
 * documents, and the small enum/number/boolean flags. Every failure is a UsageError naming the flag.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { missingFlagsError } from '../options/input.js';
import { coerceEnum, parseBooleanFlag } from '../options/flag-values.js';
import { readStdinText } from '../options/input.js';
import { cliFileIo } from '../options/file-io.js';
import type { FileIo, MultimodalPrompt, TaskDocument } from '../contract/adapter.js';
import { promptsFor } from './multimodal.js';
import type { TaskOptions } from './task-flag-specs.js';
import { parseIntegerFlag } from '../options/integer-flag.js';

/** File access for one command run; stdin is read once, however many `@-` there are. */
export function fileIo(ctx: Context): FileIo {
  let stdin: Promise<string> | undefined;
  return cliFileIo({ cwd: ctx.cwd, stdin: () => (stdin ??= readStdinText(ctx.stdin)), signal: ctx.signal });
}

/** `-m/--model`, else the profile's defaults.model. */
export function modelFor(options: Pick<TaskOptions, 'model'>, profile: ResolvedProfile): string {
  if (options.model !== undefined && options.model !== '') return options.model;
  if (profile.defaults.model) return profile.defaults.model;
  throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
    hint: 'e.g. -m luminous-base',
  });
}

/** `--nice`, `--nice=true|false`. */
export function niceFlag(options: Pick<TaskOptions, 'nice'>): boolean {
  return parseBooleanFlag('--nice', options.nice) === true;
}

/** `--prompt`, `--image`, `--prompt-json`; with none of them, piped stdin is the prompt text. */
export async function promptFrom(
  options: Pick<TaskOptions, 'prompt' | 'image' | 'promptJson'>,
  ctx: Context,
  io: FileIo,
  profile: ResolvedProfile,
): Promise<MultimodalPrompt> {
  const prompt = await (await promptsFor(profile)).buildPrompt(
    {
      text: options.prompt,
      images: options.image,
      promptJson: options.promptJson,
    },
    io,
  );
  if (prompt !== undefined) return prompt;
  if (!ctx.terminal.stdinIsTTY && io.stdin) {
    const text = await io.stdin();
    if (text !== '') return text;
  }
  throw missingFlagsError(['--prompt (or --image, --prompt-json, or the prompt piped on stdin)']);
}

/** The `--document` values in order. */
export async function documentsFrom(
  values: readonly string[],
  io: FileIo,
  profile: ResolvedProfile,
): Promise<TaskDocument[]> {
  const prompts = await promptsFor(profile, '--document');
  const out: TaskDocument[] = [];
  for (const v of values) out.push(await prompts.readDocument('--document', v, io));
  return out;
}

/** One of a fixed set, case-insensitive; undefined when the flag is absent. */
export function enumFlag<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const v = coerceEnum(value);
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
}

/** An integer within bounds; undefined when the flag is absent. */
export function intFlag(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  return value === undefined ? undefined : parseIntegerFlag(flag, value, { min, max });
}
