/**
 * Aleph Alpha's multimodal prompt items (1.16 `TextPromptItem`, `ImagePromptItem`, `TokenIdsPromptItem`) and the one
 * check of their shape, shared by the CLI (`--prompt-json`) and the local server (task endpoints), so both say the
 * same thing about the same item. Pure: no I/O.
 */

export interface TextControl {
  start: number;
  length: number;
  factor: number;
  token_overlap?: 'partial' | 'complete';
}

export interface ImageControl {
  rect: { left: number; top: number; width: number; height: number };
  factor: number;
  token_overlap?: 'partial' | 'complete';
}

export interface TokenControl {
  index: number;
  factor: number;
}

export type AlephAlphaPromptItem =
  | { type: 'text'; data: string; controls?: TextControl[] }
  | { type: 'image'; data: string; x?: number; y?: number; size?: number; controls?: ImageControl[] }
  | { type: 'token_ids'; data: number[]; controls?: TokenControl[] };

/** `Prompt`: a string, or items concatenated into one prompt. */
export type AlephAlphaPrompt = string | AlephAlphaPromptItem[];

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

type Check = (value: unknown) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const integer: Check = (v) => (typeof v === 'number' && Number.isInteger(v) ? undefined : 'must be an integer');
const number: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a number');
const overlap: Check = (v) => (v === 'partial' || v === 'complete' ? undefined : 'must be "partial" or "complete"');

/** Checks an object's fields: required ones present, known ones well-typed, unknown ones named. */
function checkFields(value: unknown, path: string, fields: Record<string, { check: Check; required?: boolean }>, out: PromptItemProblem[]): void {
  if (!isObject(value)) {
    out.push({ path, message: 'must be an object' });
    return;
  }
  for (const [name, field] of Object.entries(fields)) {
    if (value[name] === undefined) {
      if (field.required) out.push({ path: `${path}.${name}`, message: 'is required' });
      continue;
    }
    const message = field.check(value[name]);
    if (message !== undefined) out.push({ path: `${path}.${name}`, message });
  }
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(fields, name)) out.push({ path: `${path}.${name}`, message: 'is not a field of this item (unknown field)' });
  }
}

function checkControls(value: unknown, path: string, fields: Record<string, { check: Check; required?: boolean }>, out: PromptItemProblem[]): void {
  if (!Array.isArray(value)) {
    out.push({ path, message: 'must be an array' });
    return;
  }
  value.forEach((control, i) => checkFields(control, `${path}[${i}]`, fields, out));
}

const TEXT_CONTROL = { start: { check: integer, required: true }, length: { check: integer, required: true }, factor: { check: number, required: true }, token_overlap: { check: overlap } };
const RECT = { left: { check: number, required: true }, top: { check: number, required: true }, width: { check: number, required: true }, height: { check: number, required: true } };
const TOKEN_CONTROL = { index: { check: integer, required: true }, factor: { check: number, required: true } };

function imageData(v: unknown): string | undefined {
  if (typeof v !== 'string') return 'must be a string (the image as base64)';
  const bytes = decodeBase64(v);
  if (bytes === undefined) return 'must be the image as base64';
  return imageKind(bytes) === undefined ? 'must be a PNG or JPEG image (as base64)' : undefined;
}

function tokenIds(v: unknown): string | undefined {
  if (!Array.isArray(v)) return 'must be an array of token ids';
  return v.every((id) => typeof id === 'number' && Number.isInteger(id) && id >= 0) ? undefined : 'must hold only token ids (integers from 0)';
}

/** Problems with one item; `path` is where it sits (`[0]`). */
function checkItem(item: unknown, path: string, out: PromptItemProblem[]): void {
  if (!isObject(item)) {
    out.push({ path, message: 'must be an object with "type" and "data"' });
    return;
  }
  const controls = (fields: Record<string, { check: Check; required?: boolean }>) => ({
    check: (v: unknown) => {
      const before = out.length;
      checkControls(v, `${path}.controls`, fields, out);
      // The nested problems are already recorded with their own paths.
      return out.length > before ? '' : undefined;
    },
  });
  const nested: PromptItemProblem[] = [];
  switch (item.type) {
    case 'text':
      checkFields(item, path, { type: { check: () => undefined }, data: { check: (v) => (typeof v === 'string' ? undefined : 'must be a string'), required: true }, controls: controls(TEXT_CONTROL) }, nested);
      break;
    case 'image':
      checkFields(
        item,
        path,
        {
          type: { check: () => undefined },
          data: { check: imageData, required: true },
          x: { check: integer },
          y: { check: integer },
          size: { check: integer },
          controls: controls({ rect: { check: (v) => rectProblem(v, out, path) }, factor: { check: number, required: true }, token_overlap: { check: overlap } }),
        },
        nested,
      );
      break;
    case 'token_ids':
      checkFields(item, path, { type: { check: () => undefined }, data: { check: tokenIds, required: true }, controls: controls(TOKEN_CONTROL) }, nested);
      break;
    default:
      out.push({ path: `${path}.type`, message: item.type === undefined ? 'is required ("text", "image" or "token_ids")' : 'must be "text", "image" or "token_ids"' });
      return;
  }
  // An empty message marks a field whose problems were recorded one level down.
  out.push(...nested.filter((p) => p.message !== ''));
}

function rectProblem(v: unknown, out: PromptItemProblem[], path: string): string | undefined {
  const found: PromptItemProblem[] = [];
  checkFields(v, `${path}.controls[].rect`, RECT, found);
  if (found.length === 0) return undefined;
  out.push(...found);
  return '';
}

/**
 * Everything wrong with a multimodal prompt (an array of items), in order. Paths are relative to the array
 * (`[1].data`), so callers prefix their own name (`--prompt-json[1].data`, `'prompt[1].data'`). Empty: valid.
 */
export function promptItemProblems(value: unknown): PromptItemProblem[] {
  if (!Array.isArray(value)) return [{ path: '', message: 'must be an array of prompt items' }];
  const out: PromptItemProblem[] = [];
  value.forEach((item, i) => checkItem(item, `[${i}]`, out));
  return out;
}
