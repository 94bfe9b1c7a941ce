/**
 * The Aleph Alpha prompt as the user gives it on the command line, for every command that sends one (evaluate,
 * explain; complete and embed can call the same builder): plain text, `--image @file.png` (repeatable) and
 * `--prompt-json @items.json`. Files are read here; the result is exactly what goes into the body's `prompt`.
 */
import { UsageError } from '../../../src/contract/errors.js';
import {
  imageKind,
  promptItemProblems,
  type AlephAlphaPrompt,
  type AlephAlphaPromptItem,
} from '../prompt-item-check.js';
import { filePathOf, readUserBytes, type FileIo } from './read-user-bytes.js';
import type { PromptOptions } from '../../../src/contract/adapter-operations/prompts.js';

export type { AlephAlphaPrompt, AlephAlphaPromptItem } from '../prompt-item-check.js';
export type { FileIo } from './read-user-bytes.js';

/**
 * Images larger than this are refused before anything is sent, and reading stops here (`@/dev/zero`, an endless
 * FIFO): the base64 text is a third larger again (6.7 MiB), and the whole body has to fit the 8 MiB a request may
 * carry to `serve`; Aleph Alpha publishes no larger bound, and its models see an image as a small square anyway
 * (README, "Aleph Alpha tasks").
 */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Problems listed in one message before "…and N more". */
const MAX_LISTED = 5;

export type { PromptOptions } from '../../../src/contract/adapter-operations/prompts.js';

/**
 * The `prompt` of an Aleph Alpha request, or undefined when none of the options was given (the caller then reads
 * stdin or reports the missing flag).
 * - `--prompt-json` is the whole prompt (it can put text and images in any order), so it goes alone;
 * - images come first, then the text: the usual layout of a question about a picture;
 * - text alone stays a plain string, as `/complete` receives it from the other commands.
 */
export async function buildAlephAlphaPrompt(options: PromptOptions, io: FileIo): Promise<AlephAlphaPrompt | undefined> {
  const images = options.images ?? [];
  if (options.promptJson !== undefined) {
    const others = [...(options.text !== undefined ? ['--prompt'] : []), ...(images.length > 0 ? ['--image'] : [])];
    if (others.length > 0) {
      throw new UsageError(`--prompt-json holds the whole prompt and cannot be combined with ${others.join(' or ')}`, {
        hint: 'put the text and images into the JSON array as {"type":"text","data":…} and {"type":"image","data":<base64>} items',
      });
    }
    return readPromptJson(options.promptJson, io);
  }
  if (images.length === 0) return options.text;
  const items: AlephAlphaPromptItem[] = [];
  for (const value of images) items.push(await readImage(value, io));
  if (options.text !== undefined && options.text !== '') items.push({ type: 'text', data: options.text });
  return items;
}

/** `--image @file`: a PNG or JPEG, at most MAX_IMAGE_BYTES, sent as base64. */
export async function readImage(value: string, io: FileIo): Promise<AlephAlphaPromptItem> {
  const flag = '--image';
  const path = filePathOf(flag, value, 'picture.png');
  const bytes = await readUserBytes(
    flag,
    path,
    io,
    MAX_IMAGE_BYTES,
    'scale it down first: the model sees a small square of it anyway',
  );
  if (bytes.length === 0) throw new UsageError(`${flag}: ${path} is empty`);
  if (imageKind(bytes) === undefined) {
    throw new UsageError(`${flag}: ${path} is not a PNG or JPEG image`, {
      hint: 'Aleph Alpha prompts take PNG and JPEG images; convert it first',
    });
  }
  return { type: 'image', data: bytes.toString('base64') };
}

async function readPromptJson(value: string, io: FileIo): Promise<AlephAlphaPromptItem[]> {
  const flag = '--prompt-json';
  const json = await io.readJson(flag, value);
  const problems = promptItemProblems(json);
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_LISTED).map((p) => `${flag}${p.path} ${p.message}`);
    const more = problems.length > MAX_LISTED ? `; …and ${problems.length - MAX_LISTED} more` : '';
    throw new UsageError(`${listed.join('; ')}${more}`, {
      hint: 'each item is {"type":"text"|"image"|"token_ids","data":…,"controls"?:[…]}; images are base64 PNG or JPEG',
    });
  }
  const items = json as AlephAlphaPromptItem[];
  if (items.length === 0) throw new UsageError(`${flag} must hold at least one prompt item`);
  return items;
}
