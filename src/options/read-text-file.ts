import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { TextgenError, UsageError } from '../contract/errors.js';
import { stripBom } from './read-stream.js';

export interface FileReadOptions {
  cwd: string;
  /** Injected by tests; defaults to fs.readFile as UTF-8. Errors are expected to carry Node's `code`. */
  readFile?: (path: string) => Promise<string>;
  /** Home directory for "~/"; defaults to os.homedir() (which honours HOME). */
  homeDir?: string;
}

/** Where a path the user typed points: relative to cwd, "~" and "~/" from the home directory. */
export function resolveUserPath(path: string, opts: { cwd: string; homeDir?: string }): string {
  if (path === '~' || path.startsWith('~/')) return resolve(opts.homeDir ?? homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(opts.cwd, path);
}

/**
 * Reads a text file named on the command line. Every failure becomes a UsageError naming the flag
 * and the path as the user wrote it (the absolute path goes into the hint when it differs).
 */
export async function readUserFile(flag: string, path: string, opts: FileReadOptions): Promise<string> {
  const absolute = resolveUserPath(path, opts);
  // node:fs/promises (with readline and fs watchers behind it) only when a file is read: not on every start.
  const read = opts.readFile ?? (async (p: string) => (await import('node:fs/promises')).readFile(p, 'utf8'));
  try {
    return stripBom(await read(absolute));
  } catch (err) {
    // A reader's own verdict (Ctrl-C, a bound it enforces) is already the error to show.
    if (err instanceof TextgenError) throw err;
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const where = absolute === path ? undefined : `looked for ${absolute}`;
    const reason =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory, not a file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : err instanceof Error
              ? err.message
              : String(err);
    const hint = code === 'ENOENT' || code === 'ENOTDIR' ? where : undefined;
    throw new UsageError(`${flag}: cannot read ${path}: ${reason}`, { ...(hint ? { hint } : {}), cause: err });
  }
}
