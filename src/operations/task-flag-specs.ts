/** The flags the Aleph Alpha task commands share, as plain data (read for --help, so cheap to import). */
import type { OptionSpec } from '../command.js';

export const MODEL_OPTION: OptionSpec = {
  flags: '-m, --model <name>',
  description: "model, e.g. luminous-base; default: the profile's defaults.model",
};

/** The prompt: text, images, or a whole multimodal prompt as JSON (profiles/aleph-alpha/prompt-items.ts). */
export const PROMPT_OPTIONS: OptionSpec[] = [
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
];

export const NICE_OPTION: OptionSpec = {
  flags: '--nice [bool]',
  description: 'let concurrent requests of other users go first (?nice=true)',
};

export const DOCUMENT_HELP =
  'text, or @file: a .docx is sent as a Word document, any other file as text; @- reads stdin';
