import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { missingFlagsError, resolveInput, type InputIo } from '../../src/options/input.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'textgen-input-'));
  await writeFile(join(dir, 'prompt.txt'), 'how far is paris from bangalore:\n');
  await writeFile(join(dir, 'bom.txt'), '\uFEFFHallo Welt');
  await writeFile(join(dir, 'empty.txt'), '');
  await mkdir(join(dir, 'folder'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A stdin that yields `chunks` and ends; `open` leaves it open forever (a terminal nobody types on). */
function stdin(chunks: Array<string | Buffer> = [], open = false): PassThrough {
  const s = new PassThrough();
  for (const c of chunks) s.write(c);
  if (!open) s.end();
  return s;
}

const io = (over: Partial<InputIo> = {}): InputIo => ({ cwd: dir, stdin: stdin(), stdinIsTTY: false, ...over });

async function usageError(p: Promise<unknown>): Promise<UsageError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UsageError);
  return e as UsageError;
}

describe('resolveInput: sources', () => {
  it('returns --input as it is', async () => {
    expect(await resolveInput({ input: '  Hello\n' }, io({ stdin: stdin(['ignored']) }))).toBe('  Hello\n');
  });

  it('returns --input "" as an empty string, leaving the decision to the caller', async () => {
    expect(await resolveInput({ input: '' }, io())).toBe('');
  });

  it.each([
    ['a relative path', 'prompt.txt', 'how far is paris from bangalore:\n'],
    ['a file with a BOM', 'bom.txt', 'Hallo Welt'],
    ['an empty file', 'empty.txt', ''],
  ])('--input-file reads %s', async (_name, path, expected) => {
    expect(await resolveInput({ inputFile: path }, io())).toBe(expected);
  });

  it('--input-file reads an absolute path', async () => {
    expect(await resolveInput({ inputFile: join(dir, 'prompt.txt') }, io({ cwd: '/' }))).toBe(
      'how far is paris from bangalore:\n',
    );
  });

  it('--input-file expands ~/ from the home directory', async () => {
    expect(await resolveInput({ inputFile: '~/prompt.txt' }, io({ cwd: '/', homeDir: dir }))).toBe(
      'how far is paris from bangalore:\n',
    );
  });

  it('--input-file - reads stdin to the end, even on a terminal', async () => {
    expect(
      await resolveInput({ inputFile: '-' }, io({ stdin: stdin(['Tell me ', 'a story']), stdinIsTTY: true })),
    ).toBe('Tell me a story');
  });

  it('--input-file - returns "" for empty stdin', async () => {
    expect(await resolveInput({ inputFile: '-' }, io())).toBe('');
  });

  it('uses the injected readFile', async () => {
    const readFile = async (p: string) => `read ${p}`;
    expect(await resolveInput({ inputFile: 'x.txt' }, io({ cwd: '/w', readFile }))).toBe('read /w/x.txt');
  });
});

describe('resolveInput: neither --input nor --input-file', () => {
  it('reads piped stdin', async () => {
    expect(await resolveInput({}, io({ stdin: stdin(['piped prompt\n']) }))).toBe('piped prompt\n');
  });

  it('returns undefined for empty piped stdin', async () => {
    expect(await resolveInput({}, io())).toBeUndefined();
  });

  it('returns undefined on a terminal without reading it', async () => {
    const tty = stdin([], true);
    expect(await resolveInput({}, io({ stdin: tty, stdinIsTTY: true }))).toBeUndefined();
    expect(tty.readableFlowing).toBeNull();
  });

  it('returns undefined for /dev/null', async () => {
    expect(await resolveInput({}, io({ stdin: createReadStream('/dev/null') }))).toBeUndefined();
  });

  it('does not wait on a stdin that has already ended', async () => {
    const s = stdin(['consumed earlier']);
    s.resume();
    await once(s, 'end');
    expect(await resolveInput({}, io({ stdin: s }))).toBeUndefined();
  });

  it('does not wait on a destroyed stdin', async () => {
    const s = stdin([], true);
    s.destroy();
    expect(await resolveInput({}, io({ stdin: s }))).toBeUndefined();
  });

  it('decodes a UTF-8 character split across chunks and drops a BOM', async () => {
    const bytes = Buffer.from('\uFEFFhéllo 😀', 'utf8');
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, 11), bytes.subarray(11)];
    expect(await resolveInput({}, io({ stdin: stdin(chunks) }))).toBe('héllo 😀');
  });

  it('accepts a stdin that delivers strings', async () => {
    const s = new PassThrough({ encoding: 'utf8' });
    s.end('text');
    expect(await resolveInput({}, io({ stdin: s }))).toBe('text');
  });
});

describe('resolveInput: usage errors', () => {
  it.each([
    [{ input: 'a', inputFile: 'prompt.txt' }, '--input and --input-file cannot be used together'],
    [{ inputFile: 'missing.txt' }, '--input-file: cannot read missing.txt: no such file'],
    [{ inputFile: 'folder' }, '--input-file: cannot read folder: it is a directory, not a file'],
    [{ inputFile: 'prompt.txt/x' }, '--input-file: cannot read prompt.txt/x: no such file'],
    [{ inputFile: '' }, '--input-file needs a path, or - for stdin'],
  ])('%j', async (raw, message) => {
    const e = await usageError(resolveInput(raw, io()));
    expect(e.message).toBe(message);
    expect(e.exitCode).toBe(2);
  });

  it('names the resolved path of a missing file in the hint', async () => {
    const e = await usageError(resolveInput({ inputFile: 'missing.txt' }, io()));
    expect(e.hint).toBe(`looked for ${join(dir, 'missing.txt')}`);
  });
});

describe('missingFlagsError', () => {
  it.each([
    [
      ['--id-or-name', '--input'],
      'missing required options: --id-or-name, --input (or --input-file, or pipe the prompt on stdin)',
    ],
    [['--input'], 'missing required option: --input (or --input-file, or pipe the prompt on stdin)'],
    [['--id-or-name'], 'missing required option: --id-or-name'],
  ])('%j', (flags, message) => {
    const e = missingFlagsError(flags);
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toBe(message);
    expect(e.exitCode).toBe(2);
  });
});
