/**
 * Aleph Alpha's multimodal prompt items (1.16 `TextPromptItem`, `ImagePromptItem`, `TokenIdsPromptItem`) and the one
 * check of their shape, shared by the CLI (`--prompt-json`) and the embedded server (task endpoints), so both say the
 * same thing about the same item. Pure: no I/O.
 */

import type { MultimodalPrompt, PromptItem, TaskDocument } from '../../src/contract/adapter-operations/prompts.js';

export type { ImageControl, TextControl, TokenControl } from '../../src/contract/adapter-operations/prompts.js';
export type AlephAlphaPromptItem = PromptItem;
/** `Prompt`: a string, or items concatenated into one prompt. */
export type AlephAlphaPrompt = MultimodalPrompt;
/** `Document`: a Word file, text, or a multimodal prompt (left as it is by the service). */
export type AlephAlphaDocument = TaskDocument;

/** One thing wrong with an item: where (`[2].data`, relative to the array) and what. */
export interface PromptItemProblem {
  path: string;
  message: string;
}

export type ImageKind = 'png' | 'jpeg';

/** The image formats the CLI sends, recognised by their signatures (not by file names, which can lie). */
export function imageKind(bytes: Uint8Array): ImageKind | undefined {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= png.length && png.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a standard base64 string, or undefined when it is not one. */
export function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

/** Checks one value at `path`, recording what is wrong with it (or inside it) in `out`. */
type Check = (value: unknown, path: string, out: PromptItemProblem[]) => void;
type Fields = Record<string, { check: Check; required?: boolean }>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A check from a predicate and the message for a value that fails it. */
const rule =
  (ok: (v: unknown) => boolean, message: string): Check =>
  (v, path, out) => {
    if (!ok(v)) out.push({ path, message });
  };
const any: Check = () => {};
const string = rule((v) => typeof v === 'string', 'must be a string');
const integer = rule((v) => typeof v === 'number' && Number.isInteger(v), 'must be an integer');
const number = rule((v) => typeof v === 'number' && Number.isFinite(v), 'must be a number');
const overlap = rule((v) => v === 'partial' || v === 'complete', 'must be "partial" or "complete"');
const tokenIds = rule(
  (v) => Array.isArray(v) && v.every((id) => typeof id === 'number' && Number.isInteger(id) && id >= 0),
  'must be an array of token ids (integers from 0)',
);

const imageData: Check = (v, path, out) => {
  if (typeof v !== 'string') return void out.push({ path, message: 'must be a string (the image as base64)' });
  const bytes = decodeBase64(v);
  if (bytes === undefined) return void out.push({ path, message: 'must be the image as base64' });
  if (imageKind(bytes) === undefined) out.push({ path, message: 'must be a PNG or JPEG image (as base64)' });
};

/** An object's fields: required ones present, known ones checked, unknown ones named. */
const object =
  (fields: Fields): Check =>
  (value, path, out) => {
    if (!isObject(value)) return void out.push({ path, message: 'must be an object' });
    for (const [name, field] of Object.entries(fields)) {
      if (value[name] === undefined) {
        if (field.required) out.push({ path: `${path}.${name}`, message: 'is required' });
      } else {
        field.check(value[name], `${path}.${name}`, out);
      }
    }
    for (const name of Object.keys(value)) {
      if (!Object.hasOwn(fields, name))
        out.push({ path: `${path}.${name}`, message: 'is not a field of this item (unknown field)' });
    }
  };

const arrayOf =
  (item: Check): Check =>
  (value, path, out) => {
    if (!Array.isArray(value)) return void out.push({ path, message: 'must be an array' });
    value.forEach((v, i) => item(v, `${path}[${i}]`, out));
  };

const required = (check: Check) => ({ check, required: true });

const ITEMS: Record<AlephAlphaPromptItem['type'], Check> = {
  text: object({
    type: { check: any },
    data: required(string),
    controls: {
      check: arrayOf(
        object({
          start: required(integer),
          length: required(integer),
          factor: required(number),
          token_overlap: { check: overlap },
        }),
      ),
    },
  }),
  image: object({
    type: { check: any },
    data: required(imageData),
    x: { check: integer },
    y: { check: integer },
    size: { check: integer },
    controls: {
      check: arrayOf(
        object({
          rect: required(
            object({
              left: required(number),
              top: required(number),
              width: required(number),
              height: required(number),
            }),
          ),
          factor: required(number),
          token_overlap: { check: overlap },
        }),
      ),
    },
  }),
  token_ids: object({
    type: { check: any },
    data: required(tokenIds),
    controls: { check: arrayOf(object({ index: required(integer), factor: required(number) })) },
  }),
};

const item: Check = (value, path, out) => {
  if (!isObject(value)) return void out.push({ path, message: 'must be an object with "type" and "data"' });
  const type = value.type;
  if (type === 'text' || type === 'image' || type === 'token_ids') return ITEMS[type](value, path, out);
  out.push({
    path: `${path}.type`,
    message:
      type === undefined ? 'is required ("text", "image" or "token_ids")' : 'must be "text", "image" or "token_ids"',
  });
};

/**
 * Everything wrong with a multimodal prompt (an array of items), in order. Paths are relative to the array
 * (`[1].data`), so callers prefix their own name (`--prompt-json[1].data`, `'prompt[1].data'`). Empty: valid.
 */
export function promptItemProblems(value: unknown): PromptItemProblem[] {
  if (!Array.isArray(value)) return [{ path: '', message: 'must be an array of prompt items' }];
  const out: PromptItemProblem[] = [];
  arrayOf(item)(value, '', out);
  return out;
}
