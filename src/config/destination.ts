/**
 * The one check every writer of a user-named file runs before anything is sent or asked (`chat --save`,
 * `--continue`, `/save`, `batch --resume`, `profiles add|use|remove --config`), and the late write after it.
 *
 * textgen writes such a file by replacing it (a temporary file renamed over it, or appends merged through one), so
 * a path that is not a regular file would be replaced, not written to: `/dev/null` as root would become a file
 * holding the conversation, a FIFO or a socket would vanish. Such a path is refused (exit 2), naming what it is.
 *
 * Symbolic links: a link owned by the user (or by root, who could write the target anyway) is followed and the file
 * it points at is the one written, so a dotfiles repository keeps owning the real file. A link owned by anyone else
 * is refused: in a shared sticky directory (`/tmp`) another user may plant `/tmp/chat.jsonl -> /etc/shadow`, and
 * following it would hand that user's choice of file to the writer (the kernel's `protected_symlinks` stops only part
 * of this, and not everywhere). The final component is then never followed again: the temporary file is created with
 * O_EXCL next to the target and renamed over it, and a rename replaces a link swapped in meanwhile instead of writing
 * through it; appends open the target with O_NOFOLLOW.
 *
 * Before sending, a file that does not exist yet is checked for what would make the write fail after the request
 * was paid for: the directory (or its nearest existing parent, since missing ones are created) must be a
 * directory the user can write, and the name must leave room for the temporary and lock files next to it. What
 * still fails after the answer came (a full disk, a directory removed meanwhile) is an OutputError, exit 7, naming
 * the path and the cause; the answer has been printed by then.
 */
import { constants, type Stats } from 'node:fs';
import { access, lstat, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { OutputError, UsageError } from '../contract/errors.js';
import { resolveUserPath } from '../options/read-text-file.js';
import { makePrivateDirs } from './private-file.js';

/** NAME_MAX on every file system textgen meets (ext4, xfs, btrfs, tmpfs, APFS): bytes of one path component. */
const NAME_MAX = 255;
/** PATH_MAX on Linux, bytes of a whole path including the terminating NUL. */
const PATH_MAX = 4096;
/** The longest suffix textgen adds next to a file it writes: `.<pid>.<12 hex>.tmp`, `.lock`, a merge's `.tmp`. */
const SUFFIX_ROOM = 32;
const MAX_HOPS = 40;

export interface Destination {
  /** The flag in messages (`--save`, `--resume`, `/save`, `--config`). */
  flag: string;
  /** The path as the user wrote it, for messages. */
  shown: string;
  /** The file written: the path with the user's own symbolic links followed. */
  target: string;
  /** A regular file is there now. */
  exists: boolean;
}

/** What a path that is not a regular file is, for the message refusing it. */
export function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a directory';
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

const WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'its directory does not exist',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many levels of symbolic links',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
};

/** A file-system failure in words, with its code: "no space left on device (ENOSPC)". */
export function fsCause(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code === undefined) return e instanceof Error ? e.message : String(e);
  return `${WORDS[code] ?? code} (${code})`;
}

/** The uid links must belong to; undefined where there are no uids (Windows): no link is then judged by owner. */
function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

async function lstatOrUndefined(p: string, shown: string, flag: string): Promise<Stats | undefined> {
  try {
    return await lstat(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`${flag}: cannot write ${shown}: ${fsCause(e)}`);
  }
}

/**
 * Checks that `file` (relative to `cwd`, `~/` from home) can be written by replacing it, before anything is sent:
 * refused (UsageError, exit 2) when it is anything but a regular file or a missing one, when a symbolic link on the
 * way belongs to another user, or when the write could not succeed (its directory missing as a file, not writable,
 * the name too long).
 */
