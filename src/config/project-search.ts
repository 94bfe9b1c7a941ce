/**
 * Where a project config file may come from, and whether a file found there is safe to read: the search's bounds and
 * the ownership checks (git's safe.directory, ssh's StrictModes). What a file found here may do is decided by trust
 * (./trust.ts, ./untrusted.ts); this module only finds and reads it.
 *
 * Bounds: under $HOME the search walks up from the working directory to $HOME (inclusive); anywhere else (/tmp, a CI
 * workspace, /srv) it reads the working directory and, when that is inside a git repository you own, the directories
 * up to the repository root — never a parent another user could have written to.
 * Safety: a file is read only when you own it and no one else can write to it or replace it (its directory is not
 * writable by others, or is sticky like /tmp). A file that fails is skipped as if absent, with one line saying why.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The places looked at in each directory, in this order (cosmiconfig's for the name `textgen`, without `.config/`). */
export const PROJECT_SEARCH_PLACES = [
  'package.json',
  '.textgenrc',
  '.textgenrc.json',
  '.textgenrc.yaml',
  '.textgenrc.yml',
  'textgen.config.js',
  'textgen.config.mjs',
  'textgen.config.cjs',
  'textgen.config.ts',
] as const;

/**
 * The rule that tells a project file from the user file: a file with a name the search reads. It is what the search
 * would pick up in a directory, so it is treated as committed to a repository (no literal secrets), wherever it is.
 */
export function isProjectFileName(file: string): boolean {
  return (PROJECT_SEARCH_PLACES as readonly string[]).includes(path.basename(file));
}

/** textgen.config.js and its kin: JavaScript or TypeScript that runs when loaded. */
export function isCodeConfig(file: string): boolean {
  return /\.(c|m)?[jt]s$/.test(file);
}

/** The directories the search reads, nearest first. */
export function searchDirectories(cwd: string, home: string): string[] {
  const start = realOr(path.resolve(cwd));
  const top = realOr(path.resolve(home));
  // HOME=/ (some containers) would make every directory "under home": then it bounds nothing.
  const underHome = top !== path.parse(top).root && (start === top || start.startsWith(top + path.sep));
  const stop = underHome ? top : (repositoryRoot(start) ?? start);
  const dirs: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === stop || path.dirname(dir) === dir) return dirs;
  }
}

/** The nearest directory from `dir` up holding a `.git` you own (another user's `.git` in /tmp does not widen the search). */
function repositoryRoot(dir: string): string | undefined {
  const uid = currentUid();
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const s = lstatSync(path.join(d, '.git'));
      if (uid === undefined || s.uid === uid) return d;
      return undefined;
    } catch {
      // No .git here: look further up.
    }
    if (path.dirname(d) === d) return undefined;
  }
}

/** A file found by the search: its bytes as read (what trust hashes and the loader parses: one read, no race). */
export interface FoundFile {
  file: string;
  bytes: Buffer;
}

/** A file the search passed over, and why (one line on stderr). */
export interface SkippedFile {
  file: string;
  reason: string;
}

/**
 * Reads the file at a search place when it exists and is safe. `undefined`: nothing there (or not a file the search
 * reads). A package.json is a candidate only with a "textgen" key, so another user's package.json in /tmp is not news.
 */
export function readCandidate(file: string): FoundFile | SkippedFile | undefined {
  let link;
  try {
    link = lstatSync(file);
  } catch {
    return undefined;
  }
  const uid = currentUid();
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted at a search place must not hang the command.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'EISDIR') return undefined;
    return { file, reason: `cannot be read (${code ?? (e as Error).message})` };
  }
  try {
    const s = fstatSync(fd);
    if (s.isDirectory()) return undefined;
    if (!s.isFile()) return { file, reason: 'is not a regular file' };
    const reason =
      (link.isSymbolicLink() && uid !== undefined && link.uid !== uid
        ? `is a symbolic link owned by uid ${link.uid}, not by you (uid ${uid})`
        : undefined) ??
      ownerProblem(s, uid) ??
      directoryProblem(path.dirname(file), uid) ??
      (link.isSymbolicLink() ? directoryProblem(path.dirname(realOr(file)), uid) : undefined);
    const bytes = readFileSync(fd);
    if (path.basename(file) === 'package.json' && !hasTextgenKey(bytes)) return undefined;
    return reason === undefined ? { file, bytes } : { file, reason };
  } finally {
    closeSync(fd);
  }
}

export function isSkipped(found: FoundFile | SkippedFile): found is SkippedFile {
  return 'reason' in found;
}

/** A package.json configures textgen only with a "textgen" key; one that is not JSON is left to the loader to report. */
function hasTextgenKey(bytes: Buffer): boolean {
  try {
    const data: unknown = JSON.parse(bytes.toString('utf8'));
    return data !== null && typeof data === 'object' && !Array.isArray(data) && Object.hasOwn(data, 'textgen');
  } catch {
    return true;
  }
}

function ownerProblem(s: { uid: number; gid: number; mode: number }, uid: number | undefined): string | undefined {
  if (uid === undefined) return undefined; // Windows: no POSIX owners to check.
  if (s.uid !== uid) return `is owned by uid ${s.uid}, not by you (uid ${uid})`;
  if ((s.mode & 0o002) !== 0) return 'is writable by others';
  if ((s.mode & 0o020) !== 0 && !isPrivateGroup(s.gid)) return `is writable by group ${s.gid}`;
  return undefined;
}

/**
 * A directory others can write to lets them replace the file in it, unless it is sticky (/tmp) and belongs to you or
 * to root (the owner of a sticky directory may still remove what is in it).
 */
function directoryProblem(dir: string, uid: number | undefined): string | undefined {
  if (uid === undefined) return undefined;
  let s;
  try {
    s = statSync(dir);
  } catch {
    return undefined;
  }
  const others = (s.mode & 0o002) !== 0 || ((s.mode & 0o020) !== 0 && !isPrivateGroup(s.gid));
  if (!others) return undefined;
  if ((s.mode & 0o1000) === 0) return `is in ${dir}, which others can write to`;
  if (s.uid !== uid && s.uid !== 0) return `is in ${dir}, a shared directory owned by uid ${s.uid}`;
  return undefined;
}

let privateGroups: Map<number, boolean> | undefined;

/**
 * Whether a group is yours alone: your primary group, named like you, with no other members (the "user private
 * group" of Debian and Fedora, where a umask of 002 makes files group-writable). Read from /etc/group only when a
 * group-writable file or directory turns up.
 */
function isPrivateGroup(gid: number): boolean {
  privateGroups ??= new Map();
  const known = privateGroups.get(gid);
  if (known !== undefined) return known;
  let answer = false;
  if (process.getgid?.() === gid) {
    try {
      const user = os.userInfo().username;
      const line = readFileSync('/etc/group', 'utf8')
        .split('\n')
        .find((l) => l.split(':')[2] === String(gid));
      const [name, , , members = ''] = (line ?? '').split(':');
      answer = name === user && members.split(',').every((m) => m === '' || m === user);
    } catch {
      answer = false;
    }
  }
  privateGroups.set(gid, answer);
  return answer;
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
