/**
 * `--document` values of `qa` and `summarize` → Aleph Alpha `Document`s: `@file.docx` goes as `{docx: <base64>}`
 * (the service reads Word files itself), any other `@file` and plain text as `{text}`, `@-` reads stdin.
 */
import { extname } from 'node:path';
import { UsageError } from '../../../src/contract/errors.js';
import type { AlephAlphaDocument } from '../prompt-item-check.js';
import { readUserBytes, utf8Text, type FileIo } from './read-user-bytes.js';

/**
 * The most a `--document @file` reads; reading stops there (`@/dev/zero`, an endless FIFO). As for images: the base64
 * of a .docx (6.7 MiB) must fit the 8 MiB body `serve` accepts, and text that size is already far past what a
 * Luminous model reads (its context is 2 048 tokens, about 8 KB). README, "Aleph Alpha tasks".
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export async function readDocument(flag: string, value: string, io: FileIo): Promise<AlephAlphaDocument> {
  if (!value.startsWith('@')) {
    if (value.trim() === '')
      throw new UsageError(`${flag}: empty document`, { hint: `give the text, or @file to read it from a file` });
    return { text: value };
  }
  const path = value.slice(1);
  if (path === '')
    throw new UsageError(`${flag}: missing file name after "@"`, {
      hint: `write ${flag} @notes.txt, ${flag} @report.docx, or @- for stdin`,
    });
  if (path === '-') {
    const text = io.stdin ? await io.stdin() : '';
    if (text.trim() === '') throw new UsageError(`${flag}: stdin is empty`);
    return { text };
  }
  const bytes = await readUserBytes(
    flag,
    path,
    io,
    MAX_DOCUMENT_BYTES,
    'a document that size is beyond what a model reads in one request; cut it down or split it into several --document',
  );
  if (bytes.length === 0) throw new UsageError(`${flag}: ${path} is empty`);
  if (extname(path).toLowerCase() === '.docx') return { docx: bytes.toString('base64') };
  const text = utf8Text(bytes);
  if (text === undefined) {
    throw new UsageError(`${flag}: ${path} is not a text file`, {
      hint: 'Aleph Alpha reads Word files (.docx) and plain text; save other formats as one of those',
    });
  }
  if (text.trim() === '') throw new UsageError(`${flag}: ${path} holds no text`);
  return { text };
}