export async function checkDestination(
  flag: string,
  file: string,
  opts: { cwd: string; homeDir?: string },
): Promise<Destination> {
  const shown = file;
  let current = resolveUserPath(file, opts);
  const uid = currentUid();
  let s: Stats | undefined;
  for (let hops = 0; ; hops++) {
    if (hops > MAX_HOPS) throw new UsageError(`${flag}: cannot use ${shown}: ${WORDS.ELOOP} (ELOOP)`);
    checkName(flag, shown, current);
    s = await lstatOrUndefined(current, shown, flag);
    if (s === undefined || !s.isSymbolicLink()) break;
    if (uid !== undefined && s.uid !== uid && s.uid !== 0) {
      throw new UsageError(
        `${flag}: ${shown} is a symbolic link owned by another user (uid ${s.uid}); textgen does not write through it`,
        { hint: 'give the path of the file itself, or of a new file in a directory only you can write' },
      );
    }
    current = path.resolve(path.dirname(current), await readlink(current));
  }
  if (s !== undefined && !s.isFile()) throw notRegular(flag, shown, s, current);
  await checkWritableDirectory(flag, shown, path.dirname(current));
  if (s !== undefined) {
    try {
      await access(current, constants.R_OK | constants.W_OK);
    } catch (e) {
      throw new UsageError(`${flag}: cannot write ${shown}: ${fsCause(e)}`);
    }
  }
  return { flag, shown, target: current, exists: s !== undefined };
}

/** The name must leave room for the temporary and lock files textgen writes next to it. */
function checkName(flag: string, shown: string, file: string): void {
  const bytes = Buffer.byteLength(path.basename(file));
  if (bytes > NAME_MAX - SUFFIX_ROOM) {
    throw new UsageError(
      `${flag}: cannot write ${shown}: the name is too long (${bytes} bytes; at most ${NAME_MAX - SUFFIX_ROOM}, leaving room for the temporary file written next to it)`,
    );
  }
  if (Buffer.byteLength(file) >= PATH_MAX - SUFFIX_ROOM)
    throw new UsageError(`${flag}: cannot write ${shown}: the path is too long (ENAMETOOLONG)`);
}

function notRegular(flag: string, shown: string, s: Stats, target: string): UsageError {
  const where = target === path.resolve(shown) ? '' : ` (${target})`;
  return new UsageError(
    `${flag}: ${shown}${where} is ${kindOf(s)}, not a regular file; textgen replaces the file it writes, so give the path of a regular file (or of one that does not exist yet)`,
  );
}

/** The nearest existing directory of `dir` (missing ones are created at the write) must be one the user can write. */
async function checkWritableDirectory(flag: string, shown: string, dir: string): Promise<void> {
  for (let d = dir; ; d = path.dirname(d)) {
    let s: Stats;
    try {
      s = await stat(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && path.dirname(d) !== d) continue;
      throw new UsageError(`${flag}: cannot write ${shown}: ${fsCause(e)}`);
    }
    if (!s.isDirectory())
      throw new UsageError(`${flag}: cannot write ${shown}: ${d} is ${kindOf(s)}, not a directory (ENOTDIR)`);
    try {
      await access(d, constants.W_OK | constants.X_OK);
    } catch (e) {
      throw new UsageError(`${flag}: cannot write ${shown}: ${d}: ${fsCause(e)}`);
    }
    return;
  }
}

/**
 * Creates the target's missing directories (0700, as the write would) before sending: the lock lives next to the
 * file, and a directory that cannot be made is better found now than after the answer.
 */
export async function makeDestinationDir(dest: Destination): Promise<void> {
  try {
    await makePrivateDirs(path.dirname(dest.target));
  } catch (e) {
    throw new UsageError(`${dest.flag}: cannot write ${dest.shown}: ${fsCause(e)}`);
  }
}

/**
 * Checks the target again right before it is replaced (it may have changed while the request ran): anything but a
 * regular file or nothing there is refused. A failure here comes after the answer, so it is an OutputError.
 */
export async function recheckDestination(dest: Destination): Promise<void> {
  let s: Stats | undefined;
  try {
    s = await lstat(dest.target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw lateFailure(dest, e);
  }
  if (s !== undefined && !s.isFile()) {
    throw new OutputError(
      `${dest.flag}: cannot write ${dest.shown}: it became ${kindOf(s)} while the request ran; nothing was written`,
    );
  }
}

/** A write that failed after the answer came: exit 7, the path and the cause. */
export function lateFailure(dest: Destination, e: unknown): OutputError {
  if (e instanceof OutputError) return e;
  return new OutputError(`${dest.flag}: cannot write ${dest.shown}: ${fsCause(e)}`, { cause: e });
}
