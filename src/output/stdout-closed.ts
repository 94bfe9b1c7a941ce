/**
 * Whether stdout was closed when textgen started (`textgen … >&-`). Node never lets a process start with file
 * descriptor 1 closed: it opens /dev/null in its place, read-write, so output written there vanishes and the command
 * would exit 0. A shell's `> /dev/null` opens it write-only, which tells the two apart (Linux, from /proc). Some
 * launchers also hand a child /dev/null read-write for output they discard (Python's subprocess.DEVNULL, Node's
 * stdio 'ignore'): docs/reliability.md says to redirect with `> /dev/null` instead.
 */
import { readFileSync, readlinkSync } from 'node:fs';

const O_ACCMODE = 0o3;
const O_RDWR = 0o2;

export function stdoutWasClosed(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    if (readlinkSync('/proc/self/fd/1') !== '/dev/null') return false;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/fdinfo/1', 'utf8'))?.[1];
    return flags !== undefined && (parseInt(flags, 8) & O_ACCMODE) === O_RDWR;
  } catch {
    return false;
  }
}
