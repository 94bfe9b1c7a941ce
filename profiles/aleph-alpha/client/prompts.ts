import type { MultimodalPrompts } from '../../../src/contract/adapter.js';
import { buildAlephAlphaPrompt } from './prompt-items.js';
import { readDocument } from './task-documents.js';

/** Aleph Alpha's prompt items from `--image`, `--prompt-json` and `--document`. */
export const alephAlphaPrompts: MultimodalPrompts = { buildPrompt: buildAlephAlphaPrompt, readDocument };
