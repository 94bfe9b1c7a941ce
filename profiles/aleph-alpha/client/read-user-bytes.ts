import { UsageError } from '../../../src/contract/errors.js';
import type { FileIo } from '../../../src/contract/adapter-operations/prompts.js';

export type { FileIo } from '../../../src/contract/adapter-operations/prompts.js';

/**
 * A binary file named on the command line, through the same path rules and messages as text files (`~/`, relative
 * to cwd, "no such file", "permission denied"): the bytes travel as base64, which is what the wire wants anyway.
 * At most `limit` bytes are read (a larger file, `/dev/zero` or an endless FIFO is a usage error naming the flag and
 * the limit), and Ctrl-C (`io.signal`) ends the read.
 */
export async function readUserBytes(
  flag: string,
  path: string,
  io: FileIo,
  limit: number,
  hint: string,
): Promise<Buffer> {
  const bytes = Buffer.from(await io.readFile(flag, path, { limit, hint }));
  // An injected reader (tests) is not bounded by itself.
  if (bytes.length > limit)
    throw new UsageError(`${flag}: ${path} is larger than the most ${flag} reads (${limit} bytes)`, { hint });
  return bytes;
}

/** `@path` → path. For a flag whose value can only be a file, a value without "@" is taken as a path too. */
export function filePathOf(flag: string, value: string, example: string): string {
  const path = value.startsWith('@') ? value.slice(1) : value;
  if (path === '') throw new UsageError(`${flag}: missing file name after "@"`, { hint: `write ${flag} @${example}` });
  return path;
}

/** UTF-8 text of a file's bytes, or undefined for binary content (a NUL byte, or bytes that are not UTF-8). */
export function utf8Text(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}
