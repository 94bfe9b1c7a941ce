/** The flags the Aleph Alpha task commands share, as plain data (read for --help, so cheap to import). */
import type { OptionSpec, OptionValues } from '../command.js';

export const MODEL_OPTION = {
  flags: '-m, --model <name>',
  description: "model, e.g. luminous-base; default: the profile's defaults.model",
} as const satisfies OptionSpec;

/** The prompt: text, images, or a whole multimodal prompt as JSON (profiles/aleph-alpha/prompt-items.ts). */
export const PROMPT_OPTIONS = [
  { flags: '--prompt <text>', description: 'the prompt text (else piped stdin)' },
  {
    flags: '--image <@file>',
    description: 'a PNG or JPEG image put before the text (repeatable, in order)',
    repeatable: true,
  },
  {
    flags: '--prompt-json <json|@file>',
    description: 'the whole prompt as an array of items {type: text|image|token_ids, data, controls?}',
  },
] as const satisfies readonly OptionSpec[];

export const NICE_OPTION = {
  flags: '--nice [bool]',
  description: 'let concurrent requests of other users go first (?nice=true)',
} as const satisfies OptionSpec;

/** What a task command receives for the flags above (src/flows/task-options.ts reads them). */
export type TaskOptions = OptionValues<readonly [typeof MODEL_OPTION, ...typeof PROMPT_OPTIONS, typeof NICE_OPTION]>;

export const DOCUMENT_HELP =
  'text, or @file: a .docx is sent as a Word document, any other file as text; @- reads stdin';
