import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { promptItemProblems } from '../../profiles/aleph-alpha/prompt-item-check.js';
import { buildAlephAlphaPrompt, MAX_IMAGE_BYTES } from '../../profiles/aleph-alpha/client/prompt-items.js';
import { readDocument } from '../../profiles/aleph-alpha/client/task-documents.js';
import { cliFileIo } from '../../src/options/file-io.js';
import { alephAlphaPromptSchema } from '../contract/aleph-alpha-schemas.js';
import { alephAlphaDocumentSchema } from '../contract/aleph-alpha-task-schemas.js';
import { JPEG_START, makeDocx, TINY_PNG, TINY_PNG_BASE64 } from '../helpers/aleph-alpha-task-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'textgen-aa-prompt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  writeFileSync(join(dir, name), content);
  return name;
}

const io = cliFileIo({ cwd: dir });
const png = file('dot.png', TINY_PNG);
const jpeg = file('photo.jpg', JPEG_START);
const gif = file('anim.gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'));
const empty = file('empty.png', Buffer.alloc(0));
const docx = makeDocx(['Andreas likes pizza.']);
file('report.docx', docx);
file('REPORT.DOCX', docx);
file('notes.txt', '\ufeffRivers carry water.\n');
file('blob.bin', Buffer.from([0x00, 0x01, 0x02]));
file('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
file('blank.txt', '  \n');

async function usageError(run: Promise<unknown>): Promise<UsageError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe("buildAlephAlphaPrompt: text, images and prompt JSON become the body's prompt", () => {
  test.each<[string, Parameters<typeof buildAlephAlphaPrompt>[0], unknown]>([
    ['nothing given → undefined (the caller reads stdin or reports the flag)', {}, undefined],
    ['text alone stays a plain string', { text: 'An apple a day' }, 'An apple a day'],
    ['an empty text is still a prompt (unconditional evaluation)', { text: '' }, ''],
    [
      'an image comes before the text',
      { text: 'What is this?', images: [`@${png}`] },
      [
        { type: 'image', data: TINY_PNG_BASE64 },
        { type: 'text', data: 'What is this?' },
      ],
    ],
    [
      'images keep their order; a JPEG is read like a PNG',
      { images: [`@${jpeg}`, png] },
      [
        { type: 'image', data: JPEG_START.toString('base64') },
        { type: 'image', data: TINY_PNG_BASE64 },
      ],
    ],
    [
      'an image with an empty text has no text item',
      { text: '', images: [`@${png}`] },
      [{ type: 'image', data: TINY_PNG_BASE64 }],
    ],
  ])('%s', async (_name, options, expected) => {
    const prompt = await buildAlephAlphaPrompt(options, io);
    expect(prompt).toEqual(expected);
    if (prompt !== undefined) expect(alephAlphaPromptSchema.safeParse(prompt).success).toBe(true);
  });

  test('--prompt-json items are the prompt as they are, controls included', async () => {
    const items = [
      {
        type: 'image',
        data: TINY_PNG_BASE64,
        x: 0,
        y: 0,
        size: 1,
        controls: [{ rect: { left: 0, top: 0, width: 1, height: 0.5 }, factor: 2 }],
      },
      {
        type: 'text',
        data: 'A picture of',
        controls: [{ start: 2, length: 7, factor: 0.5, token_overlap: 'complete' }],
      },
      { type: 'token_ids', data: [49222, 15], controls: [{ index: 0, factor: 1.5 }] },
    ];
    file('items.json', JSON.stringify(items));
    expect(await buildAlephAlphaPrompt({ promptJson: '@items.json' }, io)).toEqual(items);
    expect(await buildAlephAlphaPrompt({ promptJson: JSON.stringify(items) }, io)).toEqual(items);
    expect(
      await buildAlephAlphaPrompt(
        { promptJson: '@-' },
        cliFileIo({ cwd: dir, stdin: async () => JSON.stringify(items) }),
      ),
    ).toEqual(items);
    expect(alephAlphaPromptSchema.safeParse(items).success).toBe(true);
  });

  test.each<[string, Parameters<typeof buildAlephAlphaPrompt>[0], RegExp]>([
    [
      'an image that is neither PNG nor JPEG',
      { images: [`@${gif}`] },
      /^--image: anim\.gif is not a PNG or JPEG image$/,
    ],
    ['an empty image file', { images: [`@${empty}`] }, /^--image: empty\.png is empty$/],
    ['a missing image file', { images: ['@nowhere.png'] }, /^--image: cannot read nowhere\.png: no such file$/],
    ['"@" without a name', { images: ['@'] }, /^--image: missing file name after "@"$/],
    [
      '--prompt-json with --prompt',
      { promptJson: '[]', text: 'x' },
      /--prompt-json holds the whole prompt and cannot be combined with --prompt$/,
    ],
    ['--prompt-json with --image', { promptJson: '[]', images: [png] }, /cannot be combined with --image$/],
    [
      '--prompt-json that is not JSON',
      { promptJson: '[{"type": "text",}]' },
      /^--prompt-json: invalid JSON at line 1, column 18/,
    ],
    [
      '--prompt-json that is not an array',
      { promptJson: '{"type": "text", "data": "x"}' },
      /^--prompt-json must be an array of prompt items/,
    ],
    ['--prompt-json with no items', { promptJson: '[]' }, /^--prompt-json must hold at least one prompt item$/],
    [
      'an item of an unknown type',
      { promptJson: '[{"type": "audio", "data": "x"}]' },
      /^--prompt-json\[0\]\.type must be "text", "image" or "token_ids"/,
    ],
    ['an item without a type', { promptJson: '[{"data": "x"}]' }, /^--prompt-json\[0\]\.type is required/],
    ['a text item without data', { promptJson: '[{"type": "text"}]' }, /^--prompt-json\[0\]\.data is required/],
    [
      'a text item with a number as data',
      { promptJson: '[{"type": "text", "data": 3}]' },
      /^--prompt-json\[0\]\.data must be a string/,
    ],
    [
      'a typo in a field name',
      { promptJson: '[{"type": "text", "data": "x", "control": []}]' },
      /^--prompt-json\[0\]\.control is not a field of this item \(unknown field\)/,
    ],
    [
      'image data that is not base64',
      { promptJson: '[{"type": "image", "data": "not base64!"}]' },
      /^--prompt-json\[0\]\.data must be the image as base64/,
    ],
    [
      'image data that is no image',
      { promptJson: `[{"type": "image", "data": "${Buffer.from('hello!').toString('base64')}"}]` },
      /^--prompt-json\[0\]\.data must be a PNG or JPEG image/,
    ],
    [
      'a negative token id',
      { promptJson: '[{"type": "token_ids", "data": [1, -2]}]' },
      /^--prompt-json\[0\]\.data must be an array of token ids/,
    ],
    [
      'a text control without a factor',
      { promptJson: '[{"type": "text", "data": "x", "controls": [{"start": 0, "length": 1}]}]' },
      /^--prompt-json\[0\]\.controls\[0\]\.factor is required/,
    ],
    [
      'an image control with a bad rect',
      {
        promptJson: `[{"type": "image", "data": "${TINY_PNG_BASE64}", "controls": [{"rect": {"left": 0}, "factor": 1}]}]`,
      },
      /^--prompt-json\[0\]\.controls\[0\]\.rect\.top is required/,
    ],
    [
      'an unknown token_overlap',
      {
        promptJson:
          '[{"type": "text", "data": "x", "controls": [{"start": 0, "length": 1, "factor": 2, "token_overlap": "some"}]}]',
      },
      /token_overlap must be "partial" or "complete"/,
    ],
  ])('%s is a usage error naming the flag', async (_name, options, message) => {
    const error = await usageError(buildAlephAlphaPrompt(options, io));
    expect(error.message).toMatch(message);
  });

  test('several problems are named together, the first five and a count of the rest', async () => {
    const items = Array.from({ length: 7 }, () => ({ type: 'text' }));
    const error = await usageError(buildAlephAlphaPrompt({ promptJson: JSON.stringify(items) }, io));
    expect(error.message).toBe(
      '--prompt-json[0].data is required; --prompt-json[1].data is required; --prompt-json[2].data is required; --prompt-json[3].data is required; --prompt-json[4].data is required; …and 2 more',
    );
  });

  test(`an image over ${MAX_IMAGE_BYTES / 1024 / 1024} MB is refused before it is encoded into a request`, async () => {
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(MAX_IMAGE_BYTES)]);
    const error = await usageError(
      buildAlephAlphaPrompt({ images: ['@big.png'] }, cliFileIo({ cwd: dir, readBytes: async () => big })),
    );
    expect(error.message).toBe('--image: big.png is larger than 5 MiB, the most --image reads');
    expect(error.hint).toMatch(/scale it down/);
  });

  test('an unreadable image names the reason', async () => {
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    const error = await usageError(
      buildAlephAlphaPrompt(
        { images: ['@secret.png'] },
        cliFileIo({ cwd: dir, readBytes: async () => Promise.reject(denied) }),
      ),
    );
    expect(error.message).toBe('--image: cannot read secret.png: permission denied');
  });

  test('the checker the server shares reports paths relative to the array', () => {
    expect(promptItemProblems([{ type: 'text', data: 'x' }])).toEqual([]);
    expect(promptItemProblems('x')).toEqual([{ path: '', message: 'must be an array of prompt items' }]);
    expect(promptItemProblems([{ type: 'token_ids', data: [1], controls: [{ index: 0.5, factor: 1 }] }])).toEqual([
      { path: '[0].controls[0].index', message: 'must be an integer' },
    ]);
  });
});

