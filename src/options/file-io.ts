/**
 * The FileIo the CLI lends an adapter (src/contract/adapter-operations/prompts.ts): files and JSON values named on
 * the command line, read with the CLI's rules and messages (`~/`, relative to cwd, "no such file", `@file`, `@-`).
 */
import type { FileIo } from '../contract/adapter.js';
import type { ReadBound } from '../contract/adapter-operations/prompts.js';
import { readJsonOption } from './json-option.js';
import { readFileBounded, sizeText, TooLarge } from './read-bounded.js';
import { readUserFile } from './read-text-file.js';
import { UsageError } from '../contract/errors.js';

export interface FileIoOptions {
  cwd: string;
  homeDir?: string;
  /** All of stdin as text, for `@-`. */
  stdin?: () => Promise<string>;
  /** Reads a file by absolute path; errors carry Node's `code`. Default fs.readFile; tests inject one. */
  readBytes?: (absolutePath: string) => Promise<Uint8Array>;
  /** The command's abort signal: Ctrl-C ends a bounded read under way (exit 130). */
  signal?: AbortSignal;
}

export function cliFileIo(opts: FileIoOptions): FileIo {
  const read = opts.readBytes ?? (async (p: string) => (await import('node:fs/promises')).readFile(p));
  const where = { cwd: opts.cwd, ...(opts.homeDir !== undefined ? { homeDir: opts.homeDir } : {}) };
  const stdin = opts.stdin ? { stdin: opts.stdin } : {};
  return {
    ...stdin,
    ...(opts.signal ? { signal: opts.signal } : {}),
    async readFile(flag, path, bound) {
      // At most bound.limit bytes, chunk by chunk: `@/dev/zero`, an endless FIFO or a huge sparse file stop there.
      const readOne =
        bound === undefined || opts.readBytes !== undefined
          ? read
          : async (p: string) => {
              try {
                return await readFileBounded(p, bound.limit, opts.signal);
              } catch (e) {
                if (!(e instanceof TooLarge)) throw e;
                throw new UsageError(
                  `${flag}: ${path} is larger than ${sizeText(bound.limit)}, the most ${flag} reads`,
                  {
                    hint: bound.hint,
                  },
                );
              }
            };
      // readUserFile reads text with the CLI's path rules and messages; base64 carries the bytes through unchanged.
      const base64 = await readUserFile(flag, path, {
        ...where,
        readFile: async (p) => Buffer.from(await readOne(p)).toString('base64'),
      });
      const bytes = Buffer.from(base64, 'base64');
      // An injected reader (tests) is not bounded by itself.
      if (bound !== undefined && bytes.length > bound.limit) throw tooLarge(flag, path, bound);
      return bytes;
    },
    readJson(flag, value) {
      const readBytes = opts.readBytes;
      return readJsonOption(flag, value, {
        ...where,
        ...stdin,
        ...(readBytes ? { readFile: async (p: string) => Buffer.from(await readBytes(p)).toString('utf8') } : {}),
      });
    },
  };
}

function tooLarge(flag: string, path: string, bound: ReadBound): UsageError {
  return new UsageError(`${flag}: ${path} is larger than ${sizeText(bound.limit)}, the most ${flag} reads`, {
    hint: bound.hint,
  });
}