describe('readDocument: --document values become Documents', () => {
  test.each<[string, string, object]>([
    ['plain text is a text document', 'Andreas likes pizza.', { text: 'Andreas likes pizza.' }],
    ['a .docx file goes as base64, untouched', '@report.docx', { docx: docx.toString('base64') }],
    ['the .docx extension is matched in any case', '@REPORT.DOCX', { docx: docx.toString('base64') }],
    ['any other file is read as UTF-8 text, BOM dropped', '@notes.txt', { text: 'Rivers carry water.\n' }],
  ])('%s', async (_name, value, expected) => {
    const document = await readDocument('--document', value, io);
    expect(document).toEqual(expected);
    expect(alephAlphaDocumentSchema.safeParse(document).success).toBe(true);
  });

  test('@- reads stdin', async () => {
    expect(await readDocument('--document', '@-', cliFileIo({ cwd: dir, stdin: async () => 'From a pipe.' }))).toEqual({
      text: 'From a pipe.',
    });
  });

  test('any bytes named .docx are sent: the service, not the CLI, reads Word files', async () => {
    file('fake.docx', 'not really a zip');
    expect(await readDocument('--document', '@fake.docx', io)).toEqual({
      docx: Buffer.from('not really a zip').toString('base64'),
    });
  });

  test.each<[string, string, RegExp]>([
    ['an empty value', '', /^--document: empty document$/],
    ['a missing file', '@missing.txt', /^--document: cannot read missing\.txt: no such file$/],
    ['"@" without a name', '@', /^--document: missing file name after "@"$/],
    ['a binary file that is not .docx', '@blob.bin', /^--document: blob\.bin is not a text file$/],
    ['a file that is not UTF-8', '@latin1.txt', /^--document: latin1\.txt is not a text file$/],
    ['a file of blanks', '@blank.txt', /^--document: blank\.txt holds no text$/],
    ['an empty stdin', '@-', /^--document: stdin is empty$/],
  ])('%s is a usage error', async (_name, value, message) => {
    const error = await usageError(readDocument('--document', value, cliFileIo({ cwd: dir, stdin: async () => '' })));
    expect(error.message).toMatch(message);
  });
});
